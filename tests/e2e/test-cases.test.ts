import { SPEC_STEP_ACTIONS, STEP_ACTIONS } from '@assay/contracts';
import { bearer, call } from './support/http.js';
import { launchForFile } from './support/launcher.js';

// Projects, test cases and plans through the real gateway in front of the real
// test-case process, with the service key `make run` prints.
jest.setTimeout(120_000);

const launched = launchForFile();


const gw = (method: string, path: string, body?: unknown, credential = launched.assay.serviceKey) =>
  call(launched.assay.gatewayUrl, method, path, { headers: bearer(credential), ...(body !== undefined ? { body } : {}) });



describe('test cases through the gateway', () => {
  it('serves every prefix: P1 CRUD, the P0 project list and the P2 list for sk_live_ keys', async () => {
    const project = await gw('POST', '/api/v1/projects', { name: 'Shop', base_url: 'http://localhost:3000', environments: { staging: 'https://staging.test' } });
    expect(project.status).toBe(201);
    const p0 = await gw('GET', '/api/projects');
    expect(p0.body.data.map((p: { id: string }) => p.id)).toContain(project.body.id);

    const apiKey = await gw('POST', '/api/api-keys', { name: 'reader', scopes: ['projects:read', 'test_cases:read'] });
    const p2 = await call(launched.assay.gatewayUrl, 'GET', '/v1/projects?limit=1', { headers: { 'x-api-key': apiKey.body.key } });
    expect(p2.status).toBe(200);
    expect(p2.body.pagination.limit).toBe(1);

    const created = await gw('POST', '/api/v1/test-cases', {
      project_id: project.body.id,
      name: 'Search',
      steps: [{ action: 'navigate', value: '/search' }, { action: 'fill', selector: '#q', value: 'shoes' }],
    });
    expect(created.status).toBe(201);
    // The unversioned alias reads the same case; the read-only key may read but not write.
    expect((await gw('GET', `/api/test-cases/${created.body.id}`)).body).toEqual(created.body);
    expect((await gw('GET', `/api/v1/test-cases/${created.body.id}`, undefined, apiKey.body.key)).status).toBe(200);
    const write = await gw('PUT', `/api/v1/test-cases/${created.body.id}`, { name: 'x' }, apiKey.body.key);
    expect(write.status).toBe(403);
    expect(write.body.message).toMatch(/test_cases:write/);

    const plan = await gw('POST', '/api/v1/test-plans', { project_id: project.body.id, name: 'Smoke' });
    const added = await gw('POST', `/api/v1/test-plans/${plan.body.id}/test-cases`, { test_case_id: created.body.id });
    expect(added.status).toBe(201);
    expect(added.body.test_plan.test_case_ids).toEqual([created.body.id]);
  });

  it('streams a multipart CSV import through the gateway', async () => {
    const project = await gw('POST', '/api/v1/projects', { name: 'Import', base_url: 'http://localhost:3000' });
    const rows = ['Name,Description,Step 1,Step 2'];
    for (let i = 0; i < 2000; i++) rows.push(`"Case ${i}, imported","colons: fine",navigate:/item/${i},"assert_text:h1:Item: ${i}"`);
    const form = new FormData();
    form.append('project_id', project.body.id);
    form.append('file', new Blob([rows.join('\n')], { type: 'text/csv' }), 'cases.csv');
    const res = await fetch(`${launched.assay.gatewayUrl}/api/v1/test-cases/import`, { method: 'POST', headers: bearer(launched.assay.serviceKey), body: form });
    const body = (await res.json()) as { imported: number; failed: number; results: Array<{ id: string }> };
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ imported: 2000, failed: 0 });
    const one = await gw('GET', `/api/v1/test-cases/${body.results[1999]!.id}`);
    expect(one.body.name).toBe('Case 1999, imported');
    expect(one.body.steps[1]).toMatchObject({ action: 'assert_text', selector: 'h1', value: 'Item: 1999' });

    const bulk = await gw('POST', '/api/v1/test-cases/bulk-delete', { test_case_ids: body.results.slice(0, 1000).map((r) => r.id) });
    expect(bulk.body).toMatchObject({ deleted: 1000, failed: 0 });
    const left = await gw('GET', `/api/v1/test-cases?project_id=${project.body.id}&limit=1`);
    expect(left.body.pagination.total).toBe(1000);
  });

  it('lists the test-case routes with their schemas in the OpenAPI document', async () => {
    const doc = await call(launched.assay.gatewayUrl, 'GET', '/api/v1/openapi.json');
    for (const path of ['/api/v1/test-cases', '/api/v1/test-cases/{test_case_id}', '/api/v1/test-cases/bulk-delete', '/api/v1/test-cases/import', '/api/v1/test-plans/{test_plan_id}/test-cases', '/v1/projects']) {
      expect(doc.body.paths[path]).toBeDefined();
    }
    // The spec's 13 actions first, then the added ones, each described.
    expect(doc.body.components.schemas.StepInput.properties.action.enum).toEqual(Object.keys(STEP_ACTIONS));
    expect(doc.body.components.schemas.StepInput.properties.action.enum.slice(0, 13)).toEqual(SPEC_STEP_ACTIONS);
    expect(doc.body.components.schemas.StepInput.description).toContain('- `assert_count` (selector, value): Exactly that many elements match');
  });
});
