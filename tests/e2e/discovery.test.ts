import { startSite, type Site } from '../fixtures/site/server.js';
import { startSpa } from '../fixtures/spa/server.js';
import { startVerdaccio } from '../fixtures/verdaccio/server.js';
import { bearer, call } from './support/http.js';
import { waitForSession } from './support/discovery.js';
import { launchForFile } from './support/launcher.js';

// Discovery through the real gateway, test-case, discovery-crawler and
// execution-runner processes: crawl the fixture site in Chromium, stream it,
// turn its flows into test cases and run them right away.
jest.setTimeout(300_000);

// Rate limits off, as in the other e2e files that make many calls: this file crawls, generates and runs
// several apps' cases through one key within a minute (the limits have tests of their own in the gateway).
const launched = launchForFile({ env: { RATE_LIMITS_ENABLED: 'false' } });
let site: Site;

const gw = (method: string, path: string, body?: unknown, credential = launched.assay.serviceKey) =>
  call(launched.assay.gatewayUrl, method, path, { headers: bearer(credential), ...(body !== undefined ? { body } : {}) });

const waitFor = (sessionId: string, status: string) => waitForSession(gw, sessionId, status);

beforeAll(async () => {
  site = await startSite();
});
afterAll(async () => {
  await site?.close();
});

describe('discovery through the gateway', () => {
  it('crawls the site, streams it, and its generated test cases pass when run at once', async () => {
    const project = await gw('POST', '/api/v1/projects', { name: 'Market', base_url: site.url });
    const started = await gw('POST', '/api/v1/discovery/start', { project_id: project.body.id, target_url: site.url, max_depth: 3, request_delay_ms: 0 });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ project_id: project.body.id, target_url: `${site.url}/`, status: 'running' });
    const id = started.body.session_id;

    const stream = await fetch(`${launched.assay.gatewayUrl}/api/v1/discovery/${id}/stream`, { headers: bearer(launched.assay.serviceKey) });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await stream.text();
    const names = [...text.matchAll(/event: (\w+)/g)].map((m) => m[1]);
    expect(names).toEqual(expect.arrayContaining(['page_discovered', 'flow_detected']));
    expect(names[names.length - 1]).toBe('completion');

    const done = await waitFor(id, 'completed');
    expect(done.progress.percent).toBe(100);
    const results = await gw('GET', `/api/v1/discovery/${id}/results`);
    expect(new Set(results.body.flows.map((f: any) => f.type))).toEqual(new Set(['authentication', 'checkout', 'search', 'form_submission', 'navigation', 'crud']));
    expect(results.body.api_endpoints.map((e: any) => `${e.method} ${e.endpoint}`)).toContain('GET /api/products/{id}');
    expect(results.body.pages.map((p: any) => p.url)).not.toContain(`${site.url}/private/area`);
    expect((await gw('POST', `/api/v1/discovery/${id}/pause`)).status).toBe(409);

    const plan = await gw('POST', '/api/v1/test-plans', { project_id: project.body.id, name: 'Discovered' });
    const generated = await gw('POST', `/api/v1/discovery/${id}/generate-test-cases`, { test_plan_id: plan.body.id });
    expect(generated.status).toBe(201);
    expect(generated.body.test_cases).toHaveLength(results.body.flows.length);
    const run = await gw('POST', '/api/v1/executions', { test_plan_id: plan.body.id, project_id: project.body.id });
    expect(run.status).toBe(200);
    const failures = run.body.results.test_results.filter((r: any) => r.status !== 'passed').map((r: any) => `${r.name}: ${r.error}`);
    expect(failures).toEqual([]);
    expect(run.body).toMatchObject({ status: 'completed', passed_tests: results.body.flows.length, failed_tests: 0 });
  });

  it('runs a whole session as one exploratory run of its generated cases, saving nothing', async () => {
    const project = await gw('POST', '/api/v1/projects', { name: 'Market run', base_url: site.url });
    const started = await gw('POST', '/api/v1/discovery/start', { project_id: project.body.id, target_url: site.url, max_depth: 3, request_delay_ms: 0 });
    const id = started.body.session_id;
    await waitFor(id, 'completed');
    const flows = (await gw('GET', `/api/v1/discovery/${id}/results`)).body.flows;

    const run = await gw('POST', '/api/v1/test-runs', { project_id: project.body.id, discovery_session_id: id });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ discovery_session_id: id, name: `Discovery session ${id}`, status: 'completed', total_tests: flows.length });
    const failures = run.body.results.test_results.filter((r: any) => r.status !== 'passed').map((r: any) => `${r.name}: ${r.error}`);
    expect(failures).toEqual([]);
    expect((await gw('GET', `/api/v1/test-cases?project_id=${project.body.id}`)).body.pagination.total).toBe(0);
    // The same cases the generator saves.
    const generated = await gw('POST', `/api/v1/discovery/${id}/generate-test-cases`, {});
    expect(run.body.results.test_results.map((r: any) => r.name).sort()).toEqual(generated.body.test_cases.map((c: any) => c.name).sort());
    // A session of another project is refused.
    const other = await gw('POST', '/api/v1/projects', { name: 'Other', base_url: site.url });
    const refused = await gw('POST', '/api/v1/test-runs', { project_id: other.body.id, discovery_session_id: id });
    expect(refused).toMatchObject({ status: 400, body: { details: [{ field: 'discovery_session_id' }] } });
  });

  it('generates cases from single-page apps that pass when run: Verdaccio (a real third-party SPA) and the fixture SPA without history fallback', async () => {
    const [registry, spa] = await Promise.all([startVerdaccio(), startSpa({ historyFallback: false })]);
    try {
      // Both crawled at once, interactively: the type-ahead, the sign-in dialog and the item lists become cases.
      const targets = [registry.url, spa.url];
      const sessions = await Promise.all(
        targets.map(async (url, i) => {
          const project = await gw('POST', '/api/v1/projects', { name: `SPA ${i}`, base_url: url });
          const started = await gw('POST', '/api/v1/discovery/start', { project_id: project.body.id, target_url: url, max_pages: 20, request_delay_ms: 0, interactive: true });
          expect(started.status).toBe(201);
          return { project: project.body.id as string, id: started.body.session_id as string };
        }),
      );
      for (const { project, id } of sessions) {
        await waitFor(id, 'completed');
        const results = await gw('GET', `/api/v1/discovery/${id}/results`);
        const types = new Set(results.body.flows.map((f: any) => f.type));
        // On a miss, what the crawl saw: a CI run under load once found no navigation flow on Verdaccio and it did not come back here.
        if (types.size !== 3) console.error(JSON.stringify({ pages: results.body.pages?.map((p: any) => p.url), flows: results.body.flows, warnings: results.body.warnings }, null, 1).slice(0, 20000));
        expect(types).toEqual(new Set(['authentication', 'search', 'navigation']));
        const plan = await gw('POST', '/api/v1/test-plans', { project_id: project, name: 'Discovered' });
        const generated = await gw('POST', `/api/v1/discovery/${id}/generate-test-cases`, { test_plan_id: plan.body.id });
        expect(generated.status).toBe(201);
        // Relative to the project's base URL, so the plan's environment decides where they run.
        for (const c of generated.body.test_cases) expect(c.steps.find((st: any) => st.action === 'navigate').value).toMatch(/^\//);
        const run = await gw('POST', '/api/v1/executions', { test_plan_id: plan.body.id, project_id: project });
        const failures = run.body.results.test_results.filter((r: any) => r.status !== 'passed').map((r: any) => `${r.name}: ${r.error}`);
        expect(failures).toEqual([]);
        expect(run.body).toMatchObject({ status: 'completed', passed_tests: results.body.flows.length, failed_tests: 0 });
      }
    } finally {
      await Promise.all([registry.close(), spa.close()]);
    }
  });

  it('pauses, resumes and cancels a session through the gateway, and refuses values outside the bounds', async () => {
    const project = await gw('POST', '/api/v1/projects', { name: 'Market 2', base_url: site.url });
    const started = await gw('POST', '/api/v1/discovery/start', { project_id: project.body.id, target_url: site.url, max_pages: 30, request_delay_ms: 300 });
    const id = started.body.session_id;
    const paused = await gw('POST', `/api/v1/discovery/${id}/pause`);
    expect(paused.body).toEqual({ session_id: id, status: 'paused', pages_crawled: expect.any(Number), paused_at: expect.any(String) });
    expect((await gw('POST', `/api/v1/discovery/${id}/pause`)).status).toBe(409);
    expect((await gw('POST', `/api/v1/discovery/${id}/resume`)).body).toEqual({ session_id: id, status: 'running', resumed_at: expect.any(String) });
    const cancelled = await gw('DELETE', `/api/v1/discovery/${id}`);
    expect(cancelled.body).toEqual({ session_id: id, status: 'cancelled', cancelled_at: expect.any(String), pages_crawled: expect.any(Number) });
    expect((await gw('DELETE', `/api/v1/discovery/${id}`)).body).toMatchObject({ error: 'conflict' });
    const tooMany = await gw('POST', '/api/v1/discovery/start', { project_id: project.body.id, target_url: site.url, max_pages: 5000 });
    expect(tooMany).toMatchObject({ status: 400, body: { error: 'validation_error', details: [{ field: 'max_pages' }] } });
  });

  it('lists the discovery routes in the OpenAPI document', async () => {
    const doc = await call(launched.assay.gatewayUrl, 'GET', '/api/v1/openapi.json');
    for (const path of ['/api/v1/discovery/start', '/api/v1/discovery/{session_id}/progress', '/api/v1/discovery/{session_id}/results', '/api/v1/discovery/{session_id}/pause', '/api/v1/discovery/{session_id}/resume', '/api/v1/discovery/{session_id}', '/api/v1/discovery/{session_id}/stream', '/api/v1/discovery/{session_id}/generate-test-cases']) {
      expect(doc.body.paths[path]).toBeDefined();
    }
    expect(doc.body.components.schemas.DiscoveryStartRequest.properties.max_pages).toMatchObject({ minimum: 1, maximum: 1000, default: 100 });
  });
});
