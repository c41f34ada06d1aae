import { randomBytes, randomUUID } from 'node:crypto';
import { BrowserPool, DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { PgBus, startOutboxRelay, type OutboxRelay, type Subscription } from '@assay/bus';
import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { PRINCIPAL_HEADER, signPrincipal, type Principal } from '@assay/principal';
import { createTestDatabase, eventually, listen, type Reply, TEST_INTERNAL_SECRET, type TestDatabase, testLogger } from '@assay/testing';
import { createPlan, startTestCaseServer } from '../../test-case/test/server.js';
import { buildApp as buildRunnerApp } from '../../execution-runner/src/app.js';
import { TestCaseClient as RunnerTestCaseClient } from '../../execution-runner/src/clients/test-case.client.js';
import { migrations as runnerMigrations } from '../../execution-runner/src/db/migrations/index.js';
import { ExecutionNotifier } from '../../execution-runner/src/executions/notifier.js';
import { Runner } from '../../execution-runner/src/runner/worker.js';
import { startRedesignApp, type RedesignApp } from '../../../tests/fixtures/redesign/server.js';
import { buildApp } from '../src/app.js';
import { DiscoveryClient } from '../src/clients/discovery.client.js';
import { InternalClient } from '@assay/internal-client';
import { RunnerClient } from '../src/clients/runner.client.js';
import { TestCaseClient } from '../src/clients/test-case.client.js';
import type { AnalysisContext } from '../src/context.js';
import type { AnalysisDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { subscribeToEvents } from '../src/intake/consumer.js';
import { LlmClient } from '../src/llm/llm.client.js';
import { LazyVerifier } from '../src/verify/lazy-verifier.js';
import { Verifier } from '../src/verify/verifier.js';
import { AnalysisWorker } from '../src/worker/worker.js';
import { DEFAULT_EGRESS, EgressPolicy } from '@assay/egress';

/** The fixture apps listen on loopback. */
const LOOPBACK_EGRESS = new EgressPolicy({ ...DEFAULT_EGRESS, allowLoopback: true });
const ARTIFACT_LIMITS = { maxBytes: 50 * 1024 * 1024, orgQuotaBytes: 1024 * 1024 * 1024 };

// The analysis service with its real neighbours: the test-case service and
// the execution-runner (their apps on real ports, the runner's Chromium
// worker), Postgres, the pg bus carrying the runner's events, and the
// two-version fixture app as the application under test.
export const PUBLIC_BASE_URL = 'http://assay.test';
const logger = testLogger();

export type { Reply } from '@assay/testing';

export interface AnalysisHarness {
  app: RedesignApp;
  database: Database<AnalysisDatabase>;
  tcDatabase: Database<any>;
  analysisUrl: string;
  /** What the analysis app was built with (for running its schedulers in the test). */
  context: AnalysisContext;
  tenant(): Tenant;
  /** Events the test-case service wrote (its outbox). */
  testCaseEvents(type?: string): Promise<any[]>;
  close(): Promise<void>;
}

export interface Tenant {
  orgId: string;
  tc(method: string, path: string, body?: unknown): Promise<Reply>;
  ex(method: string, path: string, body?: unknown): Promise<Reply>;
  an(method: string, path: string, body?: unknown): Promise<Reply>;
  /** A project (on the fixture app unless `baseUrl`) with one plan holding the cases (name → steps). */
  plan(cases: Record<string, unknown[]>, baseUrl?: string): Promise<{ projectId: string; planId: string; caseIds: string[] }>;
  /** Runs the plan synchronously; the execution body. */
  run(p: { projectId: string; planId: string }, variables?: Record<string, string>): Promise<any>;
  /** Polls the failure analysis until it is produced (200). */
  analysis(executionId: string): Promise<any>;
}

export async function startAnalysisHarness(opts: { llm?: { url: string; model: string }; discoveryUrl?: string; rerunEnabled?: boolean } = {}): Promise<AnalysisHarness> {
  const testDb: TestDatabase = await createTestDatabase();
  const app = await startRedesignApp();
  const tcServer = await startTestCaseServer(testDb.url, logger);

  const exDb = createDatabase<any>({ connectionString: testDb.url, schema: 'execution' });
  await migrateToLatest(exDb, runnerMigrations);
  const buses: PgBus[] = [];
  const newBus = async () => {
    const bus = new PgBus({ connectionString: testDb.url, logger, pollingIntervalSeconds: 0.5 });
    await bus.start();
    buses.push(bus);
    return bus;
  };
  const database = createDatabase<AnalysisDatabase>({ connectionString: testDb.url, schema: 'analysis' });
  await migrateToLatest(database, migrations);

  const notifier = new ExecutionNotifier(exDb.pool, logger);
  await notifier.start();
  const exServer = await listen(
    buildRunnerApp({
      db: exDb.db,
      schema: 'execution',
      logger,
      testCases: new RunnerTestCaseClient(tcServer.url, TEST_INTERNAL_SECRET),
      notifier,
      publicBaseUrl: PUBLIC_BASE_URL,
      concurrency: 2,
      internalTokenSecret: TEST_INTERNAL_SECRET,
      artifacts: ARTIFACT_LIMITS,
    }),
  );
  // The analysis service subscribes before the runner publishes anything.
  const analysisBus = await newBus();
  const runnerClient = new RunnerClient(new InternalClient({ caller: 'analysis', urls: { 'execution-runner': exServer.url }, internalTokenSecret: TEST_INTERNAL_SECRET }));
  const exRelay: OutboxRelay = startOutboxRelay({ db: exDb.db, listen: exDb.pool, schema: 'execution', bus: await newBus(), logger, intervalMs: 200 });
  const runner = new Runner({
    db: exDb.db,
    schema: 'execution',
    bus: await newBus(),
    logger,
    browsers: new BrowserPool(process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH, logger, LOOPBACK_EGRESS),
    concurrency: 2,
    // Generous: a shared machine under load must not turn a passing step into a failure.
    stepTimeoutMs: 5000,
    navigationTimeoutMs: 20_000,
    leaseSeconds: 30,
    publicBaseUrl: PUBLIC_BASE_URL,
    workerId: `test-${randomBytes(3).toString('hex')}`,
    cancelPollMs: 200,
    artifacts: ARTIFACT_LIMITS,
  });
  await runner.start();

  // Through the LazyVerifier main.ts wraps it in (opened here without main's dynamic imports, which jest cannot load).
  const browsers = new BrowserPool(process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH, logger, LOOPBACK_EGRESS);
  const verifier = new LazyVerifier(async () => ({ verifier: new Verifier(browsers, { stepTimeoutMs: 10_000, navigationTimeoutMs: 30_000 }), close: () => browsers.close() }));
  const worker = new AnalysisWorker({
    db: database.db,
    logger,
    runner: runnerClient,
    verifier,
    closeBrowser: () => verifier.close(),
    rerunEnabled: opts.rerunEnabled ?? true,
    maxRerunsPerExecution: 10,
    ...(opts.discoveryUrl ? { discovery: new DiscoveryClient(new InternalClient({ caller: 'analysis', urls: { 'discovery-crawler': opts.discoveryUrl }, internalTokenSecret: TEST_INTERNAL_SECRET })) } : {}),
    ...(opts.llm ? { llm: new LlmClient({ ...opts.llm, timeoutMs: 5000 }, logger) } : {}),
    concurrency: 1,
    leaseSeconds: 30,
    workerId: `test-analysis-${randomBytes(3).toString('hex')}`,
    pollMs: 200,
  });
  worker.start();
  const subscriptions: Subscription[] = await subscribeToEvents({ bus: analysisBus, db: database.db, onWork: () => worker.kick() });
  const testCases = new TestCaseClient(new InternalClient({ caller: 'analysis', urls: { 'test-case': tcServer.url }, internalTokenSecret: TEST_INTERNAL_SECRET }));
  const context: AnalysisContext = { db: database.db, schema: 'analysis', logger, runner: runnerClient, testCases, workDue: () => worker.kick() };
  const anServer = await listen(buildApp({ ...context, internalTokenSecret: TEST_INTERNAL_SECRET }));

  const request = async (base: string, principal: Principal, method: string, path: string, body?: unknown): Promise<Reply> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, principal), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };

  return {
    app,
    database,
    tcDatabase: tcServer.db,
    analysisUrl: anServer.url,
    context,
    tenant() {
      const orgId = randomUUID();
      const principal: Principal = { org_id: orgId, sub: randomUUID(), kind: 'service_key', role: 'admin', scopes: [], plan: 'pro' };
      const tc: Tenant['tc'] = (m, p, b) => request(tcServer.url, principal, m, p, b);
      const ex: Tenant['ex'] = (m, p, b) => request(exServer.url, principal, m, p, b);
      const an: Tenant['an'] = (m, p, b) => request(anServer.url, principal, m, p, b);
      return {
        orgId,
        tc,
        ex,
        an,
        plan: (cases, baseUrl = app.url) => createPlan(tc, { name: 'Acme', base_url: baseUrl }, cases, 'Regression'),
        async run(p, variables) {
          const r = await ex('POST', '/api/v1/executions', { test_plan_id: p.planId, project_id: p.projectId, ...(variables ? { variables } : {}) });
          if (r.status !== 200) throw new Error(`execution answered ${r.status}: ${JSON.stringify(r.body)}`);
          return r.body;
        },
        analysis: (executionId) =>
          eventually(async () => {
            const r = await an('GET', `/api/v1/executions/${executionId}/failure-analysis`);
            if (r.status === 200) return r.body;
            if (r.status !== 202) throw new Error(`failure analysis answered ${r.status}: ${JSON.stringify(r.body)}`);
            return undefined;
          }, 90_000, 200),
      };
    },
    async testCaseEvents(type) {
      const rows = await tcServer.db.db.selectFrom('outbox').select('envelope').orderBy('seq').execute();
      const all = rows.map((r: { envelope: unknown }) => r.envelope as any);
      return type ? all.filter((e) => e.event === type) : all;
    },
    async close() {
      for (const s of subscriptions) await s.close().catch(() => undefined);
      await worker.stop();
      await runner.stop().catch(() => undefined);
      await anServer.close();
      await exServer.close();
      await exRelay.stop();
      await notifier.stop();
      for (const b of buses) await b.stop().catch(() => undefined);
      await tcServer.close();
      await app.close();
      await exDb.close();
      await database.close();
      await testDb.drop();
    },
  };
}
