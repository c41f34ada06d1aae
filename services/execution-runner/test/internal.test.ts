import { randomUUID } from 'node:crypto';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import { TEST_INTERNAL_SECRET, useHarness } from '@assay/testing';
import { startRunnerHarness } from './harness.js';

// What the analysis service reads from the runner: an execution with what a
// re-run needs, and each test's stored evidence (candidates on failure).
jest.setTimeout(120_000);

const h = useHarness(() => startRunnerHarness({ stepTimeoutMs: 1500 }));

const internal = async (orgId: string | null, path: string) => {
  const token = await signPrincipal(TEST_INTERNAL_SECRET, { ...servicePrincipal('analysis'), org_id: orgId });
  const res = await fetch(`${h.execUrl}${path}`, { headers: { [PRINCIPAL_HEADER]: token } });
  return { status: res.status, body: (await res.json()) as any };
};

describe('internal routes for failure analysis', () => {
  it('serves the run context and the stored evidence, candidates included, to its own organization only', async () => {
    const t = h.tenant();
    const { projectId, planId, caseIds } = await t.plan({
      'Sign in': [
        { action: 'navigate', value: '/login' },
        { action: 'fill', selector: '#email', value: '{{email}}' },
        { action: 'click', selector: '#submit-button' },
      ],
      'Home': [
        { action: 'navigate', value: '/' },
        { action: 'assert_visible', selector: '#title' },
      ],
    });
    const run = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId, variables: { email: 'user@shop.test' } });
    expect(run.body).toMatchObject({ status: 'completed', failed_tests: 1, passed_tests: 1 });

    const ctx = await internal(t.orgId, `/internal/executions/${run.body.id}`);
    expect(ctx.status).toBe(200);
    expect(ctx.body).toMatchObject({ id: run.body.id, project_id: projectId, test_plan_id: planId, status: 'completed', base_url: h.shopUrl, variables: { email: 'user@shop.test' } });
    const [signIn, home] = ctx.body.test_results;
    expect(signIn).toMatchObject({ test_id: caseIds[0], status: 'failed', error_step: 3, test_case_version: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(signIn.steps.map((s: { action: string }) => s.action)).toEqual(['navigate', 'fill', 'click']);
    expect(home.test_case_version).not.toBe(signIn.test_case_version);

    const failed = await internal(t.orgId, `/internal/executions/${run.body.id}/tests/${caseIds[0]}/diagnostics`);
    const d = failed.body.results[0].diagnostics;
    expect(d.selector_state).toEqual({ selector: '#submit-button', count: 0 });
    expect(d.candidates.find((c: { id: string }) => c.id === 'submit')).toMatchObject({ tag: 'button', text: 'Sign in', is_button: true, xpath: expect.stringMatching(/^\/html\[1\]\/body\[1\]\//) });
    expect(d.fingerprints.map((f: { selector: string }) => f.selector)).toEqual(['#email']);
    expect(d.failed_requests).toEqual([]);

    const passed = await internal(t.orgId, `/internal/executions/${run.body.id}/tests/${caseIds[1]}/diagnostics`);
    expect(passed.body.results[0].diagnostics.fingerprints[0]).toMatchObject({ selector: '#title', fingerprint: { tag: 'h1', id: 'title', role: 'heading' } });

    const all = await internal(t.orgId, `/internal/executions/${run.body.id}/fingerprints`);
    expect(all.body.tests.map((x: { test_id: string; fingerprints: unknown[] }) => [x.test_id, x.fingerprints.length])).toEqual([[caseIds[0], 1], [caseIds[1], 1]]);

    // The public event keeps its size: the count of candidates, not the candidates.
    const event = (await h.events('test.execution.failed')).find((e) => e.data.execution.id === run.body.id);
    expect(event.data.diagnostics.candidates).toBeUndefined();
    expect(event.data.diagnostics.candidates_captured).toBe(d.candidates.length);

    expect((await internal(randomUUID(), `/internal/executions/${run.body.id}`)).status).toBe(404);
    expect((await internal(t.orgId, `/internal/executions/${run.body.id}/tests/not-a-uuid/diagnostics`)).status).toBe(404);
    expect((await internal(null, `/internal/executions/${run.body.id}`)).status).toBe(403);
    expect((await t.ex('GET', `/internal/executions/${run.body.id}`)).status).toBe(403);
  });
});
