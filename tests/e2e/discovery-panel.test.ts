import { startRedoc } from '../discovery-panel/apps/redoc/app.js';
import type { RunningApp } from '../discovery-panel/support.js';
import { bearer, call } from './support/http.js';
import { waitForSession } from './support/discovery.js';
import { launchForFile } from './support/launcher.js';

// One real app of the discovery panel (tests/discovery-panel) in make test, through the real gateway, crawler,
// test-case service and runner: Redoc, a third-party API reference rendered by script on one page, whose side menu
// is menu items without links and whose search calls nothing. The whole panel is a bench (make bench BENCH=discovery-panel).
jest.setTimeout(300_000);

const launched = launchForFile();
let app: RunningApp;

const gw = (method: string, path: string, body?: unknown) => call(launched.assay.gatewayUrl, method, path, { headers: bearer(launched.assay.serviceKey), ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  app = await startRedoc();
});
afterAll(async () => {
  await app?.close();
});

describe('discovery on a real third-party app of the panel', () => {
  it('finds Redoc’s in-page side menu and its client-side search, holds no write, and the generated cases pass on the unchanged app', async () => {
    const project = await gw('POST', '/api/v1/projects', { name: 'Redoc', base_url: app.url });
    const started = await gw('POST', '/api/v1/discovery/start', { project_id: project.body.id, target_url: app.url, max_pages: 5, max_depth: 1, request_delay_ms: 0, interactive: true });
    expect(started.status).toBe(201);
    const id = started.body.session_id;
    await waitForSession(gw, id, 'completed');
    const results = (await gw('GET', `/api/v1/discovery/${id}/results`)).body;
    const navigation = results.flows.find((f: any) => f.type === 'navigation');
    expect(navigation.evidence[0]).toMatch(/menu entries move the page to its parts \(#tag\//);
    expect(navigation.steps.map((s: any) => s.action)).toEqual(['navigate', 'click', 'wait_for']);
    const search = results.flows.find((f: any) => f.type === 'search');
    expect(search.evidence.join(' ')).toMatch(/result\(s\) shown without a call \(client-side\)/);
    expect(results.api_endpoints.filter((e: any) => e.method !== 'GET')).toEqual([]);

    const plan = await gw('POST', '/api/v1/test-plans', { project_id: project.body.id, name: 'Discovered' });
    const generated = await gw('POST', `/api/v1/discovery/${id}/generate-test-cases`, { test_plan_id: plan.body.id });
    expect(generated.status).toBe(201);
    expect(generated.body.test_cases).toHaveLength(results.flows.length);
    const run = await gw('POST', '/api/v1/executions', { test_plan_id: plan.body.id, project_id: project.body.id });
    const failures = run.body.results.test_results.filter((r: any) => r.status !== 'passed').map((r: any) => `${r.name}: ${r.error}`);
    expect(failures).toEqual([]);
    expect(run.body).toMatchObject({ status: 'completed', passed_tests: results.flows.length, failed_tests: 0 });
  });
});
