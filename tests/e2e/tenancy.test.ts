import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROUTES } from '@assay/contracts';
import { listen, type TestServer } from '@assay/testing';
import { startShop, type Shop } from '../fixtures/shop/server.js';
import { bearer, call, type Reply } from './support/http.js';
import { launchForFile } from './support/launcher.js';
import { createKey, login, provisionOrganization } from './support/organizations.js';

/**
 * The tenancy matrix: organization A owns one of everything; organization B
 * calls every route of the API with A's ids (path, query and body) and must
 * get exactly what it gets for an id that does not exist (a 404 for ids in
 * the path), while nothing of A's changes. Every route of the contract that
 * takes an id must appear here, so a new route cannot skip the matrix.
 */
jest.setTimeout(300_000);

const launched = launchForFile({ env: { RATE_LIMITS_ENABLED: 'false' } });
let shop: Shop;
let receiver: TestServer;

const A: Record<string, string> = {};
let keyA: string;
let keyB: string;
let apiKeyB: string;

const as = (credential: string) => (method: string, path: string, body?: unknown) => call(launched.assay.gatewayUrl, method, path, { headers: bearer(credential), ...(body !== undefined ? { body } : {}) });
let a: ReturnType<typeof as>;
let b: ReturnType<typeof as>;

async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The fixture Playwright project as a .tar.gz, as the CLI packs it. */
async function suiteArchive(): Promise<Buffer> {
  const dir = path.join(__dirname, '..', 'fixtures', 'suites', 'shop');
  const { stdout } = await promisify(execFile)('tar', ['czf', '-', '--exclude=node_modules', '-C', dir, '.'], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** POST /api/v1/suites as multipart, with a credential. */
async function uploadSuite(credential: string, projectId: string, name: string): Promise<Reply> {
  const form = new FormData();
  form.set('project_id', projectId);
  form.set('name', name);
  form.set('archive', new Blob([new Uint8Array(await suiteArchive())], { type: 'application/gzip' }), `${name}.tar.gz`);
  const res = await fetch(`${launched.assay.gatewayUrl}/api/v1/suites`, { method: 'POST', headers: bearer(credential), body: form });
  return { status: res.status, body: await res.json(), headers: res.headers } as Reply;
}

const created = (r: Reply, what: string) => {
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};

beforeAll(async () => {
  shop = await startShop();
  receiver = await listen((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  keyA = launched.assay.serviceKey;
  a = as(keyA);
  const orgB = await provisionOrganization(launched.assay, 'Tenant B', 'pro');
  keyB = (await createKey(launched.assay, await login(launched.assay, orgB.email, orgB.password), 'service')).key;
  apiKeyB = (await createKey(launched.assay, keyB, 'api')).key;
  b = as(keyB);

  A.project_id = created(await a('POST', '/api/v1/projects', { name: 'A shop', base_url: shop.url }), 'project').id;
  A.test_case_id = created(
    await a('POST', '/api/v1/test-cases', { project_id: A.project_id, name: 'A case', steps: [{ action: 'navigate', value: '/' }, { action: 'click', selector: '#nope' }] }),
    'test case',
  ).id;
  created(await a('PUT', `/api/v1/projects/${A.project_id}/variables/password`, { value: 'A-only-secret-value', secret: true }), 'secret');
  A.other_case_id = created(await a('POST', '/api/v1/test-cases', { project_id: A.project_id, name: 'A spare', steps: [{ action: 'navigate', value: '/' }] }), 'test case').id;
  A.test_plan_id = created(await a('POST', '/api/v1/test-plans', { project_id: A.project_id, name: 'A plan', test_case_ids: [A.test_case_id] }), 'plan').id;
  const run = created(await a('POST', '/api/v1/executions', { test_plan_id: A.test_plan_id, project_id: A.project_id }), 'execution');
  A.execution_id = run.id;
  A.artifact_id = String(run.results.test_results[0].screenshot).split('/api/v1/artifacts/')[1]!;
  const session = created(await a('POST', '/api/v1/discovery/start', { project_id: A.project_id, target_url: shop.url, max_pages: 3, request_delay_ms: 0 }), 'discovery');
  A.session_id = session.session_id;
  await until('the crawl', async () => ((await a('GET', `/api/v1/discovery/${A.session_id}/progress`)).body.status === 'completed' ? true : undefined));
  A.webhook_id = created(await a('POST', '/api/v1/webhooks', { name: 'A hook', url: `${receiver.url}/hook`, events: ['test.case.created'] }), 'webhook').id;
  A.delivery_id = await until('the test delivery', async () => (await a('GET', `/api/v1/webhooks/${A.webhook_id}/deliveries`)).body.data[0]?.id);
  await until('the failure analysis', async () => ((await a('GET', `/api/v1/executions/${A.execution_id}/failure-analysis`)).status === 200 ? true : undefined));
  A.issue_id = await until('the issue', async () => (await a('GET', `/api/v1/issues?project_id=${A.project_id}`)).body.data?.[0]?.id);
  A.schedule_id = created(await a('POST', `/api/v1/test-plans/${A.test_plan_id}/schedules`, { cron: '0 3 1 1 *', timezone: 'UTC', enabled: false }), 'schedule').id;
  // Its screenshot step stores a baseline of A's (the run passes).
  A.test_run_id = created(await a('POST', '/api/v1/test-runs', { project_id: A.project_id, steps: [{ action: 'navigate', value: '/' }, { action: 'assert_screenshot', selector: 'h1' }] }), 'test run').id;
  A.baseline_id = (await a('GET', `/api/v1/screenshot-baselines?project_id=${A.project_id}`)).body.data?.[0]?.id;
  A.report_id = created(await a('POST', '/api/v1/reports', { project_id: A.project_id, name: 'A report', kind: 'pass_rate' }), 'report').id;
  A.snapshot_id = created(await a('POST', `/api/v1/reports/${A.report_id}/snapshots`), 'snapshot').id;
  A.user_id = created(await a('POST', '/api/organizations/current/members', { email: `member-${Date.now()}@a.example.test`, role: 'member' }), 'member').user_id;
  A.service_key_id = created(await a('POST', '/api/service-keys', { name: 'A spare key', environment: 'dev' }), 'key').id;
  A.api_key_id = created(await a('POST', '/api/api-keys', { name: 'A api key' }), 'api key').id;
  A.suite_id = created(await uploadSuite(keyA, A.project_id!, 'A suite'), 'suite').id;
  // Last, so it is still open (RECORDER_IDLE_SECONDS) when the matrix runs.
  A.recording_id = created(await a('POST', '/api/v1/recordings', { project_id: A.project_id }), 'recording').id;
  expect(Object.values(A).every(Boolean)).toBe(true);
});
afterAll(async () => {
  await shop?.close();
  await receiver?.close();
});

/** Everything A can see of its own resources, without fields that change by being read. */
async function snapshotOfA(): Promise<unknown> {
  const get = async (p: string) => {
    const r = await a('GET', p);
    return [r.status, r.body];
  };
  const artifact = await fetch(`${launched.assay.gatewayUrl}/api/v1/artifacts/${A.artifact_id}`, { headers: bearer(keyA) });
  const keys = (r: Reply) => (r.body.keys ?? r.body.data ?? []).map(({ last_used: _l, usage_count: _u, ...k }: Record<string, unknown>) => k);
  return {
    project: await get(`/api/v1/projects/${A.project_id}`),
    variables: await get(`/api/v1/projects/${A.project_id}/variables`),
    cases: await get(`/api/v1/test-cases?project_id=${A.project_id}&limit=500`),
    case: await get(`/api/v1/test-cases/${A.test_case_id}`),
    plan: await get(`/api/v1/test-plans/${A.test_plan_id}`),
    plans: await get(`/api/v1/test-plans?project_id=${A.project_id}`),
    execution: await get(`/api/v1/executions/${A.execution_id}`),
    executions: await get(`/api/v1/executions?project_id=${A.project_id}`),
    results: await get(`/api/v1/executions/${A.execution_id}/results`),
    artifact: [artifact.status, createHash('sha256').update(Buffer.from(await artifact.arrayBuffer())).digest('hex')],
    session: await get(`/api/v1/discovery/${A.session_id}/results`),
    sessions: await get(`/api/v1/discovery?project_id=${A.project_id}`),
    analysis: await get(`/api/v1/executions/${A.execution_id}/failure-analysis`),
    issue: await get(`/api/v1/issues/${A.issue_id}`),
    flakiness: await get(`/api/v1/test-cases/${A.test_case_id}/flakiness`),
    schedules: await get(`/api/v1/test-plans/${A.test_plan_id}/schedules`),
    testRun: await get(`/api/v1/test-runs/${A.test_run_id}`),
    testRuns: await get(`/api/v1/test-runs?project_id=${A.project_id}`),
    baselines: await get(`/api/v1/screenshot-baselines?project_id=${A.project_id}`),
    recording: await get(`/api/v1/recordings/${A.recording_id}`),
    report: await get(`/api/v1/reports/${A.report_id}`),
    snapshots: await get(`/api/v1/reports/${A.report_id}/snapshots`),
    snapshot: await get(`/api/v1/reports/${A.report_id}/snapshots/${A.snapshot_id}`),
    members: await get('/api/organizations/current/members'),
    webhook: await get(`/api/v1/webhooks/${A.webhook_id}`),
    deliveries: await get(`/api/v1/webhooks/${A.webhook_id}/deliveries`),
    serviceKeys: keys(await a('GET', '/api/service-keys')),
    apiKeys: keys(await a('GET', '/api/api-keys')),
    suites: await get(`/api/v1/suites?project_id=${A.project_id}`),
    suite: await get(`/api/v1/suites/${A.suite_id}`),
    suiteVersions: await get(`/api/v1/suites/${A.suite_id}/versions`),
  };
}

/** The reply with the ids the call used written as their names, and without its request id. */
const normalised = (r: Reply, ids: Record<string, string>) => {
  const { request_id: _r, ...body } = (r.body ?? {}) as Record<string, unknown>;
  let text = JSON.stringify({ status: r.status, body });
  for (const [name, id] of Object.entries(ids)) text = text.split(id).join(`<${name}>`);
  return JSON.parse(text) as { status: number; body: Record<string, unknown> };
};

/** One matrix row: a route, and how to call it with a set of ids. */
interface Row {
  route: string;
  call(ids: Record<string, string>): Promise<Reply>;
}

const NONE = (): Record<string, string> => Object.fromEntries(Object.keys(A).map((k) => [k, randomUUID()]));

function rows(): Row[] {
  const r = (route: string, fn: (ids: Record<string, string>) => Promise<Reply>): Row => ({ route, call: fn });
  const list: Row[] = [
    r('GET /api/v1/projects/{project_id}', (i) => b('GET', `/api/v1/projects/${i.project_id}`)),
    r('PUT /api/v1/projects/{project_id}', (i) => b('PUT', `/api/v1/projects/${i.project_id}`, { name: 'Hijacked' })),
    r('DELETE /api/v1/projects/{project_id}', (i) => b('DELETE', `/api/v1/projects/${i.project_id}?force=true`)),
    r('GET /api/v1/projects/{project_id}/variables', (i) => b('GET', `/api/v1/projects/${i.project_id}/variables`)),
    r('PUT /api/v1/projects/{project_id}/variables/{name}', (i) => b('PUT', `/api/v1/projects/${i.project_id}/variables/password`, { value: 'planted-value', secret: true })),
    r('DELETE /api/v1/projects/{project_id}/variables/{name}', (i) => b('DELETE', `/api/v1/projects/${i.project_id}/variables/password`)),
    r('GET /api/v1/test-cases', (i) => b('GET', `/api/v1/test-cases?project_id=${i.project_id}&test_plan_id=${i.test_plan_id}`)),
    r('POST /api/v1/test-cases', (i) => b('POST', '/api/v1/test-cases', { project_id: i.project_id, name: 'Planted', steps: [{ action: 'navigate', value: '/' }] })),
    r('GET /api/v1/test-cases/{test_case_id}', (i) => b('GET', `/api/v1/test-cases/${i.test_case_id}`)),
    r('PUT /api/v1/test-cases/{test_case_id}', (i) => b('PUT', `/api/v1/test-cases/${i.test_case_id}`, { name: 'Hijacked' })),
    r('DELETE /api/v1/test-cases/{test_case_id}', (i) => b('DELETE', `/api/v1/test-cases/${i.test_case_id}?force_delete=true`)),
    r('POST /api/v1/test-cases/{test_case_id}/restore', (i) => b('POST', `/api/v1/test-cases/${i.test_case_id}/restore`)),
    r('GET /api/v1/test-cases/{test_case_id}/export', (i) => b('GET', `/api/v1/test-cases/${i.test_case_id}/export`)),
    r('POST /api/v1/test-cases/bulk-delete', (i) => b('POST', '/api/v1/test-cases/bulk-delete', { test_case_ids: [i.test_case_id, i.other_case_id], soft_delete: false })),
    r('POST /api/v1/test-cases/import', async (i) => {
      const form = new FormData();
      form.set('project_id', i.project_id!);
      form.set('file', new Blob(['[{"name":"Planted","steps":[{"action":"navigate","value":"/"}]}]'], { type: 'application/json' }), 'cases.json');
      const res = await fetch(`${launched.assay.gatewayUrl}/api/v1/test-cases/import`, { method: 'POST', headers: bearer(keyB), body: form });
      return { status: res.status, body: await res.json(), headers: res.headers } as Reply;
    }),
    r('POST /api/v1/test-plans', (i) => b('POST', '/api/v1/test-plans', { project_id: i.project_id, name: 'Planted', test_case_ids: [i.test_case_id] })),
    r('GET /api/v1/test-plans', (i) => b('GET', `/api/v1/test-plans?project_id=${i.project_id}`)),
    r('GET /api/v1/test-plans/{test_plan_id}', (i) => b('GET', `/api/v1/test-plans/${i.test_plan_id}`)),
    r('PUT /api/v1/test-plans/{test_plan_id}', (i) => b('PUT', `/api/v1/test-plans/${i.test_plan_id}`, { name: 'Hijacked' })),
    r('GET /api/v1/test-plans/{test_plan_id}/export', (i) => b('GET', `/api/v1/test-plans/${i.test_plan_id}/export?format=json`)),
    r('DELETE /api/v1/test-plans/{test_plan_id}', (i) => b('DELETE', `/api/v1/test-plans/${i.test_plan_id}`)),
    r('POST /api/v1/test-plans/{test_plan_id}/test-cases', (i) => b('POST', `/api/v1/test-plans/${i.test_plan_id}/test-cases`, { test_case_id: i.other_case_id })),
    r('DELETE /api/v1/test-plans/{test_plan_id}/test-cases/{test_case_id}', (i) => b('DELETE', `/api/v1/test-plans/${i.test_plan_id}/test-cases/${i.test_case_id}`)),
    r('POST /api/v1/executions', (i) => b('POST', '/api/v1/executions', { test_plan_id: i.test_plan_id, project_id: i.project_id })),
    r('POST /api/v1/executions/async', (i) => b('POST', '/api/v1/executions/async', { test_plan_id: i.test_plan_id, project_id: i.project_id })),
    r('GET /api/v1/executions', (i) => b('GET', `/api/v1/executions?project_id=${i.project_id}`)),
    r('GET /api/v1/executions/{execution_id}', (i) => b('GET', `/api/v1/executions/${i.execution_id}`)),
    r('GET /api/v1/executions/{execution_id}/status', (i) => b('GET', `/api/v1/executions/${i.execution_id}/status`)),
    r('GET /api/v1/executions/{execution_id}/results', (i) => b('GET', `/api/v1/executions/${i.execution_id}/results`)),
    r('GET /api/v1/executions/{execution_id}/stream', (i) => b('GET', `/api/v1/executions/${i.execution_id}/stream`)),
    r('DELETE /api/v1/executions/{execution_id}', (i) => b('DELETE', `/api/v1/executions/${i.execution_id}`)),
    r('POST /api/v1/executions/{execution_id}/rerun', (i) => b('POST', `/api/v1/executions/${i.execution_id}/rerun`, {})),
    r('GET /api/v1/executions/{execution_id}/failure-analysis', (i) => b('GET', `/api/v1/executions/${i.execution_id}/failure-analysis`)),
    r('GET /api/executions/{execution_id}/failure-analysis', (i) => b('GET', `/api/executions/${i.execution_id}/failure-analysis`)),
    r('POST /api/v1/executions/{execution_id}/failure-analysis/{test_id}/apply', (i) => b('POST', `/api/v1/executions/${i.execution_id}/failure-analysis/${i.test_case_id}/apply`)),
    r('POST /api/v1/executions/{execution_id}/failure-analysis/{test_id}/reject', (i) => b('POST', `/api/v1/executions/${i.execution_id}/failure-analysis/${i.test_case_id}/reject`, {})),
    r('GET /api/v1/issues', (i) => b('GET', `/api/v1/issues?project_id=${i.project_id}&test_case_id=${i.test_case_id}`)),
    r('GET /api/v1/issues/{issue_id}', (i) => b('GET', `/api/v1/issues/${i.issue_id}`)),
    r('PATCH /api/v1/issues/{issue_id}', (i) => b('PATCH', `/api/v1/issues/${i.issue_id}`, { status: 'ignored' })),
    r('GET /api/v1/test-cases/{test_case_id}/flakiness', (i) => b('GET', `/api/v1/test-cases/${i.test_case_id}/flakiness`)),
    r('GET /api/v1/artifacts/{artifact_id}', (i) => b('GET', `/api/v1/artifacts/${i.artifact_id}`)),
    r('POST /api/v1/discovery/start', (i) => b('POST', '/api/v1/discovery/start', { project_id: i.project_id, target_url: shop.url })),
    r('GET /api/v1/discovery', (i) => b('GET', `/api/v1/discovery?project_id=${i.project_id}`)),
    r('GET /api/v1/discovery/{session_id}/progress', (i) => b('GET', `/api/v1/discovery/${i.session_id}/progress`)),
    r('GET /api/v1/discovery/{session_id}/results', (i) => b('GET', `/api/v1/discovery/${i.session_id}/results`)),
    r('POST /api/v1/discovery/{session_id}/pause', (i) => b('POST', `/api/v1/discovery/${i.session_id}/pause`)),
    r('POST /api/v1/discovery/{session_id}/resume', (i) => b('POST', `/api/v1/discovery/${i.session_id}/resume`)),
    r('DELETE /api/v1/discovery/{session_id}', (i) => b('DELETE', `/api/v1/discovery/${i.session_id}`)),
    r('GET /api/v1/discovery/{session_id}/stream', (i) => b('GET', `/api/v1/discovery/${i.session_id}/stream`)),
    r('POST /api/v1/discovery/{session_id}/generate-test-cases', (i) => b('POST', `/api/v1/discovery/${i.session_id}/generate-test-cases`, {})),
    r('GET /api/v1/webhooks/{webhook_id}', (i) => b('GET', `/api/v1/webhooks/${i.webhook_id}`)),
    r('PATCH /api/v1/webhooks/{webhook_id}', (i) => b('PATCH', `/api/v1/webhooks/${i.webhook_id}`, { name: 'Hijacked' })),
    r('DELETE /api/v1/webhooks/{webhook_id}', (i) => b('DELETE', `/api/v1/webhooks/${i.webhook_id}`)),
    r('POST /api/v1/webhooks/{webhook_id}/test', (i) => b('POST', `/api/v1/webhooks/${i.webhook_id}/test`, {})),
    r('POST /api/v1/webhooks/{webhook_id}/rotate-secret', (i) => b('POST', `/api/v1/webhooks/${i.webhook_id}/rotate-secret`, {})),
    r('GET /api/v1/webhooks/{webhook_id}/deliveries', (i) => b('GET', `/api/v1/webhooks/${i.webhook_id}/deliveries`)),
    r('POST /api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/resend', (i) => b('POST', `/api/v1/webhooks/${i.webhook_id}/deliveries/${i.delivery_id}/resend`)),
    r('POST /api/v1/test-plans/{test_plan_id}/schedules', (i) => b('POST', `/api/v1/test-plans/${i.test_plan_id}/schedules`, { cron: '0 4 * * *', timezone: 'UTC', enabled: true })),
    r('GET /api/v1/test-plans/{test_plan_id}/schedules', (i) => b('GET', `/api/v1/test-plans/${i.test_plan_id}/schedules`)),
    r('GET /api/v1/test-plans/{test_plan_id}/schedules/{schedule_id}', (i) => b('GET', `/api/v1/test-plans/${i.test_plan_id}/schedules/${i.schedule_id}`)),
    r('PATCH /api/v1/test-plans/{test_plan_id}/schedules/{schedule_id}', (i) => b('PATCH', `/api/v1/test-plans/${i.test_plan_id}/schedules/${i.schedule_id}`, { enabled: true })),
    r('DELETE /api/v1/test-plans/{test_plan_id}/schedules/{schedule_id}', (i) => b('DELETE', `/api/v1/test-plans/${i.test_plan_id}/schedules/${i.schedule_id}`)),
    r('PATCH /api/organizations/current/members/{user_id}', (i) => b('PATCH', `/api/organizations/current/members/${i.user_id}`, { role: 'admin' })),
    r('DELETE /api/organizations/current/members/{user_id}', (i) => b('DELETE', `/api/organizations/current/members/${i.user_id}`)),
    r('DELETE /api/service-keys/{key_id}', (i) => b('DELETE', `/api/service-keys/${i.service_key_id}`)),
    r('DELETE /api/api-keys/{key_id}', (i) => b('DELETE', `/api/api-keys/${i.api_key_id}`)),
    r('POST /api/v1/test-runs', (i) => b('POST', '/api/v1/test-runs', { project_id: i.project_id, steps: [{ action: 'navigate', value: '/' }] })),
    // A run of one stored case: another organization's case is unknown.
    r('POST /api/v1/test-runs', (i) => b('POST', '/api/v1/test-runs', { project_id: i.project_id, test_case_id: i.test_case_id, wait_for_completion: false })),
    r('GET /api/v1/test-runs', (i) => b('GET', `/api/v1/test-runs?project_id=${i.project_id}`)),
    r('GET /api/v1/test-runs/{test_run_id}', (i) => b('GET', `/api/v1/test-runs/${i.test_run_id}`)),
    r('DELETE /api/v1/test-runs/{test_run_id}', (i) => b('DELETE', `/api/v1/test-runs/${i.test_run_id}`)),
    r('GET /api/v1/test-runs/{test_run_id}/stream', (i) => b('GET', `/api/v1/test-runs/${i.test_run_id}/stream`)),
    r('GET /api/v1/screenshot-baselines', (i) => b('GET', `/api/v1/screenshot-baselines?project_id=${i.project_id}&test_case_id=${i.test_case_id}`)),
    r('GET /api/v1/screenshot-baselines', (i) => b('GET', `/api/v1/screenshot-baselines?test_case_id=${i.test_run_id}`)),
    r('POST /api/v1/screenshot-baselines', (i) => b('POST', '/api/v1/screenshot-baselines', { execution_id: i.test_run_id, test_id: i.test_case_id, step_id: i.test_case_id })),
    r('GET /api/v1/screenshot-baselines/{baseline_id}', (i) => b('GET', `/api/v1/screenshot-baselines/${i.baseline_id}`)),
    r('DELETE /api/v1/screenshot-baselines/{baseline_id}', (i) => b('DELETE', `/api/v1/screenshot-baselines/${i.baseline_id}`)),
    r('POST /api/v1/recordings', (i) => b('POST', '/api/v1/recordings', { project_id: i.project_id })),
    r('GET /api/v1/recordings/{recording_id}', (i) => b('GET', `/api/v1/recordings/${i.recording_id}`)),
    r('DELETE /api/v1/recordings/{recording_id}', (i) => b('DELETE', `/api/v1/recordings/${i.recording_id}`)),
    r('POST /api/v1/recordings/{recording_id}/input', (i) => b('POST', `/api/v1/recordings/${i.recording_id}/input`, { type: 'reload' })),
    r('GET /api/v1/recordings/{recording_id}/stream', (i) => b('GET', `/api/v1/recordings/${i.recording_id}/stream`)),
    r('POST /api/v1/test-runs/{test_run_id}/save', (i) => b('POST', `/api/v1/test-runs/${i.test_run_id}/save`, { name: 'Planted', test_plan_id: i.test_plan_id })),
    r('POST /api/v1/reports', (i) => b('POST', '/api/v1/reports', { project_id: i.project_id, name: 'Planted', kind: 'pass_rate' })),
    r('GET /api/v1/reports', (i) => b('GET', `/api/v1/reports?project_id=${i.project_id}`)),
    r('GET /api/v1/reports/dashboard', (i) => b('GET', `/api/v1/reports/dashboard?project_id=${i.project_id}`)),
    r('GET /api/v1/reports/{report_id}', (i) => b('GET', `/api/v1/reports/${i.report_id}`)),
    r('PUT /api/v1/reports/{report_id}', (i) => b('PUT', `/api/v1/reports/${i.report_id}`, { name: 'Hijacked' })),
    r('DELETE /api/v1/reports/{report_id}', (i) => b('DELETE', `/api/v1/reports/${i.report_id}`)),
    r('POST /api/v1/reports/{report_id}/snapshots', (i) => b('POST', `/api/v1/reports/${i.report_id}/snapshots`)),
    r('GET /api/v1/reports/{report_id}/snapshots', (i) => b('GET', `/api/v1/reports/${i.report_id}/snapshots`)),
    r('GET /api/v1/reports/{report_id}/snapshots/{snapshot_id}', (i) => b('GET', `/api/v1/reports/${i.report_id}/snapshots/${i.snapshot_id}?format=html`)),
    r('POST /api/v1/suites', (i) => uploadSuite(keyB, i.project_id!, 'A suite')),
    r('GET /api/v1/suites', (i) => b('GET', `/api/v1/suites?project_id=${i.project_id}`)),
    r('GET /api/v1/suites/{suite_id}', (i) => b('GET', `/api/v1/suites/${i.suite_id}`)),
    r('GET /api/v1/suites/{suite_id}/versions', (i) => b('GET', `/api/v1/suites/${i.suite_id}/versions`)),
    r('GET /api/v1/suites/{suite_id}/versions/{version}', (i) => b('GET', `/api/v1/suites/${i.suite_id}/versions/1`)),
    // A run of a suite: another organization's suite is unknown.
    r('POST /api/v1/executions', (i) => b('POST', '/api/v1/executions', { project_id: i.project_id, suite_id: i.suite_id })),
    // The unversioned and P2 forms the gateway serves as aliases.
    r('GET /api/test-cases/{test_case_id}', (i) => b('GET', `/api/test-cases/${i.test_case_id}`)),
    r('GET /api/executions/{execution_id}', (i) => b('GET', `/api/executions/${i.execution_id}`)),
    r('GET /v1/projects/{project_id}', (i) => call(launched.assay.gatewayUrl, 'GET', `/v1/projects/${i.project_id}`, { headers: { 'x-api-key': apiKeyB } })),
  ];
  return list;
}

/** Routes of the contract that take an organization's ids (in the path, or a project/plan/case in the query or body). */
function routesTakingIds(): string[] {
  const takesIds = (path: string, body?: string, query: string[] = []) =>
    path.includes('{') || ['project_id', 'test_plan_id'].some((q) => query.includes(q)) || /^(TestCaseCreateRequest|TestPlanCreateRequest|BulkDeleteRequest|ExecutionCreateRequest|ExecutionAsyncRequest|DiscoveryStartRequest|TestRunCreateRequest|ReportCreateRequest|RecordingCreateRequest)$/.test(body ?? '');
  return ROUTES.filter((r) => r.auth !== false && takesIds(r.path, r.body, (r.params ?? []).filter((p) => p.in === 'query').map((p) => p.name)))
    .map((r) => `${r.method} ${r.path}`)
    .concat(['POST /api/v1/test-cases/import', 'POST /api/v1/suites']);
}

describe('the tenancy matrix', () => {
  it('covers every route of the contract that takes an id', () => {
    const covered = new Set(rows().map((r) => r.route));
    expect(routesTakingIds().filter((r) => !covered.has(r))).toEqual([]);
  });

  it('answers B exactly as for ids that do not exist (404 for ids in the path), and changes nothing of A’s', async () => {
    const before = await snapshotOfA();
    const mismatches: unknown[] = [];
    for (const row of rows()) {
      const none = NONE();
      const foreign = normalised(await row.call(A), A);
      const missing = normalised(await row.call(none), none);
      // A bulk delete answers per id; every one of them must be not_found.
      const refused = row.route.endsWith('bulk-delete') ? (foreign.body.results as Array<{ status: string }>).every((x) => x.status === 'not_found') && foreign.body.deleted === 0 : foreign.status === 404;
      if (JSON.stringify(foreign) !== JSON.stringify(missing) || !refused) mismatches.push({ route: row.route, foreign, missing });
    }
    expect(mismatches).toEqual([]);
    expect(await snapshotOfA()).toEqual(before);
    // B made nothing with A's ids either.
    const bProjects = await b('GET', '/api/v1/projects');
    expect(bProjects.body.data).toEqual([]);
  });
});
