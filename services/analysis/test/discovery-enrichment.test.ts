import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { BrowserPool, DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { PgBus, startOutboxRelay, type OutboxRelay, type Subscription } from '@assay/bus';
import { createDatabase, migrateToLatest, PgNotifier, type Database } from '@assay/db';
import { createSilentLogger } from '@assay/logger';
import { PRINCIPAL_HEADER, signPrincipal, type Principal } from '@assay/principal';
import { call, createTestDatabase, eventually, listen, TEST_INTERNAL_SECRET, type TestDatabase, type TestServer } from '@assay/testing';
import { startTestCaseServer, type TestCaseServer } from '../../test-case/test/server.js';
import { buildApp as buildDiscoveryApp } from '../../discovery-crawler/src/app.js';
import { TestCaseClient as DiscoveryTestCaseClient } from '../../discovery-crawler/src/clients/test-case.client.js';
import { Crawler } from '../../discovery-crawler/src/crawler/crawler.js';
import { migrations as discoveryMigrations } from '../../discovery-crawler/src/db/migrations/index.js';
import { DISCOVERY_CHANNEL } from '../../discovery-crawler/src/sessions/sessions.repository.js';
import { startSite, type Site } from '../../../tests/fixtures/site/server.js';
import { DiscoveryClient } from '../src/clients/discovery.client.js';
import { InternalClient } from '@assay/internal-client';
import { RunnerClient } from '../src/clients/runner.client.js';
import type { AnalysisDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { subscribeToEvents } from '../src/intake/consumer.js';
import { LlmClient } from '../src/llm/llm.client.js';
import { AnalysisWorker } from '../src/worker/worker.js';
import { DEFAULT_EGRESS, EgressPolicy } from '@assay/egress';

const LOOPBACK_EGRESS = new EgressPolicy({ ...DEFAULT_EGRESS, allowLoopback: true });

// enable_ai_analysis end to end: the real discovery-crawler crawls the fixture
// site, its `discovery.session.completed` travels the pg bus, the analysis
// worker enriches the session and stores the enrichment with it. The model is
// a local fake OpenAI-compatible server: an edge we do not own.
jest.setTimeout(240_000);
const logger = createSilentLogger();

interface FakeLlm {
  url: string;
  requests: any[];
  /** What the next answers are: a JSON object the "model" writes, or an HTTP status to fail with. */
  answer: (req: any) => Record<string, unknown> | number;
  close(): Promise<void>;
}

async function startFakeLlm(): Promise<FakeLlm> {
  const fake: FakeLlm = { url: '', requests: [], answer: () => 500, close: async () => undefined };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const parsed = JSON.parse(body);
      fake.requests.push({ path: req.url, authorization: req.headers.authorization, body: parsed });
      const a = fake.answer(parsed);
      if (typeof a === 'number') {
        res.writeHead(a, { 'content-type': 'application/json' });
        return res.end('{"error":{"message":"overloaded"}}');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(a) }, finish_reason: 'stop' }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () => new Promise<void>((r) => server.close(() => r()));
  return fake;
}

let testDb: TestDatabase;
let site: Site;
let llm: FakeLlm;
let dcDb: Database<any>;
let anDb: Database<AnalysisDatabase>;
let tcServer: TestCaseServer;
let dcServer: TestServer;
let notifier: PgNotifier;
let crawler: Crawler;
let relay: OutboxRelay;
const buses: PgBus[] = [];
let subscriptions: Subscription[] = [];
let worker: AnalysisWorker | undefined;
let dc: (method: string, path: string, body?: unknown) => ReturnType<typeof call>;
let projectId: string;

function startWorker(withLlm: boolean): AnalysisWorker {
  const w = new AnalysisWorker({
    db: anDb.db,
    logger,
    runner: new RunnerClient(new InternalClient({ caller: 'analysis', urls: { 'execution-runner': 'http://127.0.0.1:9' }, internalTokenSecret: TEST_INTERNAL_SECRET })),
    rerunEnabled: false,
    maxRerunsPerExecution: 0,
    discovery: new DiscoveryClient(new InternalClient({ caller: 'analysis', urls: { 'discovery-crawler': dcServer.url }, internalTokenSecret: TEST_INTERNAL_SECRET })),
    ...(withLlm ? { llm: new LlmClient({ url: llm.url, model: 'fake-model', apiKey: 'sk-test-not-a-secret', timeoutMs: 5000 }, logger) } : {}),
    concurrency: 1,
    leaseSeconds: 30,
    workerId: `test-${randomBytes(3).toString('hex')}`,
    pollMs: 200,
  });
  w.start();
  return w;
}

beforeAll(async () => {
  testDb = await createTestDatabase();
  site = await startSite();
  llm = await startFakeLlm();
  tcServer = await startTestCaseServer(testDb.url, logger);
  dcDb = createDatabase<any>({ connectionString: testDb.url, schema: 'discovery' });
  await migrateToLatest(dcDb, discoveryMigrations);
  anDb = createDatabase<AnalysisDatabase>({ connectionString: testDb.url, schema: 'analysis' });
  await migrateToLatest(anDb, migrations);
  notifier = new PgNotifier(dcDb.pool, DISCOVERY_CHANNEL);
  await notifier.start();
  const bus = async () => {
    const b = new PgBus({ connectionString: testDb.url, logger, pollingIntervalSeconds: 0.5 });
    await b.start();
    buses.push(b);
    return b;
  };
  subscriptions = await subscribeToEvents({ bus: await bus(), db: anDb.db, onWork: () => worker?.kick() });
  relay = startOutboxRelay({ db: dcDb.db, listen: dcDb.pool, schema: 'discovery', bus: await bus(), logger, intervalMs: 200 });
  crawler = new Crawler({
    db: dcDb.db,
    schema: 'discovery',
    logger,
    browsers: new BrowserPool(process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH, logger, LOOPBACK_EGRESS),
    sessions: 1,
    pagesInParallel: 3,
    navigationTimeoutMs: 20_000,
    leaseSeconds: 30,
    workerId: 'test-crawler',
    pollMs: 100,
  });
  crawler.start();
  dcServer = await listen(
    buildDiscoveryApp({
      db: dcDb.db,
      schema: 'discovery',
      logger,
      testCases: new DiscoveryTestCaseClient(tcServer.url, TEST_INTERNAL_SECRET),
      notifier,
      egress: LOOPBACK_EGRESS,
      pagesInParallel: 3,
      internalTokenSecret: TEST_INTERNAL_SECRET,
    }),
  );
  const principal: Principal = { org_id: randomUUID(), sub: randomUUID(), kind: 'service_key', role: 'admin', scopes: [], plan: 'pro' };
  const headers = async () => ({ [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, principal) });
  dc = async (m, p, b) => call(dcServer.url, m, p, { headers: await headers(), ...(b !== undefined ? { body: b } : {}) });
  const project = await call(tcServer.url, 'POST', '/api/v1/projects', { headers: await headers(), body: { name: 'Market', base_url: site.url } });
  projectId = project.body.id;
});

afterAll(async () => {
  for (const s of subscriptions) await s.close().catch(() => undefined);
  await worker?.stop();
  await crawler?.stop();
  await relay?.stop();
  for (const b of buses) await b.stop().catch(() => undefined);
  await notifier?.stop();
  await dcServer?.close();
  await tcServer?.close();
  await site?.close();
  await llm?.close();
  await dcDb?.close();
  await anDb?.close();
  await testDb?.drop();
});

async function crawl(enable: boolean): Promise<{ id: string; results: any }> {
  const started = await dc('POST', '/api/v1/discovery/start', { project_id: projectId, target_url: site.url, max_pages: 12, request_delay_ms: 0, enable_ai_analysis: enable });
  expect(started.status).toBe(201);
  const id = started.body.session_id as string;
  await eventually(async () => (await dc('GET', `/api/v1/discovery/${id}/progress`)).body.status === 'completed', 120_000, 200);
  const results = enable
    ? await eventually(async () => {
        const r = await dc('GET', `/api/v1/discovery/${id}/results`);
        return r.body.ai_analysis?.status === 'completed' ? r.body : undefined;
      }, 60_000, 200)
    : (await dc('GET', `/api/v1/discovery/${id}/results`)).body;
  return { id, results };
}

describe('enable_ai_analysis', () => {
  it('names and describes each flow from page evidence and suggests tests with assertions, with no model', async () => {
    worker = startWorker(false);
    const { id, results } = await crawl(true);
    expect(results.flows.length).toBeGreaterThan(0);
    if (process.env.SHOW_ENRICHMENT) console.warn(JSON.stringify(results.ai_analysis, null, 1));
    expect(results.ai_analysis).toMatchObject({ status: 'completed', prose_source: 'deterministic', summary: expect.stringMatching(/pages? crawled from/), flows: expect.any(Array) });
    expect(results.ai_analysis.model).toBeUndefined();
    for (const f of results.flows) {
      expect(f).toMatchObject({ name: expect.any(String), description: expect.any(String) });
      const e = results.ai_analysis.flows.find((x: { flow_id: string }) => x.flow_id === f.flow_id);
      expect(e).toMatchObject({ name: f.name, description: f.description, suggested_tests: expect.any(Array), prose_source: 'deterministic' });
    }
    const auth = results.ai_analysis.flows.find((x: { flow_id: string }) => results.flows.find((f: { flow_id: string; type: string }) => f.flow_id === x.flow_id).type === 'authentication');
    expect(auth.name).toMatch(/^Sign in at \/login$/);
    expect(auth.description).toBe('Fills "Email" and "Password" on /login and submits the form.');
    expect(auth.suggested_tests.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining([expect.stringMatching(/valid credentials/), expect.stringMatching(/wrong password/)]));
    const withAssertions = results.ai_analysis.flows.flatMap((f: { suggested_tests: Array<{ assertions: unknown[] }> }) => f.suggested_tests.flatMap((t) => t.assertions));
    expect(withAssertions[0]).toMatchObject({ action: expect.stringMatching(/^assert_(text|visible)$/), selector: expect.any(String) });
    expect(llm.requests).toHaveLength(0);
    const row = await anDb.db.selectFrom('enrichments').selectAll().where('session_id', '=', id).executeTakeFirstOrThrow();
    expect(row.status).toBe('completed');

    // A session without enable_ai_analysis is left as it is.
    const plain = await crawl(false);
    expect(plain.results.ai_analysis).toBeUndefined();
    await eventually(async () => (await anDb.db.selectFrom('enrichments').select('status').where('session_id', '=', plain.id).executeTakeFirst())?.status === 'skipped', 30_000, 200);
    await worker.stop();
    worker = undefined;
  });

  it('uses an OpenAI-compatible endpoint for the prose only, and keeps the deterministic text when it fails', async () => {
    llm.answer = (req) => {
      const draft = JSON.parse(req.messages[1].content);
      return {
        summary: 'A small market with sign-in, search and a checkout.',
        flows: draft.flows.map((f: { flow_id: string; type: string }) => ({ flow_id: f.flow_id, name: `Model name for ${f.type}`, description: `Model description of the ${f.type} flow.`, test_names: ['Model test name'] })),
      };
    };
    worker = startWorker(true);
    const { results } = await crawl(true);
    expect(results.ai_analysis).toMatchObject({ status: 'completed', prose_source: 'llm', model: 'fake-model', summary: 'A small market with sign-in, search and a checkout.' });
    expect(llm.requests.length).toBeGreaterThan(0);
    expect(llm.requests[0]).toMatchObject({ path: '/v1/chat/completions', authorization: 'Bearer sk-test-not-a-secret', body: { model: 'fake-model', response_format: { type: 'json_object' } } });
    for (const f of results.flows) {
      expect(f.name).toBe(`Model name for ${f.type}`);
      // The crawler's facts are untouched: type, pages, steps, confidence.
      expect(f).toMatchObject({ flow_id: expect.any(String), pages: expect.any(Array), confidence: expect.any(Number) });
    }
    const first = results.ai_analysis.flows[0];
    expect(first.suggested_tests[0].name).toBe('Model test name');
    expect(first.suggested_tests[0].assertions).toEqual(expect.any(Array));

    // The model failing (500) leaves the deterministic prose.
    llm.answer = () => 503;
    const failing = await crawl(true);
    expect(failing.results.ai_analysis).toMatchObject({ status: 'completed', prose_source: 'deterministic' });
    expect(failing.results.flows.every((f: { name: string }) => !f.name.startsWith('Model name'))).toBe(true);
  });
});
