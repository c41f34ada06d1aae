import { eventually } from '@assay/testing';
import { startRedesignApp, type RedesignApp } from '../fixtures/redesign/server.js';
import { bearer, call } from './support/http.js';
import { launchForFile } from './support/launcher.js';

// Failure analysis through the real gateway and the launcher's processes: the
// runner's events reach the analysis process over the bus, which reads the
// evidence from the runner, verifies in its own Chromium and writes the
// applied selector through the test-case service.
jest.setTimeout(240_000);

const launched = launchForFile();
let app: RedesignApp;

const gw = (method: string, path: string, body?: unknown, credential = launched.assay.serviceKey) =>
  call(launched.assay.gatewayUrl, method, path, { headers: bearer(credential), ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  app = await startRedesignApp();
});
afterAll(async () => {
  await app?.close();
});

const analysisOf = (id: string, prefix = '/api/v1') =>
  eventually(async () => {
    const r = await gw('GET', `${prefix}/executions/${id}/failure-analysis`);
    if (r.status === 202) {
      expect(r.headers.get('retry-after')).toBe('2');
      return undefined;
    }
    return r;
  }, 120_000, 250);

describe('failure analysis through the gateway', () => {
  it('explains a redesign, serves both paths, applies the verified selector and groups issues', async () => {
    const project = await gw('POST', '/api/v1/projects', { name: 'Acme', base_url: app.url });
    const signIn = await gw('POST', '/api/v1/test-cases', {
      project_id: project.body.id,
      name: 'Sign in',
      steps: [
        { action: 'navigate', value: '/login' },
        { action: 'fill', selector: '#email', value: 'ada@example.com' },
        { action: 'click', selector: '#login-button' },
        { action: 'assert_text', selector: '#welcome', value: 'Welcome back' },
      ],
    });
    const price = await gw('POST', '/api/v1/test-cases', { project_id: project.body.id, name: 'Price', steps: [{ action: 'navigate', value: '/product' }, { action: 'assert_text', selector: '#price', value: '$20.00' }] });
    const plan = await gw('POST', '/api/v1/test-plans', { project_id: project.body.id, name: 'Regression', test_case_ids: [signIn.body.id, price.body.id] });
    const run = () => gw('POST', '/api/v1/executions', { test_plan_id: plan.body.id, project_id: project.body.id });

    const first = await run();
    expect(first.body).toMatchObject({ status: 'completed', passed_tests: 2 });
    expect((await analysisOf(first.body.id)).body).toMatchObject({ id: first.body.id, status: 'completed', analysis: [] });

    app.setVersion(2);
    const second = await run();
    expect(second.body).toMatchObject({ status: 'completed', failed_tests: 2 });
    const analysis = await analysisOf(second.body.id);
    expect(analysis.status).toBe(200);
    const items = Object.fromEntries(analysis.body.analysis.map((i: { test_name: string }) => [i.test_name, i]));
    expect(items['Sign in']).toMatchObject({
      test_id: signIn.body.id,
      failure_category: 'selector_changed',
      evidence: { expected_selector: '#login-button', suggested_alternative: '[data-testid="sign-in"]', screenshot: expect.stringContaining(`${launched.assay.gatewayUrl}/api/v1/artifacts/`) },
    });
    expect(items.Price).toMatchObject({ failure_category: 'assertion_mismatch', evidence: { found: '$25.00' } });
    // The unversioned form is the same resource.
    expect((await analysisOf(second.body.id, '/api')).body).toEqual(analysis.body);

    const applied = await gw('POST', `/api/v1/executions/${second.body.id}/failure-analysis/${signIn.body.id}/apply`);
    expect(applied.body).toMatchObject({ applied: true, selector: '[data-testid="sign-in"]' });
    expect((await gw('GET', `/api/v1/test-cases/${signIn.body.id}`)).body.steps[2].selector).toBe('[data-testid="sign-in"]');
    const third = await run();
    expect(third.body).toMatchObject({ passed_tests: 1, failed_tests: 1 });
    await analysisOf(third.body.id);

    const issues = await gw('GET', `/api/v1/issues?project_id=${project.body.id}`);
    expect(issues.body.data.find((i: { test_name: string }) => i.test_name === 'Price')).toMatchObject({ category: 'assertion_mismatch', occurrence_count: 2, status: 'open' });
    const priceIssue = issues.body.data.find((i: { test_name: string }) => i.test_name === 'Price');
    expect((await gw('PATCH', `/api/v1/issues/${priceIssue.id}`, { status: 'acknowledged' })).body.status).toBe('acknowledged');
    expect((await gw('GET', `/api/v1/test-cases/${price.body.id}/flakiness`)).body).toMatchObject({ test_case_id: price.body.id, flaky: false, groups: [{ runs: 3, flips: 1 }] });
  });

  it('lists the analysis routes in the OpenAPI document and the reference', async () => {
    const doc = await call(launched.assay.gatewayUrl, 'GET', '/api/v1/openapi.json');
    for (const path of ['/api/v1/executions/{execution_id}/failure-analysis', '/api/executions/{execution_id}/failure-analysis', '/api/v1/executions/{execution_id}/failure-analysis/{test_id}/apply', '/api/v1/issues', '/api/v1/issues/{issue_id}', '/api/v1/test-cases/{test_case_id}/flakiness']) {
      expect(doc.body.paths[path]).toBeDefined();
    }
    expect(doc.body.components.schemas.FailureAnalysisItem.properties.failure_category.enum).toContain('selector_changed');
    // The reference at /docs renders this document: the analysis operations appear under their tag.
    expect(doc.body.paths['/api/v1/executions/{execution_id}/failure-analysis'].get.tags).toEqual(['Failure analysis']);
    const html = await (await fetch(`${launched.assay.gatewayUrl}/docs`)).text();
    expect(html).toContain('Assay API reference');
  });
});
