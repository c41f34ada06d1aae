import { randomBytes, randomUUID } from 'node:crypto';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PgBus, startOutboxRelay, type OutboxRelay } from '@assay/bus';
import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { DEFAULT_EGRESS, EgressPolicy, type EgressSettings } from '@assay/egress';
import { PRINCIPAL_HEADER, signPrincipal, type Principal } from '@assay/principal';
import { createTestDatabase, eventually, freePortForTests, listen, type Reply, TEST_INTERNAL_SECRET, type TestDatabase, testLogger } from '@assay/testing';
import { startTestCaseServer } from '../../test-case/test/server.js';
import { startShop } from '../../../tests/fixtures/shop/server.js';
import { repoRoot } from '../../../tests/e2e/support/launcher.js';
import { buildApp } from '../src/app.js';
import { TestCaseClient } from '../src/clients/test-case.client.js';
import type { ExecutionDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { ExecutionNotifier } from '../src/executions/notifier.js';
import { SuiteShardRunner } from '../src/suites/shard-runner.js';
import type { SuiteSettings } from '../src/suites/suite-settings.js';

// The execution-runner's suites with their real neighbours: the test-case
// service, Postgres, the pg bus and outbox relay, shard runners (each as a
// replica would run it), boxes made with real namespaces, the fixture shop.
export const PUBLIC_BASE_URL = 'http://assay.test';
const logger = testLogger();

/** A directory of tests/fixtures/suites packed as a .tar.gz (or .zip), as a team would upload it. */
export function packSuite(name: string, format: 'tar.gz' | 'zip' = 'tar.gz'): Buffer {
  const dir = path.join(repoRoot(), 'tests/fixtures/suites', name);
  const out = mkdtempSync(path.join(tmpdir(), 'suite-'));
  try {
    const file = path.join(out, `suite.${format}`);
    if (format === 'tar.gz') execFileSync('tar', ['czf', file, '-C', dir, '.']);
    else execFileSync('python3', ['-c', 'import shutil,sys; shutil.make_archive(sys.argv[1][:-4], "zip", sys.argv[2])', file, dir]);
    return execFileSync('cat', [file], { maxBuffer: 64 * 1024 * 1024 });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export interface SuiteTenant {
  orgId: string;
  principal: Principal;
  tc(method: string, path: string, body?: unknown): Promise<Reply>;
  ex(method: string, path: string, body?: unknown): Promise<Reply>;
  /** POST /api/v1/suites with these fields and the archive. */
  upload(fields: Record<string, string>, archive: Buffer | undefined, filename?: string): Promise<Reply>;
  /** A project on the shop (or `baseUrl`). */
  project(baseUrl?: string): Promise<string>;
}

/** The execution-runner's main in a child process, taking suite shards and listings only. */
export interface RunnerProcess {
  proc: ChildProcess;
  output(): string;
}

export interface SuitesHarness {
  shopUrl: string;
  /** The test database's URL and the test-case service's: what a runner process of its own needs. */
  databaseUrl: string;
  testCaseUrl: string;
  database: Database<ExecutionDatabase>;
  settings: SuiteSettings;
  tenant(): SuiteTenant;
  /** Starts one more shard runner (a replica). */
  startShardRunner(): Promise<SuiteShardRunner>;
  /** Starts the service's own main as a suite-shard replica in a process of its own (killed, if alive, at close). */
  startRunnerProcess(env?: Record<string, string>): Promise<RunnerProcess>;
  events(type?: string): Promise<any[]>;
  close(): Promise<void>;
}

/**
 * `listOnUpload: false`: the runner that receives uploads lists nothing itself, as a runner that
 * cannot make the box (the chart's runner pods); its shard runners (replicas that can) list them.
 */
export async function startSuitesHarness(opts: { egress?: EgressSettings; shardRunners?: number; workDir?: string; listOnUpload?: boolean } = {}): Promise<SuitesHarness> {
  const testDb: TestDatabase = await createTestDatabase();
  const shop = await startShop();
  const tcServer = await startTestCaseServer(testDb.url, logger);
  const database = createDatabase<ExecutionDatabase>({ connectionString: testDb.url, schema: 'execution' });
  await migrateToLatest(database, migrations);
  const buses: PgBus[] = [];
  const newBus = async () => {
    const bus = new PgBus({ connectionString: testDb.url, logger });
    await bus.start();
    buses.push(bus);
    return bus;
  };
  const relay: OutboxRelay = startOutboxRelay({ db: database.db, listen: database.pool, schema: 'execution', bus: await newBus(), logger, intervalMs: 200 });
  const notifier = new ExecutionNotifier(database.pool, logger);
  await notifier.start();
  const artifacts = { maxBytes: 50 * 1024 * 1024, orgQuotaBytes: 1024 * 1024 * 1024 };
  const settings: SuiteSettings = {
    box: {
      workDir: opts.workDir ?? path.join('/var/lib/assay-test-suites', randomBytes(4).toString('hex')),
      chromiumPath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH,
      // The range a chart pod with its own user namespace has (0–65535).
      uidRange: [10_000, 65_000],
      limits: { cpuSeconds: 300, addressSpaceBytes: 2 ** 41, fileSizeBytes: 256 * 1024 * 1024, processes: 512, shmBytes: 128 * 1024 * 1024, outputBytes: 1024 * 1024 },
    },
    archive: { maxBytes: 20 * 1024 * 1024, maxUnpackedBytes: 100 * 1024 * 1024, maxFiles: 5000 },
    listTimeoutMs: 60_000,
    workers: 1,
    maxShards: 8,
    batchMinMs: 0,
    policy: new EgressPolicy(opts.egress ?? { ...DEFAULT_EGRESS, allowLoopback: true }),
    listOnUpload: true,
  };
  const runners: SuiteShardRunner[] = [];
  const startShardRunner = async () => {
    const r = new SuiteShardRunner({ db: database.db, schema: 'execution', bus: await newBus(), logger, settings, publicBaseUrl: PUBLIC_BASE_URL, workerId: `suites-${randomBytes(3).toString('hex')}`, leaseSeconds: 30, artifacts, concurrency: 1, pollMs: 200 });
    await r.start();
    runners.push(r);
    return r;
  };
  for (let i = 0; i < (opts.shardRunners ?? 1); i++) await startShardRunner();
  const processes: ChildProcess[] = [];
  const startRunnerProcess = async (env: Record<string, string> = {}): Promise<RunnerProcess> => {
    const port = await freePortForTests();
    const chunks: string[] = [];
    // As the chart's suite-shard pods run it: no case runner, no scheduler.
    const proc = spawn(process.execPath, ['--import', 'tsx', 'services/execution-runner/src/main.ts'], {
      cwd: repoRoot(),
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: testDb.url,
        INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET,
        TEST_CASE_URL: tcServer.url,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        BUS: 'pg',
        RUNNER_ENABLED: 'false',
        SUITE_SHARDS_ENABLED: 'true',
        SCHEDULER_ENABLED: 'false',
        SUITE_WORK_DIR: settings.box.workDir,
        SUITE_UID_MIN: String(settings.box.uidRange[0]),
        SUITE_UID_MAX: String(settings.box.uidRange[1]),
        CHROMIUM_PATH: settings.box.chromiumPath,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    processes.push(proc);
    proc.stdout!.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
    proc.stderr!.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
    await eventually(async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`the runner process exited: ${chunks.join('')}`);
      return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok;
    }, 90_000, 200);
    return { proc, output: () => chunks.join('') };
  };
  const testCases = new TestCaseClient(tcServer.url, TEST_INTERNAL_SECRET);
  const execServer = await listen(buildApp({ db: database.db, schema: 'execution', logger, testCases, notifier, publicBaseUrl: PUBLIC_BASE_URL, concurrency: 2, artifacts, suites: { ...settings, listOnUpload: opts.listOnUpload ?? true }, internalTokenSecret: TEST_INTERNAL_SECRET }));

  const request = async (base: string, principal: Principal, method: string, p: string, body?: unknown): Promise<Reply> => {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, principal), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const type = res.headers.get('content-type') ?? '';
    const parsed = type.includes('json') ? await res.json() : type.startsWith('text/') ? await res.text() : Buffer.from(await res.arrayBuffer());
    return { status: res.status, body: parsed, headers: res.headers };
  };

  return {
    shopUrl: shop.url,
    databaseUrl: testDb.url,
    testCaseUrl: tcServer.url,
    database,
    settings,
    startShardRunner,
    startRunnerProcess,
    tenant() {
      const orgId = randomUUID();
      const principal: Principal = { org_id: orgId, sub: randomUUID(), kind: 'service_key', role: 'admin', scopes: [], plan: 'pro' };
      const tc: SuiteTenant['tc'] = (m, p, b) => request(tcServer.url, principal, m, p, b);
      return {
        orgId,
        principal,
        tc,
        ex: (m, p, b) => request(execServer.url, principal, m, p, b),
        async upload(fields, archive, filename = 'suite.tar.gz') {
          const form = new FormData();
          for (const [k, v] of Object.entries(fields)) form.append(k, v);
          if (archive) form.append('archive', new Blob([archive]), filename);
          const res = await fetch(`${execServer.url}/api/v1/suites`, { method: 'POST', headers: { [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, principal) }, body: form });
          return { status: res.status, body: await res.json(), headers: res.headers };
        },
        async project(baseUrl = shop.url) {
          const r = await tc('POST', '/api/v1/projects', { name: `Shop ${randomBytes(2).toString('hex')}`, base_url: baseUrl });
          if (r.status !== 201) throw new Error(`project: ${r.status} ${JSON.stringify(r.body)}`);
          return r.body.id as string;
        },
      };
    },
    async events(type) {
      const rows = await database.db.selectFrom('outbox').select('envelope').orderBy('seq').execute();
      const all = rows.map((r) => r.envelope as any);
      return type ? all.filter((e) => e.event === type) : all;
    },
    async close() {
      for (const p of processes) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
      for (const r of runners) await r.stop().catch(() => undefined);
      await execServer.close();
      await relay.stop();
      await notifier.stop();
      for (const b of buses) await b.stop().catch(() => undefined);
      await tcServer.close();
      await shop.close();
      await database.close();
      await testDb.drop();
      rmSync(settings.box.workDir, { recursive: true, force: true });
    },
  };
}
