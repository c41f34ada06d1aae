import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PgBus, startOutboxRelay, type OutboxRelay } from '@assay/bus';
import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { createSilentLogger } from '@assay/logger';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import {
  bearer,
  call,
  createTestDatabase,
  eventually,
  freePortForTests,
  listen,
  startTestRedis,
  TEST_INTERNAL_SECRET,
  type Reply,
  type TestDatabase,
  type TestRedis,
  type TestServer,
} from '@assay/testing';
import { buildApp as buildAuthApp } from '../../auth/src/app.js';
import { migrations as authMigrations } from '../../auth/src/db/migrations/index.js';

// Two real gateway processes (`services/gateway/src/main.ts`, as make run and the chart start
// them) in front of a real auth service, sharing one real redis-server started here.
jest.setTimeout(120_000);
const logger = createSilentLogger();

let testDb: TestDatabase;
let authDb: Database<any>;
let authServer: TestServer;
let relayBus: PgBus;
let relay: OutboxRelay;
let redis: TestRedis;
const gateways: Array<{ url: string; proc: ChildProcess; output: () => string }> = [];

function repoRoot(): string {
  let dir = process.cwd();
  while (!existsSync(path.join(dir, 'pnpm-workspace.yaml'))) dir = path.dirname(dir);
  return dir;
}

async function startGatewayProcess(): Promise<{ url: string; proc: ChildProcess; output: () => string }> {
  const port = await freePortForTests();
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join('services', 'gateway', 'src', 'main.ts')], {
    cwd: repoRoot(),
    env: {
      ...process.env,
      DATABASE_URL: testDb.url,
      INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET,
      AUTH_URL: authServer.url,
      REDIS_URL: redis.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      BUS: 'pg',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  proc.stdout!.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  proc.stderr!.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  const url = `http://127.0.0.1:${port}`;
  await eventually(async () => {
    if (proc.exitCode !== null) throw new Error(`gateway exited: ${chunks.join('')}`);
    return (await fetch(`${url}/readyz`)).ok;
  }, 60_000, 200);
  const gw = { url, proc, output: () => chunks.join('') };
  gateways.push(gw);
  return gw;
}

async function starterKey(gatewayUrl: string): Promise<string> {
  const email = `o${Date.now()}${Math.random().toString(36).slice(2, 6)}@example.test`;
  const res = await fetch(`${authServer.url}/internal/organizations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, servicePrincipal('test')) },
    body: JSON.stringify({ name: 'org', plan: 'starter', owner: { email, name: 'Owner', password: 'a long enough password' } }),
  });
  expect(res.status).toBe(201);
  const login = await call(gatewayUrl, 'POST', '/api/auth/login', { body: { email, password: 'a long enough password' } });
  const key = await call(gatewayUrl, 'POST', '/api/service-keys', { headers: bearer(login.body.token), body: { name: 'ci', environment: 'prod' } });
  expect(key.status).toBe(201);
  return key.body.key as string;
}

const me = (gatewayUrl: string, key: string) => call(gatewayUrl, 'GET', '/api/auth/me', { headers: bearer(key) });

beforeAll(async () => {
  testDb = await createTestDatabase();
  redis = await startTestRedis();
  authDb = createDatabase({ connectionString: testDb.url, schema: 'auth' });
  await migrateToLatest(authDb, authMigrations);
  authServer = await listen(
    buildAuthApp({ db: authDb.db, schema: 'auth', logger, internalTokenSecret: TEST_INTERNAL_SECRET, session: { secret: 'shared-limits-session-secret-0123456789', ttlSeconds: 3600 } }),
  );
  relayBus = new PgBus({ connectionString: testDb.url, logger });
  await relayBus.start();
  relay = startOutboxRelay({ db: authDb.db, listen: authDb.pool, schema: 'auth', bus: relayBus, logger, intervalMs: 200 });
  await startGatewayProcess();
  await startGatewayProcess();
});

afterAll(async () => {
  for (const gw of gateways) {
    if (gw.proc.exitCode !== null) continue;
    const exited = new Promise((r) => gw.proc.once('exit', r));
    gw.proc.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 12_000)))]);
    clearTimeout(timer);
    if (gw.proc.exitCode === null) gw.proc.kill('SIGKILL');
  }
  await relay?.stop();
  await relayBus?.stop();
  await authServer?.close();
  await authDb?.close();
  await redis?.close();
  await testDb?.drop();
});

/** Sends `n` calls with the key, alternating between the two gateways. */
async function alternate(key: string, n: number): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let i = 0; i < n; i++) replies.push(await me(gateways[i % 2]!.url, key));
  return replies;
}

describe('rate limits shared by gateway replicas', () => {
  it('holds the Starter limit of 30 per minute across two gateways: the 31st call gets 429 whichever replica it hits', async () => {
    const [a, b] = gateways as [(typeof gateways)[0], (typeof gateways)[0]];
    const key = await starterKey(a.url);
    const replies = await alternate(key, 30);
    expect(replies.map((r) => r.status)).toEqual(Array(30).fill(200));
    // One counter: the remaining count falls by one per call, whichever gateway answered.
    expect(replies.map((r) => Number(r.headers.get('x-ratelimit-remaining')))).toEqual(Array.from({ length: 30 }, (_, i) => 29 - i));
    expect(replies[0]!.headers.get('x-ratelimit-limit')).toBe('30');
    for (const gw of [a, b]) {
      const limited = await me(gw.url, key);
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ error: 'rate_limit_exceeded', retry_after: expect.any(Number) });
      expect(limited.body.retry_after).toBeGreaterThan(0);
      expect(limited.body.retry_after).toBeLessThanOrEqual(60);
      expect(Number(limited.headers.get('retry-after'))).toBe(limited.body.retry_after);
    }
    // Another key has its own counter.
    expect((await me(b.url, await starterKey(b.url))).status).toBe(200);
  });

  it('keeps serving when Redis goes away, counting in each process, and shares the counters again once Redis is back', async () => {
    const [a, b] = gateways as [(typeof gateways)[0], (typeof gateways)[0]];
    const key = await starterKey(a.url);
    await redis.stop();
    // No call hangs or fails: each gateway counts alone meanwhile.
    const during = await alternate(key, 10);
    expect(during.map((r) => r.status)).toEqual(Array(10).fill(200));
    await eventually(async () => /redis|rate-limit counters/i.test(a.output()) && /redis|rate-limit counters/i.test(b.output()), 10_000);

    await redis.start();
    // Back by itself: a call on one gateway is seen by the other.
    await eventually(async () => {
      const probe = await starterKey(a.url);
      const first = await me(a.url, probe);
      const second = await me(b.url, probe);
      return Number(second.headers.get('x-ratelimit-remaining')) === Number(first.headers.get('x-ratelimit-remaining')) - 1;
    }, 30_000, 500);
    const fresh = await starterKey(b.url);
    const replies = await alternate(fresh, 30);
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect((await me(a.url, fresh)).status).toBe(429);
    expect((await me(b.url, fresh)).status).toBe(429);
  });
});
