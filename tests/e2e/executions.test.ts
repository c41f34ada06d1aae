import { startShop } from '../fixtures/shop/server.js';
import { bearer, call } from './support/http.js';
import { launchForFile } from './support/launcher.js';

// A plan run in real Chromium through the real gateway, test-case and
// execution-runner processes, against the fixture shop.
jest.setTimeout(120_000);

const launched = launchForFile();

let shop: Awaited<ReturnType<typeof startShop>>;

const gw = (method: string, path: string, body?: unknown, credential = launched.assay.serviceKey) =>
  call(launched.assay.gatewayUrl, method, path, { headers: bearer(credential), ...(body !== undefined ? { body } : {}) });

async function plan(cases: Record<string, unknown[]>) {
  const project = await gw('POST', '/api/v1/projects', { name: 'Shop', base_url: shop.url });
  const ids: string[] = [];
  for (const [name, steps] of Object.entries(cases)) ids.push((await gw('POST', '/api/v1/test-cases', { project_id: project.body.id, name, steps })).body.id);
  const p = await gw('POST', '/api/v1/test-plans', { project_id: project.body.id, name: 'E2E', test_case_ids: ids });
  return { projectId: project.body.id as string, planId: p.body.id as string };
}

beforeAll(async () => {
  shop = await startShop();
});

afterAll(async () => {
  await shop?.close();
});

describe('executions through the gateway', () => {
  it('runs a plan synchronously and serves its failure screenshot as a PNG', async () => {
    const { projectId, planId } = await plan({
      'Search finds shoes': [
        { action: 'navigate', value: '/products' },
        { action: 'fill', selector: '#q', value: 'shoes' },
        { action: 'click', selector: '#search-button' },
        { action: 'assert_text', selector: '#product-list', value: 'Red Shoes' },
      ],
      'Wrong price': [
        { action: 'navigate', value: '/products/1' },
        { action: 'assert_text', selector: '#price', value: '$99.00' },
      ],
    });
    const r = await gw('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'completed', passed_tests: 1, failed_tests: 1, results: { summary: { total: 2, passed: 1, failed: 1, skipped: 0 } } });
    const failed = r.body.results.test_results[1];
    expect(failed.error).toBe('Expected text "$99.00" but found "$20.00"');
    expect(failed.screenshot.startsWith(`${launched.assay.gatewayUrl}/api/v1/artifacts/`)).toBe(true);
    const png = await fetch(failed.screenshot, { headers: bearer(launched.assay.serviceKey) });
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await png.arrayBuffer()).subarray(0, 4).toString('hex')).toBe('89504e47');
    expect((await fetch(failed.screenshot)).status).toBe(401);
    expect((await gw('GET', `/api/executions/${r.body.id}`)).body.id).toBe(r.body.id);
  });

  it('streams an asynchronous run through the gateway as Server-Sent Events', async () => {
    const { projectId, planId } = await plan({ 'Home loads': [{ action: 'navigate', value: '/' }, { action: 'assert_visible', selector: '#title' }] });
    const queued = await gw('POST', '/api/v1/executions/async', { test_plan_id: planId, project_id: projectId });
    expect(queued.status).toBe(202);
    const res = await fetch(`${launched.assay.gatewayUrl}/api/v1/executions/${queued.body.id}/stream`, { headers: bearer(launched.assay.serviceKey) });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await res.text();
    expect([...text.matchAll(/event: (\w+)/g)].map((m) => m[1])).toEqual(expect.arrayContaining(['test_started', 'step_finished', 'test_finished', 'completed']));
    const status = await gw('GET', queued.body.polling_url);
    expect(status.body).toMatchObject({ status: 'completed', passed_tests: 1, total_tests: 1 });
  });

  it('takes a file uploaded through the gateway to the page in an upload step, next to the added assertions and history steps', async () => {
    const form = new FormData();
    form.append('file', new Blob(['hello from assay\n'], { type: 'text/plain' }), 'notes.txt');
    const res = await fetch(`${launched.assay.gatewayUrl}/api/v1/artifacts`, { method: 'POST', headers: bearer(launched.assay.serviceKey), body: form });
    expect(res.status).toBe(201);
    const artifact = (await res.json()) as { id: string; url: string };
    expect(artifact).toMatchObject({ kind: 'upload', filename: 'notes.txt', content_type: 'text/plain', size: 17, url: `${launched.assay.gatewayUrl}/api/v1/artifacts/${artifact.id}` });
    const { projectId, planId } = await plan({
      'Upload and history': [
        { action: 'navigate', value: '/upload' },
        { action: 'upload', selector: '#file', value: artifact.id },
        { action: 'assert_text', selector: '#file-text', value: '/^hello from assay$/' },
        { action: 'navigate', value: '/todos' },
        { action: 'type', selector: '#new-todo', value: 'ship it\n' },
        { action: 'assert_count', selector: '#todo-list li', value: '1' },
        { action: 'assert_value', selector: '#new-todo', value: '' },
        { action: 'go_back' },
        { action: 'assert_url', value: '/upload' },
      ],
    });
    const run = await gw('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId });
    expect(run.body.results.test_results.map((r: any) => [r.status, r.error ?? null])).toEqual([['passed', null]]);
    const download = await fetch(artifact.url, { headers: bearer(launched.assay.serviceKey) });
    expect(download.headers.get('content-disposition')).toBe('attachment; filename=notes.txt');
    expect(await download.text()).toBe('hello from assay\n');
  });

  it('lists the execution routes in the OpenAPI document and the reference page', async () => {
    const doc = await call(launched.assay.gatewayUrl, 'GET', '/api/v1/openapi.json');
    for (const path of ['/api/v1/executions', '/api/v1/executions/async', '/api/v1/executions/{execution_id}/status', '/api/v1/executions/{execution_id}/results', '/api/v1/executions/{execution_id}/stream', '/api/v1/artifacts/{artifact_id}', '/api/v1/artifacts']) {
      expect(doc.body.paths[path]).toBeDefined();
    }
    expect(doc.body.components.schemas.ExecutionCreateRequest.properties.wait_for_completion.default).toBe(true);
    // The reference page renders this document in the browser.
    expect(doc.body.paths['/api/v1/executions/{execution_id}/stream'].get.tags).toEqual(['Executions']);
    const page = await fetch(`${launched.assay.gatewayUrl}/docs`);
    expect(await page.text()).toContain('/docs/assets/swagger-ui-bundle.js');
  });
});
