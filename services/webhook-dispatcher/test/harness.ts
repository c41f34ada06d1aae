import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { createSilentLogger } from '@assay/logger';
import { PRINCIPAL_HEADER, signPrincipal, type Plan, type Principal } from '@assay/principal';
import { createTestDatabase, listen, type Reply, TEST_INTERNAL_SECRET, type TestDatabase, type TestServer } from '@assay/testing';
import { DEFAULT_EGRESS, EgressPolicy } from '@assay/egress';
import { buildApp } from '../src/app.js';
import type { WebhookDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { Dispatcher } from '../src/dispatch/dispatcher.js';
import type { Clock } from '../src/shared/clock.js';
import { SecretBox } from '../src/shared/secrets.js';

export const TEST_SECRET_KEY = 'test-webhook-secret-key-0123456789abcdef';

/** A clock the test moves: the retry schedule is checked without waiting. */
export class FakeClock implements Clock {
  private t: number;
  constructor(start = Date.now()) {
    this.t = start;
  }
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(date: Date): void {
    this.t = date.getTime();
  }
}

export type { Reply } from '@assay/testing';

export interface Tenant {
  orgId: string;
  principal: Principal;
  call(method: string, path: string, body?: unknown): Promise<Reply>;
  /** Registers a webhook and returns the create response. */
  webhook(url: string, overrides?: Record<string, unknown>): Promise<any>;
}

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** The receiver process (test/receiver.ts). */
export interface Receiver {
  url: string;
  proc: ChildProcess;
  requests(pathPrefix?: string): Promise<Received[]>;
  close(): Promise<void>;
}

export function repoRoot(): string {
  return path.resolve(__dirname, '..', '..', '..');
}

/** Starts `script` as a node process with tsx and resolves with the first JSON line it prints. */
export function spawnScript<T>(script: string, env: Record<string, string> = {}): Promise<{ proc: ChildProcess; info: T }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot(), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ proc, info: JSON.parse(line) as T });
    });
    proc.once('exit', (code) => reject(new Error(`${script} exited (code ${code}): ${err}`)));
  });
}

export async function startReceiver(): Promise<Receiver> {
  const { proc, info } = await spawnScript<{ port: number }>(path.join(__dirname, 'receiver.ts'));
  const url = `http://127.0.0.1:${info.port}`;
  return {
    url,
    proc,
    async requests(prefix = '/') {
      const all = (await (await fetch(`${url}/__requests`)).json()) as Received[];
      return all.filter((r) => r.path.startsWith(prefix));
    },
    async close() {
      proc.kill('SIGTERM');
      await new Promise((r) => (proc.exitCode !== null ? r(null) : proc.once('exit', r)));
    },
  };
}

export interface WebhookHarness {
  database: Database<WebhookDatabase>;
  testDb: TestDatabase;
  server: TestServer;
  clock: FakeClock;
  secrets: SecretBox;
  dispatcher: Dispatcher;
  /** Deletes a webhook's deliveries and their queue rows (the create-time test event, before a test of its own). */
  forgetDeliveries(webhookId: string): Promise<void>;
  /** A new dispatcher on the same database (another replica). */
  newDispatcher(opts?: { responseTimeoutMs?: number; rateLimitsEnabled?: boolean; egress?: EgressPolicy }): Dispatcher;
  tenant(opts?: { plan?: Plan; role?: Principal['role']; kind?: Principal['kind']; scopes?: string[]; orgId?: string }): Tenant;
  close(): Promise<void>;
}

/** The tests' receivers listen on loopback. */
export const TEST_EGRESS = new EgressPolicy({ ...DEFAULT_EGRESS, allowLoopback: true });

/**
 * The service's app on a real port and a real database, with a dispatcher
 * the tests drive round by round (`runOnce`) on a clock they move.
 */
/** `egress`: the policy of the API and of the dispatchers (default: loopback allowed, as the receivers need). */
export async function startWebhookService(opts: { egress?: EgressPolicy } = {}): Promise<WebhookHarness> {
  const egress = opts.egress ?? TEST_EGRESS;
  const testDb = await createTestDatabase();
  const database = createDatabase<WebhookDatabase>({ connectionString: testDb.url, schema: 'webhook' });
  await migrateToLatest(database, migrations);
  const clock = new FakeClock();
  const secrets = new SecretBox(TEST_SECRET_KEY);
  const logger = createSilentLogger();
  const dispatchers: Dispatcher[] = [];
  const newDispatcher: WebhookHarness['newDispatcher'] = (opts = {}) => {
    const d = new Dispatcher({ db: database.db, secrets, logger, clock, egress: opts.egress ?? egress, rateLimitsEnabled: opts.rateLimitsEnabled ?? true, ...(opts.responseTimeoutMs ? { responseTimeoutMs: opts.responseTimeoutMs } : {}) });
    dispatchers.push(d);
    return d;
  };
  const dispatcher = newDispatcher();
  const server = await listen(
    buildApp({ db: database.db, logger, secrets, clock, allowLocalHttp: true, egress, deliveriesDue: () => undefined, internalTokenSecret: TEST_INTERNAL_SECRET }),
  );

  return {
    database,
    testDb,
    server,
    clock,
    secrets,
    dispatcher,
    newDispatcher,
    async forgetDeliveries(webhookId) {
      await database.db.deleteFrom('delivery_queue').where('delivery_id', 'in', (eb) => eb.selectFrom('deliveries').select('id').where('webhook_id', '=', webhookId)).execute();
      await database.db.deleteFrom('deliveries').where('webhook_id', '=', webhookId).execute();
    },
    tenant(opts = {}) {
      const orgId = opts.orgId ?? randomUUID();
      const principal: Principal = { org_id: orgId, sub: randomUUID(), kind: opts.kind ?? 'session', role: opts.role ?? 'owner', scopes: opts.scopes ?? [], plan: opts.plan ?? 'pro' };
      const call: Tenant['call'] = async (method, p, body) => {
        const headers: Record<string, string> = { [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, principal) };
        if (body !== undefined) headers['content-type'] = 'application/json';
        const res = await fetch(`${server.url}${p}`, { method, headers, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
        const text = await res.text();
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          /* not JSON */
        }
        return { status: res.status, body: parsed, headers: res.headers };
      };
      return {
        orgId,
        principal,
        call,
        async webhook(url, overrides = {}) {
          const r = await call('POST', '/api/v1/webhooks', { name: 'Hook', url, events: ['test.case.created'], ...overrides });
          if (r.status !== 201) throw new Error(JSON.stringify(r.body));
          return r.body;
        },
      };
    },
    async close() {
      for (const d of dispatchers) await d.stop();
      await server.close();
      await database.close();
      await testDb.drop();
    },
  };
}
