import { randomBytes, randomUUID } from 'node:crypto';
import { PgBus, startOutboxRelay, type OutboxRelay } from '@assay/bus';
import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { PRINCIPAL_HEADER, signPrincipal, type Principal } from '@assay/principal';
import { createTestDatabase, listen, type Reply, TEST_INTERNAL_SECRET, type TestDatabase, testLogger } from '@assay/testing';
import { createPlan, startTestCaseServer } from '../../test-case/test/server.js';
import { startShop } from '../../../tests/fixtures/shop/server.js';
import { buildApp } from '../src/app.js';
import { TestCaseClient } from '../src/clients/test-case.client.js';
import type { ExecutionDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { ExecutionNotifier } from '../src/executions/notifier.js';
import { BrowserPool, DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { DEFAULT_EGRESS, EgressPolicy, type EgressSettings } from '@assay/egress';
import { Runner } from '../src/runner/worker.js';
import { PhaseProfile } from '../src/runner/profile.js';
import type { ArtifactLimits } from '../src/artifacts/artifacts.repository.js';
import type { AuthClient } from '../src/clients/auth.client.js';
import { Scheduler } from '../src/schedules/scheduler.js';
import { DEFAULT_RECORDER_LIMITS, RecordingManager, type RecorderLimits } from '../src/recordings/recordings.service.js';

// The execution-runner with its real neighbours: the test-case service (its app
// on a real port), Postgres, the pg bus, the outbox relay, Chromium, and the
// fixture shop as the application under test.
export const PUBLIC_BASE_URL = 'http://assay.test';
const logger = testLogger();

export type { Reply } from '@assay/testing';

export interface RunnerHarness {
  shopUrl: string;
  resetShop(): void;
  database: Database<ExecutionDatabase>;
  execUrl: string;
  /** A new organization (or the one given), with an admin key's principal. */
  tenant(orgId?: string, plan?: Principal['plan']): Tenant;
  /** The runner started with the harness. */
  runner: Runner;
  /** Starts another runner process-equivalent on the same database and bus. */
  startRunner(opts?: { leaseSeconds?: number; concurrency?: number; contextMaxCases?: number }): Promise<Runner>;
  events(type?: string): Promise<any[]>;
  /** A scheduler on the harness's database, as each runner process starts one (not started: call `tick`). */
  scheduler(opts?: { now?: () => Date; auth?: AuthClient }): Scheduler;
  /** The recordings of the harness's app (recordings.test.ts moves their clock). */
  recordings: RecordingManager;
  close(): Promise<void>;
}

export interface Tenant {
  orgId: string;
  principal: Principal;
  tc(method: string, path: string, body?: unknown): Promise<Reply>;
  ex(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** POST /api/v1/artifacts with `form` as the multipart body (a raw body needs its content type). */
  uploadForm(form: FormData | Buffer, contentType?: string): Promise<Reply>;
  /** A project on the shop (or `project.base_url`) with one plan holding the given cases (name → steps). */
  plan(cases: Record<string, unknown[]>, project?: Record<string, unknown>): Promise<{ projectId: string; planId: string; caseIds: string[] }>;
}

/** Signs in to the shop fixture, with the run's `email` and `password` variables (`credentials`). */
export const login = [
  { action: 'navigate', value: '/login' },
  { action: 'fill', selector: '#email', value: '{{email}}' },
  { action: 'type', selector: '#password', value: '{{password}}' },
  { action: 'click', selector: '#submit' },
  { action: 'assert_text', selector: '#welcome', value: 'Welcome, user@shop.test' },
];
export const credentials = { email: 'user@shop.test', password: 'secret123' };

export async function startRunnerHarness(
  opts: { concurrency?: number; stepTimeoutMs?: number; leaseSeconds?: number; egress?: EgressSettings; artifacts?: Partial<ArtifactLimits>; contextMaxCases?: number; profileFile?: string; recorder?: Partial<RecorderLimits> } = {},
): Promise<RunnerHarness> {
  const artifacts: ArtifactLimits = { maxBytes: 50 * 1024 * 1024, orgQuotaBytes: 1024 * 1024 * 1024, ...opts.artifacts };
  const testDb: TestDatabase = await createTestDatabase();
  const shop = await startShop();
  const tcServer = await startTestCaseServer(testDb.url, logger);
  const database = createDatabase<ExecutionDatabase>({ connectionString: testDb.url, schema: 'execution' });
  await migrateToLatest(database, migrations);

  const buses: PgBus[] = [];
  const runners: Runner[] = [];
  const newBus = async () => {
    const bus = new PgBus({ connectionString: testDb.url, logger });
    await bus.start();
    buses.push(bus);
    return bus;
  };
  const relay: OutboxRelay = startOutboxRelay({ db: database.db, listen: database.pool, schema: 'execution', bus: await newBus(), logger, intervalMs: 200 });
  const notifier = new ExecutionNotifier(database.pool, logger);
  await notifier.start();

  const startRunner: RunnerHarness['startRunner'] = async (o = {}) => {
    const runner = new Runner({
      db: database.db,
      schema: 'execution',
      bus: await newBus(),
      logger,
      browsers: new BrowserPool(process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH, logger, new EgressPolicy(opts.egress ?? { ...DEFAULT_EGRESS, allowLoopback: true }), (o.contextMaxCases ?? opts.contextMaxCases ?? 50) > 1 ? { maxCases: o.contextMaxCases ?? opts.contextMaxCases ?? 50 } : undefined),
      ...(opts.profileFile ? { profile: new PhaseProfile(opts.profileFile) } : {}),
      concurrency: o.concurrency ?? opts.concurrency ?? 2,
      stepTimeoutMs: opts.stepTimeoutMs ?? 3000,
      navigationTimeoutMs: 10_000,
      leaseSeconds: o.leaseSeconds ?? opts.leaseSeconds ?? 30,
      publicBaseUrl: PUBLIC_BASE_URL,
      workerId: `test-${randomBytes(3).toString('hex')}`,
      cancelPollMs: 200,
      testCases: new TestCaseClient(tcServer.url, TEST_INTERNAL_SECRET),
      artifacts,
    });
    await runner.start();
    runners.push(runner);
    return runner;
  };
  const runner = await startRunner();
  const testCaseClient = new TestCaseClient(tcServer.url, TEST_INTERNAL_SECRET);

  // Recordings get a browser of their own here (in the service they share the runner's); it launches on first use.
  const recordingBrowsers = new BrowserPool(process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH, logger, new EgressPolicy(opts.egress ?? { ...DEFAULT_EGRESS, allowLoopback: true }));
  const recordings = new RecordingManager({ browsers: recordingBrowsers, testCases: testCaseClient, logger, limits: { ...DEFAULT_RECORDER_LIMITS, ...opts.recorder }, navigationTimeoutMs: 10_000 });
  const execServer = await listen(
    buildApp({
      recordings,
      db: database.db,
      schema: 'execution',
      logger,
      testCases: new TestCaseClient(tcServer.url, TEST_INTERNAL_SECRET),
      notifier,
      publicBaseUrl: PUBLIC_BASE_URL,
      concurrency: opts.concurrency ?? 2,
      artifacts,
      internalTokenSecret: TEST_INTERNAL_SECRET,
    }),
  );

  const request = async (base: string, principal: Principal, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, principal), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const type = res.headers.get('content-type') ?? '';
    const parsed = type.includes('json') ? await res.json() : type.startsWith('image/') || type === 'application/zip' ? Buffer.from(await res.arrayBuffer()) : await res.text();
    return { status: res.status, body: parsed, headers: res.headers };
  };

  return {
    shopUrl: shop.url,
    resetShop: () => shop.reset(),
    database,
    execUrl: execServer.url,
    startRunner,
    runner,
    scheduler(o = {}) {
      return new Scheduler({ db: database.db, schema: 'execution', testCases: testCaseClient, logger, intervalMs: 60_000, ...o });
    },
    tenant(orgId = randomUUID(), plan = 'pro') {
      const principal: Principal = { org_id: orgId, sub: randomUUID(), kind: 'service_key', role: 'admin', scopes: [], plan };
      const tc: Tenant['tc'] = (m, p, b) => request(tcServer.url, principal, m, p, b);
      return {
        orgId,
        principal,
        tc,
        ex: (m, p, b, h) => request(execServer.url, principal, m, p, b, h),
        async uploadForm(form, contentType) {
          const headers = { [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, principal), ...(contentType ? { 'content-type': contentType } : {}) };
          const res = await fetch(`${execServer.url}/api/v1/artifacts`, { method: 'POST', headers, body: form });
          return { status: res.status, body: await res.json(), headers: res.headers };
        },
        plan: (cases, project = {}) => createPlan(tc, { name: 'Shop', base_url: shop.url, ...project }, cases),
      };
    },
    async events(type) {
      const rows = await database.db.selectFrom('outbox').select('envelope').orderBy('seq').execute();
      const all = rows.map((r) => r.envelope as any);
      return type ? all.filter((e) => e.event === type) : all;
    },
    recordings,
    async close() {
      await recordings.closeAll();
      await recordingBrowsers.close();
      for (const r of runners) await r.stop().catch(() => undefined);
      await execServer.close();
      await relay.stop();
      await notifier.stop();
      for (const b of buses) await b.stop().catch(() => undefined);
      await tcServer.close();
      await shop.close();
      await database.close();
      await testDb.drop();
    },
  };
}
