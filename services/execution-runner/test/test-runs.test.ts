import { eventually } from '@assay/testing';
import { startRunnerHarness, type RunnerHarness } from './harness.js';

jest.setTimeout(120_000);

let h: RunnerHarness;
beforeAll(async () => {
  // Generous step timeout: the machine is shared and a slow page must not fail a passing step.
  h = await startRunnerHarness({ stepTimeoutMs: 6000 });
});
afterAll(() => h.close());
beforeEach(() => h.resetShop());

const cart = [
  { action: 'navigate', value: '/products/1' },
  { action: 'click', selector: '#add-to-cart', description: 'add red shoes' },
  { action: 'assert_text', selector: '#cart-count', value: '1' },
  { action: 'navigate', value: '/cart' },
  { action: 'assert_text', selector: '#total', value: 'Total: $20' },
];

async function project(t: ReturnType<RunnerHarness['tenant']>, extra: Record<string, unknown> = {}) {
  const p = await t.tc('POST', '/api/v1/projects', { name: 'Shop', base_url: h.shopUrl, ...extra });
  expect(p.status).toBe(201);
  return p.body.id as string;
}

describe('exploratory test runs', () => {
  it('runs steps once like an execution: results, fingerprints and the execution events, and lists it apart from plan runs', async () => {
    const t = h.tenant();
    const projectId = await project(t);
    const r = await t.ex('POST', '/api/v1/test-runs', { project_id: projectId, name: 'Try the cart', steps: cart });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ project_id: projectId, name: 'Try the cart', status: 'completed', passed_tests: 1, failed_tests: 0, total_tests: 1, saved_test_case_id: null, discovery_session_id: null });
    expect(r.body.stream_url).toBe(`/api/v1/test-runs/${r.body.id}/stream`);
    const [test] = r.body.results.test_results;
    expect(test).toMatchObject({ name: 'Try the cart', status: 'passed' });
    expect(test.steps.map((s: { status: string }) => s.status)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed']);
    expect(test.steps[1].name).toBe('add red shoes');

    // The same results as the execution resource of the same id.
    const asExecution = await t.ex('GET', `/api/v1/executions/${r.body.id}/results`);
    expect(asExecution.body.test_results).toEqual(r.body.results.test_results);
    const again = await t.ex('GET', `/api/v1/test-runs/${r.body.id}`);
    expect(again.body.results).toEqual(r.body.results);

    // Events as an execution sends them (the analysis consumes these).
    const completed = await eventually(async () => (await h.events('test.plan.completed')).find((e) => e.data.execution_id === r.body.id), 10_000);
    expect(completed.data.test_plan).toMatchObject({ id: r.body.id, name: 'Try the cart', project_id: projectId, summary: { total: 1, passed: 1, failed: 0, skipped: 0, pass_rate: 100 } });

    const list = await t.ex('GET', `/api/v1/test-runs?project_id=${projectId}`);
    expect(list.body).toEqual({ data: [expect.objectContaining({ id: r.body.id })], pagination: { limit: 20, offset: 0, total: 1 } });
    expect((await t.ex('GET', `/api/v1/executions?project_id=${projectId}`)).body.pagination.total).toBe(0);
  });

  it('fails at the failing step with its error, a screenshot and skipped steps, and emits the failed event with diagnostics', async () => {
    const t = h.tenant();
    const projectId = await project(t);
    const steps = [...cart.slice(0, 4), { action: 'assert_text', selector: '#total', value: 'Total: $25' }, { action: 'click', selector: '#checkout' }];
    const r = await t.ex('POST', '/api/v1/test-runs', { project_id: projectId, steps });
    expect(r.body).toMatchObject({ name: 'Exploratory run', status: 'completed', passed_tests: 0, failed_tests: 1 });
    const [test] = r.body.results.test_results;
    expect(test.error).toBe('Expected text "Total: $25" but found "Total: $20"');
    expect(test.steps.map((s: { status: string }) => s.status)).toEqual(['passed', 'passed', 'passed', 'passed', 'failed', 'skipped']);
    expect(test.screenshot).toMatch(/^http:\/\/assay\.test\/api\/v1\/artifacts\//);
    const failed = await eventually(async () => (await h.events('test.execution.failed')).find((e) => e.data.execution.id === r.body.id), 10_000);
    expect(failed.data.execution).toMatchObject({ test_case_id: test.test_id, error: { step: 5, type: 'assertion_failed' } });
    expect(failed.data.diagnostics.fingerprints.find((f: { selector: string }) => f.selector === '#add-to-cart').fingerprint).toMatchObject({ id: 'add-to-cart' });
  });

  it('refuses bad steps with the test-case validation, and unknown or foreign projects and runs as unknown', async () => {
    const t = h.tenant();
    const projectId = await project(t);
    const bad = await t.ex('POST', '/api/v1/test-runs', { project_id: projectId, steps: [{ action: 'click' }, { action: 'teleport' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([
      { field: 'steps[0].selector', message: 'is required for action "click"' },
      { field: 'steps[1].action', message: expect.stringMatching(/^must be one of navigate, click/) },
    ]);
    expect((await t.ex('POST', '/api/v1/test-runs', { project_id: projectId })).status).toBe(400);
    expect((await t.ex('POST', '/api/v1/test-runs', { project_id: projectId, steps: [] })).body.details).toEqual([{ field: 'steps', message: 'must contain at least 1 step' }]);
    expect((await t.ex('POST', '/api/v1/test-runs', { project_id: projectId, steps: cart, environment: 'nope' })).body.details).toEqual([{ field: 'environment', message: 'the project defines no environments' }]);
    // A discovery run without a discovery service configured is not built here: 501, nothing stored.
    const noDiscovery = await t.ex('POST', '/api/v1/test-runs', { project_id: projectId, discovery_session_id: '00000000-0000-4000-8000-000000000000' });
    expect(noDiscovery.status).toBe(501);

    const other = h.tenant();
    expect((await other.ex('POST', '/api/v1/test-runs', { project_id: projectId, steps: cart })).status).toBe(404);
    expect((await other.ex('GET', `/api/v1/test-runs?project_id=${projectId}`)).status).toBe(404);
    const run = await t.ex('POST', '/api/v1/test-runs', { project_id: projectId, steps: cart.slice(0, 1) });
    for (const [m, p, b] of [['GET', ''], ['DELETE', ''], ['POST', '/save', { name: 'x' }], ['GET', '/stream']] as const) {
      const foreign = await other.ex(m, `/api/v1/test-runs/${run.body.id}${p}`, b);
      expect([foreign.status, foreign.body.error]).toEqual([404, 'not_found']);
    }
    expect((await t.ex('GET', '/api/v1/test-runs/not-a-uuid')).status).toBe(404);
    expect((await t.ex('GET', `/api/v1/test-runs?project_id=${projectId}`)).body.pagination.total).toBe(1);
  });

  it('saves a run as a test case with the run’s ids, appends it to a plan where it runs, and refuses a second save', async () => {
    const t = h.tenant();
    const projectId = await project(t);
    const plan = await t.tc('POST', '/api/v1/test-plans', { project_id: projectId, name: 'Regression', test_case_ids: [] });
    // Steps that keep no state in the shop, so the saved case passes again in the plan.
    const steps = [
      { action: 'navigate', value: '/login' },
      { action: 'fill', selector: '#email', value: 'user@shop.test' },
      { action: 'assert_value', selector: '#email', value: 'user@shop.test' },
    ];
    const r = await t.ex('POST', '/api/v1/test-runs', { project_id: projectId, steps });
    expect(r.body).toMatchObject({ status: 'completed', passed_tests: 1 });
    const [test] = r.body.results.test_results;

    const saved = await t.ex('POST', `/api/v1/test-runs/${r.body.id}/save`, { name: 'Cart total', tags: ['cart'], test_plan_id: plan.body.id });
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({ test_run_id: r.body.id, test_plan_id: plan.body.id, test_case: { id: test.test_id, name: 'Cart total', tags: ['cart'], project_id: projectId } });
    expect(saved.body.test_case.steps.map((s: { step_id: string }) => s.step_id)).toEqual(test.steps.map((s: { step_id: string }) => s.step_id));
    expect((await t.ex('GET', `/api/v1/test-runs/${r.body.id}`)).body.saved_test_case_id).toBe(test.test_id);
    const again = await t.ex('POST', `/api/v1/test-runs/${r.body.id}/save`, { name: 'Twice' });
    expect([again.status, again.body.error]).toEqual([409, 'conflict']);

    // The run's fingerprints are keyed to the saved case and its steps: the analysis's history of it.
    const fingerprints = await h.database.db.selectFrom('test_results').select(['test_case_id', 'diagnostics']).where('execution_id', '=', r.body.id).executeTakeFirstOrThrow();
    expect(fingerprints.test_case_id).toBe(saved.body.test_case.id);
    const stepIds = new Set(saved.body.test_case.steps.map((s: { step_id: string }) => s.step_id));
    const fp = (fingerprints.diagnostics as { fingerprints: Array<{ step_id: string }> }).fingerprints;
    expect(fp.length).toBeGreaterThan(0);
    expect(fp.every((f) => stepIds.has(f.step_id))).toBe(true);

    // The saved case runs in the plan like any other.
    const execution = await t.ex('POST', '/api/v1/executions', { test_plan_id: plan.body.id, project_id: projectId });
    expect(execution.body).toMatchObject({ status: 'completed', passed_tests: 1, total_tests: 1 });
    expect(execution.body.results.test_results[0]).toMatchObject({ test_id: test.test_id, name: 'Cart total', status: 'passed' });
  });

  it('refuses to save a run still going, cancels it, and answers 404 for a plan execution’s id', async () => {
    const t = h.tenant();
    const projectId = await project(t);
    const queued = await t.ex('POST', '/api/v1/test-runs', { project_id: projectId, wait_for_completion: false, steps: [{ action: 'navigate', value: '/delayed' }, { action: 'wait', selector: '#never', timeout: 20_000 }] });
    expect(queued.status).toBe(202);
    expect(queued.headers.get('location')).toBe(`/api/v1/test-runs/${queued.body.id}`);
    expect(['queued', 'pending', 'running']).toContain(queued.body.status);
    const early = await t.ex('POST', `/api/v1/test-runs/${queued.body.id}/save`, { name: 'Too early' });
    expect(early.status).toBe(409);
    const cancelled = await t.ex('DELETE', `/api/v1/test-runs/${queued.body.id}`);
    expect(cancelled.body).toMatchObject({ id: queued.body.id, status: 'cancelled' });
    const after = await eventually(async () => {
      const s = await t.ex('GET', `/api/v1/test-runs/${queued.body.id}`);
      return s.body.status === 'cancelled' ? s.body : undefined;
    }, 10_000);
    expect(after.results.summary.total).toBe(1);
    expect((await t.ex('DELETE', `/api/v1/test-runs/${queued.body.id}`)).status).toBe(409);

    const { planId } = await t.plan({ one: cart.slice(0, 1) });
    const plain = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId });
    expect((await t.ex('GET', `/api/v1/test-runs/${plain.body.id}`)).status).toBe(404);
  });
});
