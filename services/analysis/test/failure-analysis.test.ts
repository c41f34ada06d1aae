import { randomUUID } from 'node:crypto';
import { freePortForTests } from '@assay/testing';
import { RELOCATION_MODEL, useRelocationModel } from '../src/relocation/index.js';
import { startAnalysisHarness, type AnalysisHarness, type Tenant } from './harness.js';

// A plan run against the fixture app before and after a redesign, through the
// real runner, bus and analysis worker (Chromium for the runs, the snapshot
// checks and the verification re-runs).
jest.setTimeout(300_000);

let h: AnalysisHarness;
beforeAll(async () => {
  h = await startAnalysisHarness();
});
afterAll(() => h?.close());

const SIGN_IN = [
  { action: 'navigate', value: '/login' },
  { action: 'fill', selector: '#email', value: 'ada@example.com' },
  { action: 'fill', selector: '#password', value: 'secret' },
  { action: 'click', selector: '#login-button', description: 'Sign in' },
  { action: 'assert_text', selector: '#welcome', value: 'Welcome back' },
];
const PRICE = [
  { action: 'navigate', value: '/product' },
  { action: 'assert_text', selector: '#price', value: '$20.00' },
];
const STATUS = [
  { action: 'navigate', value: '/status' },
  { action: 'assert_visible', selector: '#status-ok' },
];
const PROMO = [
  { action: 'navigate', value: '/promo' },
  { action: 'click', selector: '#promo-banner' },
  { action: 'assert_visible', selector: '#sale-title' },
];

const item = (analysis: any, name: string) => {
  const found = analysis.analysis.find((i: { test_name: string }) => i.test_name === name);
  if (!found) throw new Error(`no analysis item for ${name}: ${JSON.stringify(analysis.analysis.map((i: { test_name: string }) => i.test_name))}`);
  return found;
};

describe('failure analysis across a redesign', () => {
  let t: Tenant;
  let plan: { projectId: string; planId: string; caseIds: string[] };
  let second: any;
  let third: any;

  beforeAll(async () => {
    h.app.reset();
    t = h.tenant();
    plan = await t.plan({ 'Sign in': SIGN_IN, Price: PRICE, Status: STATUS, Promo: PROMO });
    const first = await t.run(plan);
    expect(first).toMatchObject({ status: 'completed', passed_tests: 4, failed_tests: 0 });
    // A passed execution has an empty analysis; it also records the elements its steps acted on.
    expect(await t.analysis(first.id)).toEqual({ id: first.id, status: 'completed', produced_at: expect.any(String), analysis: [] });
    h.app.setVersion(2);
    second = await t.run(plan);
    expect(second).toMatchObject({ status: 'completed', passed_tests: 0, failed_tests: 4 });
  });

  it('names a renamed button selector_changed with a selector verified against the snapshot and by a re-run', async () => {
    const a = await t.analysis(second.id);
    const signIn = item(a, 'Sign in');
    expect(signIn).toMatchObject({
      test_id: plan.caseIds[0],
      failure_category: 'selector_changed',
      triage_type: 'automation_bug',
      suggestion_state: 'offered',
      evidence: {
        expected_selector: '#login-button',
        suggested_alternative: '[data-testid="sign-in"]',
        screenshot: expect.stringMatching(/^http:\/\/assay\.test\/api\/v1\/artifacts\//),
        element: { source: 'history', fingerprint: { tag: 'button', id: 'login-button', text: 'Sign in' } },
        verification: { verified: true, snapshot: { status: 'passed', kind: 'test-id' }, rerun: { status: 'passed' } },
      },
    });
    expect(signIn.confidence).toBeGreaterThanOrEqual(0.9);
    expect(signIn.description).toContain('[data-testid="sign-in"]');
    expect(signIn.fix_suggestions[0]).toContain('Replace `#login-button` with `[data-testid="sign-in"]` in step 4');
    expect(signIn.evidence.candidates[0]).toMatchObject({ rank: 1, tag: 'button', testid: 'sign-in', factors: expect.objectContaining({ text: 1 }) });
    expect(signIn.evidence.diff).toEqual(expect.arrayContaining([{ property: 'id', before: 'login-button', after: 'signin-submit' }]));
  });

  it('quotes the text found for a changed text (assertion_mismatch), names 500 for a failing page and reports a removed element missing', async () => {
    const a = await t.analysis(second.id);
    const price = item(a, 'Price');
    expect(price).toMatchObject({ failure_category: 'assertion_mismatch', triage_type: 'product_bug', evidence: { expected: '$20.00', found: '$25.00', suggested_alternative: null } });
    expect(price.description).toContain('"$25.00"');
    expect(price.fix_suggestions[0]).toBe('If the change is intended, update the expected text to "$25.00".');

    const status = item(a, 'Status');
    expect(status).toMatchObject({ failure_category: 'page_error', evidence: { status: 500 } });
    expect(status.confidence).toBeGreaterThan(0.9);
    expect(status.description).toContain('HTTP 500');
    expect(status.fix_suggestions[0]).toMatch(/^The page at http:\/\/127\.0\.0\.1:\d+\/status answered HTTP 500: check the server log around \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\.$/);

    const promo = item(a, 'Promo');
    expect(promo).toMatchObject({ failure_category: 'element_missing', suggestion_state: 'none', evidence: { expected_selector: '#promo-banner', suggested_alternative: null, element: { source: 'history' } } });
    expect(promo.description).toContain('#promo-banner');
  });

  it('runs the suggested selector as a new case on the new version and it passes', async () => {
    const a = await t.analysis(second.id);
    const selector = item(a, 'Sign in').evidence.suggested_alternative;
    const healed = await t.plan({ 'Sign in, healed': SIGN_IN.map((s) => (s.selector === '#login-button' ? { ...s, selector } : s)) });
    expect(await t.run(healed)).toMatchObject({ status: 'completed', passed_tests: 1, failed_tests: 0 });
  });

  it('applies the verified selector to the test case, emits test.case.updated, and the next run passes', async () => {
    const path = `/api/v1/executions/${second.id}/failure-analysis/${plan.caseIds[0]}`;
    // What has no verified suggestion cannot be applied.
    const refused = await t.an('POST', `/api/v1/executions/${second.id}/failure-analysis/${plan.caseIds[3]}/apply`);
    expect(refused).toMatchObject({ status: 409, body: { error: 'conflict' } });

    const applied = await t.an('POST', `${path}/apply`);
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ applied: true, selector: '[data-testid="sign-in"]', replaced: '#login-button', test_case: { id: plan.caseIds[0] } });
    const tc = await t.tc('GET', `/api/v1/test-cases/${plan.caseIds[0]}`);
    expect(tc.body.steps[3]).toMatchObject({ action: 'click', selector: '[data-testid="sign-in"]' });
    const updated = (await h.testCaseEvents('test.case.updated')).find((e) => e.data.test_case_id === plan.caseIds[0]);
    expect(updated.data).toMatchObject({ source: 'failure-analysis', execution_id: second.id, changes: { steps: { before: expect.any(Array), after: expect.any(Array) } } });
    expect(updated.data.changes.steps.after[3].selector).toBe('[data-testid="sign-in"]');
    // Applying again answers the same, and the analysis shows it applied.
    expect((await t.an('POST', `${path}/apply`)).body).toMatchObject({ applied: true, selector: '[data-testid="sign-in"]' });
    expect(item(await t.analysis(second.id), 'Sign in')).toMatchObject({ suggestion_state: 'applied', applied_at: expect.any(String) });
    // A rejection after the apply is refused.
    expect((await t.an('POST', `${path}/reject`, {})).status).toBe(409);

    third = await t.run(plan);
    expect(third.results.test_results.find((r: { name: string }) => r.name === 'Sign in')).toMatchObject({ status: 'passed' });
    expect(third).toMatchObject({ passed_tests: 1, failed_tests: 3 });
  });

  it('groups repeated failures into issues and reopens a resolved one when it occurs again', async () => {
    await t.analysis(third.id);
    const listed = await t.an('GET', `/api/v1/issues?project_id=${plan.projectId}`);
    expect(listed.status).toBe(200);
    const byTest = (name: string) => listed.body.data.find((i: { test_name: string }) => i.test_name === name);
    // Runs 2 and 3 both failed on the price: one issue, two occurrences.
    const price = byTest('Price');
    expect(price).toMatchObject({ category: 'assertion_mismatch', triage_type: 'product_bug', status: 'open', occurrence_count: 2, step: { index: 2 } });
    expect(byTest('Sign in')).toMatchObject({ category: 'selector_changed', occurrence_count: 1 });
    expect(listed.body.pagination).toEqual({ limit: 20, offset: 0, total: 4 });

    const detail = await t.an('GET', `/api/v1/issues/${price.id}`);
    expect(detail.body.occurrences).toHaveLength(2);
    expect(detail.body.occurrences.map((o: { execution_id: string }) => o.execution_id)).toContain(second.id);
    expect(detail.body.latest_analysis).toMatchObject({ failure_category: 'assertion_mismatch', test_id: plan.caseIds[1] });

    const resolved = await t.an('PATCH', `/api/v1/issues/${price.id}`, { status: 'resolved' });
    expect(resolved.body).toMatchObject({ status: 'resolved', resolved_at: expect.any(String) });
    expect((await t.an('GET', `/api/v1/issues?project_id=${plan.projectId}&status=resolved`)).body.data.map((i: { id: string }) => i.id)).toEqual([price.id]);

    const fourth = await t.run(plan);
    await t.analysis(fourth.id);
    const reopened = await t.an('GET', `/api/v1/issues/${price.id}`);
    expect(reopened.body).toMatchObject({ status: 'open', reopened_count: 1, occurrence_count: 3, resolved_at: null, last_execution_id: fourth.id });
  });

  it('validates triage input and keeps every issue and analysis to its organization', async () => {
    const listed = await t.an('GET', `/api/v1/issues?project_id=${plan.projectId}`);
    const id = listed.body.data[0].id;
    for (const body of [{ status: 'closed' }, {}, { status: 'open', extra: 1 }]) {
      const r = await t.an('PATCH', `/api/v1/issues/${id}`, body);
      expect(r).toMatchObject({ status: 400, body: { error: 'validation_error' } });
    }
    expect((await t.an('GET', '/api/v1/issues?status=nope')).status).toBe(400);
    expect((await t.an('GET', '/api/v1/issues?limit=1000')).status).toBe(400);

    const other = h.tenant();
    expect((await other.an('GET', `/api/v1/issues/${id}`)).status).toBe(404);
    expect((await other.an('PATCH', `/api/v1/issues/${id}`, { status: 'ignored' })).status).toBe(404);
    expect(await other.an('GET', `/api/v1/issues?project_id=${plan.projectId}`)).toMatchObject({ status: 404, body: { error: 'not_found', message: 'Project not found' } });
    expect((await other.an('GET', `/api/v1/executions/${second.id}/failure-analysis`)).status).toBe(404);
    expect((await other.an('POST', `/api/v1/executions/${second.id}/failure-analysis/${plan.caseIds[0]}/apply`)).status).toBe(404);
    expect((await other.an('GET', `/api/v1/test-cases/${plan.caseIds[1]}/flakiness`)).status).toBe(404);
    expect((await t.an('GET', `/api/v1/executions/${randomUUID()}/failure-analysis`)).body).toMatchObject({ error: 'not_found' });
    expect((await t.an('GET', '/api/v1/executions/not-an-id/failure-analysis')).status).toBe(404);
  });
});

describe('failure analysis of other causes', () => {
  it('reports an unreachable target as network_error naming the refused connection', async () => {
    const t = h.tenant();
    const closed = `http://127.0.0.1:${await freePortForTests()}`;
    const p = await t.plan({ Home: [{ action: 'navigate', value: '/' }, { action: 'assert_visible', selector: '#title' }] }, closed);
    const run = await t.run(p);
    const a = await t.analysis(run.id);
    expect(a.analysis).toHaveLength(1);
    expect(a.analysis[0]).toMatchObject({ failure_category: 'network_error', triage_type: 'system_issue', evidence: { cause: expect.stringMatching(/refused/), code: 'ERR_CONNECTION_REFUSED' } });
    expect(a.analysis[0].description).toContain('could not be reached');
  });

  it('calls a test that passes and fails with the same steps flaky, with its flip rate, and never heals it', async () => {
    h.app.reset();
    const t = h.tenant();
    const p = await t.plan({ Dashboard: [{ action: 'navigate', value: '/flaky' }, { action: 'assert_visible', selector: '#ready' }] });
    const runs: any[] = [];
    for (let i = 0; i < 4; i++) runs.push(await t.run(p));
    expect(runs.map((r) => r.passed_tests)).toEqual([1, 0, 1, 0]);
    // One failure after passes is not flakiness yet (a regression looks the same).
    expect((await t.analysis(runs[1].id)).analysis[0].failure_category).not.toBe('flaky');
    const last = (await t.analysis(runs[3].id)).analysis[0];
    expect(last).toMatchObject({
      failure_category: 'flaky',
      suggestion_state: 'none',
      evidence: { suggested_alternative: null, flakiness: { runs: 4, passed: 2, failed: 2, flips: 3, flip_rate: 1, flaky: true, band: 'high' } },
    });
    expect(last.description).toContain('flip rate 100 %');
    const flakiness = await t.an('GET', `/api/v1/test-cases/${p.caseIds[0]}/flakiness`);
    expect(flakiness.body).toMatchObject({ test_case_id: p.caseIds[0], window: 30, flaky: true, flip_rate: 1, band: 'high', groups: [{ test_plan_id: p.planId, runs: 4, flips: 3 }] });
    const issue = (await t.an('GET', `/api/v1/issues?test_case_id=${p.caseIds[0]}&category=flaky`)).body.data[0];
    expect(issue).toMatchObject({ category: 'flaky', flakiness: { flip_rate: 1, band: 'high' } });
  });

  it('answers 202 with Retry-After while the execution runs, then the analysis', async () => {
    h.app.reset();
    const t = h.tenant();
    const p = await t.plan({ Slowish: [{ action: 'navigate', value: '/' }, { action: 'wait', selector: '#never', timeout: 1500 }] });
    const queued = await t.ex('POST', '/api/v1/executions/async', { test_plan_id: p.planId, project_id: p.projectId });
    const early = await t.an('GET', `/api/v1/executions/${queued.body.id}/failure-analysis`);
    if (early.status === 202) {
      expect(early.headers.get('retry-after')).toBe('2');
      expect(early.body).toMatchObject({ id: queued.body.id, status: expect.stringMatching(/^(waiting|pending|running)$/), analysis: [], message: expect.any(String) });
    } else expect(early.status).toBe(200);
    const done = await t.analysis(queued.body.id);
    expect(done.analysis[0]).toMatchObject({ failure_category: 'element_missing', evidence: { element: { source: 'selector', fingerprint: { id: 'never' } } } });
  });
});

describe('more causes, and rejections', () => {
  it('blames a failed API call for the wrong text (script_error), a disabled button (element_not_interactable) and the run time (timeout)', async () => {
    h.app.reset();
    const t = h.tenant();
    const p = await t.plan({
      Orders: [{ action: 'navigate', value: '/orders' }, { action: 'assert_text', selector: '#orders-count', value: '3 orders' }],
      Save: [{ action: 'navigate', value: '/settings' }, { action: 'fill', selector: '#name', value: 'Ada' }, { action: 'click', selector: '#save' }],
    });
    expect(await t.run(p)).toMatchObject({ passed_tests: 2 });
    h.app.setVersion(2);
    const run = await t.run(p);
    const a = await t.analysis(run.id);
    const orders = item(a, 'Orders');
    expect(orders).toMatchObject({ failure_category: 'script_error', evidence: { found: 'Could not load your orders', failed_calls: [expect.objectContaining({ method: 'GET', status: 500, url: expect.stringMatching(/\/api\/orders$/) })] } });
    expect(orders.description).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/api\/orders answered 500 while step 2 ran/);
    expect(orders.fix_suggestions[0]).toMatch(/^Fix the failing call GET .*\/api\/orders: check the server log around/);
    const save = item(a, 'Save');
    expect(save).toMatchObject({ failure_category: 'element_not_interactable', evidence: { reason: 'disabled' } });
    expect(save.description).toContain('disabled');

    const slow = await t.plan({ Slow: [{ action: 'navigate', value: '/slow' }, { action: 'assert_visible', selector: '#slow-title' }] });
    const timedOut = await t.ex('POST', '/api/v1/executions', { test_plan_id: slow.planId, project_id: slow.projectId, timeout_seconds: 2 });
    expect(timedOut.body.status).toBe('failed');
    const ta = await t.analysis(timedOut.body.id);
    expect(ta.analysis[0]).toMatchObject({ failure_category: 'timeout', triage_type: 'system_issue' });
  });

  it('never offers a rejected element again for that step', async () => {
    h.app.reset();
    const t = h.tenant();
    const p = await t.plan({ 'Sign in': SIGN_IN });
    await t.run(p);
    h.app.setVersion(2);
    const failed = await t.run(p);
    const before = (await t.analysis(failed.id)).analysis[0];
    expect(before).toMatchObject({ failure_category: 'selector_changed', suggestion_state: 'offered' });
    const path = `/api/v1/executions/${failed.id}/failure-analysis/${p.caseIds[0]}`;
    expect((await t.an('POST', `${path}/reject`, { reason: 'x'.repeat(501) })).status).toBe(400);
    const rejected = await t.an('POST', `${path}/reject`, { reason: 'that is the SSO button' });
    expect(rejected).toMatchObject({ status: 200, body: { rejected: true, selector: '[data-testid="sign-in"]' } });
    expect((await t.an('POST', `${path}/reject`)).status).toBe(200);
    expect((await t.an('POST', `${path}/apply`)).body).toMatchObject({ error: 'conflict', message: 'The suggestion was rejected' });
    expect((await t.analysis(failed.id)).analysis[0]).toMatchObject({ suggestion_state: 'rejected', evidence: { suggested_alternative: null, rejected_alternative: '[data-testid="sign-in"]' } });

    const again = await t.run(p);
    const after = (await t.analysis(again.id)).analysis[0];
    expect(after.evidence.suggested_alternative).toBeNull();
    expect(after.evidence.candidates?.[0]?.testid).not.toBe('sign-in');
    expect(after.failure_category).not.toBe('selector_changed');
  });

  it('heals a case broken in two steps: each re-run goes past the step already healed, and apply changes both selectors and no value', async () => {
    h.app.reset();
    const t = h.tenant();
    const COUPON = [
      { action: 'navigate', value: '/coupon' },
      { action: 'fill', selector: '#coupon', value: 'SAVE10' },
      { action: 'click', selector: '#apply-coupon' },
      { action: 'assert_text', selector: '#coupon-status', value: 'Coupon SAVE10 applied' },
    ];
    const p = await t.plan({ Coupon: COUPON });
    expect(await t.run(p)).toMatchObject({ passed_tests: 1 });
    h.app.setVersion(2);
    const failed = await t.run(p);
    const coupon = (await t.analysis(failed.id)).analysis[0];
    expect(coupon).toMatchObject({
      failure_category: 'selector_changed',
      suggestion_state: 'offered',
      evidence: {
        expected_selector: '#coupon',
        suggested_alternative: '[data-testid="coupon-field"]',
        verification: {
          verified: true,
          rerun: { status: 'passed' },
          // The first re-run (step 2 healed) stopped at step 3; the second covered both and passed.
          reruns: [
            { steps: [2], status: 'failed', failed_step: 3 },
            { steps: [2, 3], status: 'passed' },
          ],
          further_steps: [{ index: 3, expected_selector: '#apply-coupon', selector: '[data-testid="apply-coupon"]' }],
        },
      },
    });
    const applied = await t.an('POST', `/api/v1/executions/${failed.id}/failure-analysis/${p.caseIds[0]}/apply`);
    expect(applied.body).toMatchObject({ applied: true, selector: '[data-testid="coupon-field"]', also: [{ selector: '[data-testid="apply-coupon"]', replaced: '#apply-coupon' }] });
    const steps = (await t.tc('GET', `/api/v1/test-cases/${p.caseIds[0]}`)).body.steps;
    // Only the two selectors changed: every action, value and expected text is as written.
    expect(steps.map((s: { action: string; value?: string }) => [s.action, s.value])).toEqual(COUPON.map((s) => [s.action, s.value]));
    expect(steps.map((s: { selector?: string }) => s.selector)).toEqual([undefined, '[data-testid="coupon-field"]', '[data-testid="apply-coupon"]', '#coupon-status']);
    expect(await t.run(p)).toMatchObject({ passed_tests: 1, failed_tests: 0 });
  });

  it('tries an element below a pick and offers it only when the test fails without the step (the re-run needed it)', async () => {
    h.app.reset();
    const t = h.tenant();
    const FILTERS = [
      { action: 'navigate', value: '/catalogue' },
      { action: 'click', selector: '#show-filters' },
      { action: 'assert_visible', selector: '#filter-title' },
    ];
    // The same click with nothing after it that needs it: its re-run passes whatever the button does.
    const CLICK_ONLY = [
      { action: 'navigate', value: '/catalogue' },
      { action: 'assert_visible', selector: '#sort' },
      { action: 'click', selector: '#show-filters' },
    ];
    const p = await t.plan({ Filters: FILTERS, 'Click only': CLICK_ONLY });
    expect(await t.run(p)).toMatchObject({ passed_tests: 2 });
    h.app.setVersion(2);
    // The checked-in model's bands move with each fit (and may be empty): this test gives the worker (in this process)
    // the checked-in weights with a wide possible band of its own, as ANALYSIS_RELOCATION_MODEL would.
    const was = useRelocationModel({ ...RELOCATION_MODEL, confidentAt: 0.9, pickAt: 0.9, pickLead: 1, possibleAt: 0.35, possibleLead: 1 });
    let failed: { id: string };
    let a: any;
    try {
      failed = await t.run(p);
      a = await t.analysis(failed.id);
    } finally {
      useRelocationModel(was);
    }
    const filters = item(a, 'Filters');
    const clickOnly = item(a, 'Click only');
    // The fixture's icon must fall in that band (0.35 to 0.9, with a lead of 1): after a refit that moves it out,
    // re-tune the fixture's version 2 markup, do not loosen this.
    for (const i of [filters, clickOnly]) expect(i.evidence.relocation).toMatch(/it is tried, and offered only if a re-run with it passes and the test fails without the step/);
    expect(filters).toMatchObject({
      failure_category: 'selector_changed',
      suggestion_state: 'offered',
      evidence: {
        expected_selector: '#show-filters',
        suggested_alternative: expect.stringMatching(/Refine|icon/),
        possible: true,
        ambiguous: true,
        verification: { verified: true, rerun: { status: 'passed' }, without_step: { status: 'failed' } },
      },
    });
    expect(filters.confidence).toBeLessThanOrEqual(0.8);
    expect(filters.description).toMatch(/the test fails without step 2/);
    // Nothing after the click needs it: the passing re-run proves nothing, so nothing is offered.
    expect(clickOnly).toMatchObject({
      failure_category: 'element_missing',
      suggestion_state: 'none',
      evidence: { suggested_alternative: null, possible: true, verification: { verified: false, rerun: { status: 'passed' }, without_step: { status: 'passed' } } },
    });
    expect(clickOnly.description).toMatch(/so does the test without step 3, so the pass proves nothing/);
    // Applied, the offered one passes; only its selector changed.
    const applied = await t.an('POST', `/api/v1/executions/${failed.id}/failure-analysis/${p.caseIds[0]}/apply`);
    expect(applied.body).toMatchObject({ applied: true });
    const steps = (await t.tc('GET', `/api/v1/test-cases/${p.caseIds[0]}`)).body.steps;
    expect(steps.map((s: { action: string; value?: string }) => [s.action, s.value])).toEqual(FILTERS.map((s) => [s.action, s.value]));
  });
});
