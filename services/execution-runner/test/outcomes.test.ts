import { unzipSync } from 'fflate';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import { eventually, TEST_INTERNAL_SECRET, useHarness } from '@assay/testing';
import { credentials, startRunnerHarness } from './harness.js';

// Issue 31: what a person asks of a run (did it pass?), names where ids were,
// a run of one stored test case, re-running just the failed cases, and
// project secrets that steps use but no output shows.
jest.setTimeout(120_000);

const h = useHarness(() => startRunnerHarness({ stepTimeoutMs: 3000 }));

const passing = [{ action: 'navigate', value: '/products/1' }, { action: 'assert_visible', selector: '#add-to-cart' }];
const failing = [{ action: 'navigate', value: '/products/1' }, { action: 'assert_text', selector: '#cart-count', value: '99' }];

describe('outcomes, case runs and re-runs', () => {
  it('calls a completed run with a failed case "failed", filters the list by outcome, and names the plan and project', async () => {
    const t = h.tenant();
    const { projectId, planId, caseIds } = await t.plan({ 'Sees the product': passing, 'Cart shows 99': failing });
    const mixed = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId });
    expect(mixed.body).toMatchObject({ status: 'completed', outcome: 'failed', passed_tests: 1, failed_tests: 1, kind: 'plan', test_plan_name: 'Plan', name: 'Plan', project_name: 'Shop', rerun_of: null, test_case_id: null });

    // Re-run only the failed case: a new plan execution naming the old one.
    const rerun = await t.ex('POST', `/api/v1/executions/${mixed.body.id}/rerun`, {});
    expect(rerun.status).toBe(202);
    expect(rerun.body).toMatchObject({ status: 'queued', rerun_of: mixed.body.id });
    const again = await eventually(async () => {
      const r = await t.ex('GET', `/api/v1/executions/${rerun.body.id}`);
      return r.body.outcome ? r.body : undefined;
    }, 60_000);
    expect(again).toMatchObject({ outcome: 'failed', total_tests: 1, failed_tests: 1, rerun_of: mixed.body.id, test_plan_id: planId });
    expect(again.results.test_results.map((r: { test_id: string }) => r.test_id)).toEqual([caseIds[1]]);

    // A plan whose cases all pass: "passed"; re-running its failed cases finds none.
    const green = await t.tc('POST', '/api/v1/test-plans', { project_id: projectId, name: 'Green', test_case_ids: [caseIds[0]] });
    const passed = await t.ex('POST', '/api/v1/executions', { test_plan_id: green.body.id, project_id: projectId });
    expect(passed.body).toMatchObject({ status: 'completed', outcome: 'passed', test_plan_name: 'Green' });
    const nothing = await t.ex('POST', `/api/v1/executions/${passed.body.id}/rerun`, {});
    expect(nothing.status).toBe(409);
    const all = await t.ex('POST', `/api/v1/executions/${passed.body.id}/rerun`, { only: 'all' });
    expect(all.status).toBe(202);
    expect((await t.ex('POST', `/api/v1/executions/${passed.body.id}/rerun`, { only: 'some' })).status).toBe(400);

    const ids = async (q: string) => (await t.ex('GET', `/api/v1/executions?project_id=${projectId}&${q}`)).body.data.map((e: { id: string }) => e.id);
    await eventually(async () => ((await ids('outcome=running')).length === 0 ? true : undefined), 60_000);
    expect(await ids('outcome=failed')).toEqual([rerun.body.id, mixed.body.id]);
    expect(await ids('outcome=passed')).toEqual([all.body.id, passed.body.id]);
    expect(await ids('outcome=cancelled')).toEqual([]);
    // The spec's status filter keeps its meaning: every one of them completed.
    expect((await ids('status=completed')).length).toBe(4);
    const bad = await t.ex('GET', `/api/v1/executions?project_id=${projectId}&outcome=green`);
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ field: 'outcome', message: 'must be one of passed, failed, cancelled, running' }]);
  });

  it('runs one stored test case alone under its own id, and re-runs that case', async () => {
    const t = h.tenant();
    const { projectId, caseIds } = await t.plan({ 'Cart shows 99': failing });
    const run = await t.ex('POST', '/api/v1/test-runs', { project_id: projectId, test_case_id: caseIds[0] });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ name: 'Cart shows 99', status: 'completed', failed_tests: 1 });
    const [result] = run.body.results.test_results;
    expect(result).toMatchObject({ test_id: caseIds[0], name: 'Cart shows 99', status: 'failed' });
    const asExecution = await t.ex('GET', `/api/v1/executions/${run.body.id}`);
    expect(asExecution.body).toMatchObject({ kind: 'run', test_case_id: caseIds[0], name: 'Cart shows 99', test_plan_name: null, outcome: 'failed' });

    const rerun = await t.ex('POST', `/api/v1/executions/${run.body.id}/rerun`, {});
    expect(rerun.status).toBe(202);
    const done = await eventually(async () => {
      const r = await t.ex('GET', `/api/v1/executions/${rerun.body.id}`);
      return r.body.outcome ? r.body : undefined;
    }, 60_000);
    expect(done).toMatchObject({ kind: 'run', test_case_id: caseIds[0], rerun_of: run.body.id, outcome: 'failed' });

    // Another organization's case, an archived case, two sources at once.
    const other = h.tenant();
    const { projectId: otherProject } = await other.plan({ x: passing });
    expect((await other.ex('POST', '/api/v1/test-runs', { project_id: otherProject, test_case_id: caseIds[0], wait_for_completion: false })).status).toBe(404);
    await t.tc('DELETE', `/api/v1/test-cases/${caseIds[0]}`);
    const archived = await t.ex('POST', '/api/v1/test-runs', { project_id: projectId, test_case_id: caseIds[0] });
    expect(archived.status).toBe(400);
    expect(archived.body.details).toEqual([{ field: 'test_case_id', message: 'is archived: restore it to run it' }]);
    expect((await t.ex('POST', '/api/v1/test-runs', { project_id: projectId, test_case_id: caseIds[0], steps: passing })).status).toBe(400);
    // An exploratory run of steps is not re-run: it is started again.
    const steps = await t.ex('POST', '/api/v1/test-runs', { project_id: projectId, steps: passing });
    expect((await t.ex('POST', `/api/v1/executions/${steps.body.id}/rerun`, {})).status).toBe(409);
  });
});

describe('request steps in a run', () => {
  it('creates an item through the shop API, finds it by the saved id, and never shows the secret header or URL token', async () => {
    const t = h.tenant();
    const token = 'tok-Rq7-request-header-only';
    const { projectId, planId } = await t.plan({
      'Create through the API, then find it in the page': [
        {
          action: 'request',
          request: { method: 'POST', url: '/api/items', headers: { Authorization: 'Bearer {{secret.token}}' }, body: { name: 'Made by the API' } },
          expect: ['status=201', '$.id exists'],
          save_as: { item_id: '$.id' },
        },
        { action: 'navigate', value: '/items' },
        { action: 'assert_text', selector: '[data-id="{{item_id}}"] .item-name', value: 'Made by the API' },
        { action: 'request', request: { method: 'GET', url: '/api/items/999999?token={{secret.token}}' }, expect: ['status=200'] },
      ],
    });
    expect((await t.tc('PUT', `/api/v1/projects/${projectId}/variables/token`, { value: token, secret: true })).status).toBe(201);
    const run = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId, trace: 'on' });
    const [result] = run.body.results.test_results;
    expect(result.steps.map((s: { status: string }) => s.status)).toEqual(['passed', 'passed', 'passed', 'failed']);
    expect(result.error).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/api\/items\/999999\?token=••••••: Expected status = 200 but it is 404$/);
    const found: string[] = [];
    const leaks = (what: string, text: string) => [token, encodeURIComponent(token)].filter((v) => text.includes(v)).map((v) => `${what}: ${v}`);
    found.push(...leaks('execution', JSON.stringify(run.body)));
    found.push(...leaks('results', JSON.stringify((await t.ex('GET', `/api/v1/executions/${run.body.id}/results`)).body)));
    await eventually(async () => (await h.events('test.execution.failed')).find((e) => e.data.execution.id === run.body.id), 10_000);
    found.push(...leaks('events', JSON.stringify(await h.events())));
    const zip = (await t.ex('GET', `/api/v1/artifacts/${String(result.trace).split('/api/v1/artifacts/')[1]}`)).body as Buffer;
    for (const [name, data] of Object.entries(unzipSync(new Uint8Array(zip)))) found.push(...leaks(`trace ${name}`, Buffer.from(data).toString('latin1')));
    expect(found).toEqual([]);
  });
});

describe('project secrets in a run', () => {
  it('signs in with {{secret.password}} and shows neither secret in results, events, diagnostics or the trace', async () => {
    const t = h.tenant();
    const token = 'tok-Zq9-only-in-the-vault';
    const { projectId, planId } = await t.plan({
      'Sign in, then search for the token': [
        { action: 'navigate', value: '/login' },
        { action: 'fill', selector: '#email', value: '{{email}}' },
        { action: 'fill', selector: '#password', value: '{{secret.password}}' },
        { action: 'click', selector: '#submit' },
        { action: 'assert_text', selector: '#welcome', value: 'Welcome, user@shop.test' },
        // The shop echoes a search in the URL and the input's value attribute.
        { action: 'navigate', value: '/products' },
        { action: 'fill', selector: '#q', value: '{{secret.token}}' },
        { action: 'click', selector: '#search-button' },
        { action: 'assert_value', selector: '#q', value: 'something else' },
      ],
    });
    expect((await t.tc('PUT', `/api/v1/projects/${projectId}/variables/email`, { value: credentials.email })).status).toBe(201);
    expect((await t.tc('PUT', `/api/v1/projects/${projectId}/variables/password`, { value: credentials.password, secret: true })).status).toBe(201);
    expect((await t.tc('PUT', `/api/v1/projects/${projectId}/variables/token`, { value: token, secret: true })).status).toBe(201);

    const run = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId, trace: 'on' });
    const [result] = run.body.results.test_results;
    // The secrets were used: the sign-in passed, the search ran.
    expect(result.steps.map((s: { status: string }) => s.status)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed', 'passed', 'passed', 'passed', 'failed']);
    expect(result.error).toBe('Expected value "something else" but found "••••••"');

    const leaks = (what: string, text: string) => [credentials.password, token, encodeURIComponent(token)].filter((v) => text.includes(v)).map((v) => `${what}: ${v}`);
    const found: string[] = [];
    found.push(...leaks('execution', JSON.stringify(run.body)));
    found.push(...leaks('results', JSON.stringify((await t.ex('GET', `/api/v1/executions/${run.body.id}/results`)).body)));
    const diagnostics = await fetch(`${h.execUrl}/internal/executions/${run.body.id}/tests/${result.test_id}/diagnostics`, {
      headers: { [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, { ...servicePrincipal('analysis'), org_id: t.orgId }) },
    });
    const diagnosticsText = await diagnostics.text();
    expect(diagnosticsText).toContain('/products?q=••••••');
    found.push(...leaks('diagnostics', diagnosticsText));
    const failed = await eventually(async () => (await h.events('test.execution.failed')).find((e) => e.data.execution.id === run.body.id), 10_000);
    found.push(...leaks('events', JSON.stringify(await h.events())));
    expect(failed.data.execution.error.message).toContain('••••••');
    const zip = (await t.ex('GET', `/api/v1/artifacts/${String(result.trace).split('/api/v1/artifacts/')[1]}`)).body as Buffer;
    const entries = unzipSync(new Uint8Array(zip));
    for (const [name, data] of Object.entries(entries)) found.push(...leaks(`trace ${name}`, Buffer.from(data).toString('latin1')));
    // The fill's parameters were in the trace, masked.
    expect(Buffer.from(entries['trace.trace']!).toString('utf8')).toContain('"value":"••••••"');
    // The execution row keeps only the run's own variables.
    const stored = await h.database.db.selectFrom('executions').select('variables').where('id', '=', run.body.id).executeTakeFirstOrThrow();
    expect(stored.variables).toEqual({});
    expect(found).toEqual([]);
  });
});
