import { startDiscoveryHarness, type DiscoveryHarness, type Tenant } from './harness.js';

jest.setTimeout(120_000);

let h: DiscoveryHarness;
let t: Tenant;
let sessionId: string;
let flows: any[];

beforeAll(async () => {
  h = await startDiscoveryHarness();
  t = await h.tenant();
  sessionId = await t.start({ max_depth: 3 });
  await t.waitFor(sessionId, 'completed');
  flows = (await t.dc('GET', `/api/v1/discovery/${sessionId}/results`)).body.flows;
});
afterAll(() => h?.close());

describe('generating test cases from a discovery session', () => {
  it('creates one case per flow in the project, appended to the plan, with stable selectors and assertions', async () => {
    const plan = await t.tc('POST', '/api/v1/test-plans', { project_id: t.projectId, name: 'Discovered' });
    const res = await t.dc('POST', `/api/v1/discovery/${sessionId}/generate-test-cases`, { test_plan_id: plan.body.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ session_id: sessionId, project_id: t.projectId, test_plan_id: plan.body.id });
    expect(res.body.test_cases).toHaveLength(flows.length);
    const cases = res.body.test_cases as any[];
    const login = cases.find((c) => c.tags.includes('authentication'));
    expect(login).toMatchObject({ project_id: t.projectId, priority: 'critical', status: 'active' });
    expect(login.steps.map((s: any) => [s.action, s.selector ?? s.value])).toEqual([
      ['navigate', '/login'],
      ['assert_text', '#login-title'],
      ['fill', '#email'],
      ['assert_value', '#email'],
      ['fill', '#password'],
      ['assert_value', '#password'],
      ['assert_visible', '#sign-in'],
    ]);
    const checkout = cases.find((c) => c.tags.includes('checkout'));
    expect(checkout.steps.filter((s: any) => s.action === 'click').map((s: any) => s.selector)).toEqual(['#checkout-link', '#continue-to-payment']);
    expect(checkout.steps).toContainEqual(expect.objectContaining({ action: 'assert_text', selector: '#payment-title', value: 'Payment' }));
    // No positional CSS anywhere.
    for (const c of cases) for (const s of c.steps) if (s.selector) expect(s.selector).not.toMatch(/nth-of-type|>/);
    // The session lists what was made from it, with the flow each came from.
    const listed = (await t.dc('GET', `/api/v1/discovery/${sessionId}/results`)).body.generated_test_cases;
    expect(listed.map((g: any) => g.test_case_id).sort()).toEqual(cases.map((c) => c.id).sort());
    for (const g of listed) expect(flows.map((f) => f.flow_id)).toContain(g.flow_id);
    const stored = await h.tcDb.db.selectFrom('test_plan_cases').select('test_case_id').where('plan_id', '=', plan.body.id).execute();
    expect(stored.map((r: any) => r.test_case_id).sort()).toEqual(cases.map((c) => c.id).sort());
  });

  it('generates only the chosen flows and refuses unknown ones', async () => {
    const crud = flows.find((f) => f.type === 'crud');
    const res = await t.dc('POST', `/api/v1/discovery/${sessionId}/generate-test-cases`, { flow_ids: [crud.flow_id] });
    expect(res.status).toBe(201);
    expect(res.body.test_cases.map((c: any) => c.tags)).toEqual([['discovered', 'crud']]);
    const bad = await t.dc('POST', `/api/v1/discovery/${sessionId}/generate-test-cases`, { flow_ids: ['flow_nope'] });
    expect(bad).toMatchObject({ status: 400, body: { error: 'validation_error', details: [{ field: 'flow_ids' }] } });
    const otherPlan = await t.dc('POST', `/api/v1/discovery/${sessionId}/generate-test-cases`, { test_plan_id: '00000000-0000-4000-8000-000000000000' });
    expect(otherPlan).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const stranger = await h.tenant();
    expect((await stranger.dc('POST', `/api/v1/discovery/${sessionId}/generate-test-cases`, {})).status).toBe(404);
  });
});
