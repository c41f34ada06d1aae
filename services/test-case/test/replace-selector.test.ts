import { randomUUID } from 'node:crypto';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import { TEST_INTERNAL_SECRET, useHarness } from '@assay/testing';
import { startTestCaseService } from './harness.js';

// The route the analysis service applies a verified selector through.
const h = useHarness(() => startTestCaseService());

async function replace(orgId: string | null, id: string, body: unknown) {
  const token = await signPrincipal(TEST_INTERNAL_SECRET, { ...servicePrincipal('analysis'), org_id: orgId });
  const res = await fetch(`${h.server.url}/internal/test-cases/${id}/replace-selector`, { method: 'POST', headers: { [PRINCIPAL_HEADER]: token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

describe('POST /internal/test-cases/{id}/replace-selector', () => {
  it('replaces the selector of the named steps and emits test.case.updated with the change and its source', async () => {
    const t = h.tenant();
    const project = await t.project();
    const tc = await t.testCase(project.id);
    const click = tc.steps[2];
    const execution = randomUUID();
    const r = await replace(t.orgId, tc.id, { step_ids: [click.step_id], from: 'button[type=submit]', to: '[data-testid="sign-in"]', expected_steps: tc.steps, source: 'failure-analysis', execution_id: execution });
    expect(r.status).toBe(200);
    expect(r.body.test_case.steps[2]).toEqual({ ...click, selector: '[data-testid="sign-in"]' });
    expect(r.body.test_case.steps.slice(0, 2)).toEqual(tc.steps.slice(0, 2));
    const [event] = await h.events({ type: 'test.case.updated', key: tc.id });
    expect(event!.data).toMatchObject({ test_case_id: tc.id, source: 'failure-analysis', execution_id: execution, changes: { steps: { before: tc.steps, after: r.body.test_case.steps } } });
  });

  it('refuses with 409 when the case changed since the run or no longer uses the selector, and changes nothing', async () => {
    const t = h.tenant();
    const project = await t.project();
    const tc = await t.testCase(project.id);
    const click = tc.steps[2];
    // Edited since the failed run: the steps the caller saw are not the case's.
    const edited = await t.call('PUT', `/api/v1/test-cases/${tc.id}`, { steps: [...tc.steps, { action: 'assert_visible', selector: '#welcome' }] });
    expect(edited.status).toBe(200);
    const stale = await replace(t.orgId, tc.id, { step_ids: [click.step_id], from: 'button[type=submit]', to: '#go', expected_steps: tc.steps, source: 'failure-analysis' });
    expect(stale).toMatchObject({ status: 409, body: { error: 'conflict', message: expect.stringMatching(/changed since the failed run/) } });
    const wrongFrom = await replace(t.orgId, tc.id, { step_ids: [click.step_id], from: '#other', to: '#go', expected_steps: edited.body.steps, source: 'failure-analysis' });
    expect(wrongFrom.status).toBe(409);
    expect((await t.call('GET', `/api/v1/test-cases/${tc.id}`)).body.steps).toEqual(edited.body.steps);
    expect(await h.events({ type: 'test.case.updated', key: tc.id })).toHaveLength(1);
  });

  it('answers 404 to another organization, 400 to a bad body and 403 to a caller that is not a service', async () => {
    const t = h.tenant();
    const tc = await t.testCase((await t.project()).id);
    const body = { step_ids: [tc.steps[2].step_id], from: 'button[type=submit]', to: '#go', expected_steps: tc.steps, source: 'failure-analysis' };
    expect((await replace(randomUUID(), tc.id, body)).status).toBe(404);
    expect((await replace(t.orgId, 'nope', body)).status).toBe(404);
    const bad = await replace(t.orgId, tc.id, { ...body, to: '', step_ids: [] });
    expect(bad).toMatchObject({ status: 400, body: { error: 'validation_error' } });
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['step_ids', 'to']);
    expect((await t.call('POST', `/internal/test-cases/${tc.id}/replace-selector`, body)).status).toBe(403);
  });
});
