import { servicePrincipal, signPrincipal, PRINCIPAL_HEADER } from '@assay/principal';
import { TEST_INTERNAL_SECRET, useHarness } from '@assay/testing';
import { startTestCaseService } from './harness.js';

const svc = useHarness(() => startTestCaseService());

describe('projects', () => {
  it('creates, reads, lists, updates and deletes a project with environments', async () => {
    const t = svc.tenant();
    const created = await t.call('POST', '/api/v1/projects', {
      name: 'Shop',
      description: 'the storefront',
      base_url: 'https://shop.example.test',
      environments: { staging: 'https://staging.shop.example.test', prod: 'https://shop.example.test' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Shop', base_url: 'https://shop.example.test', environments: { staging: 'https://staging.shop.example.test' } });
    const list = await t.call('GET', '/api/v1/projects');
    expect(list.body).toEqual({ data: [created.body], pagination: { limit: 50, offset: 0, total: 1 } });
    const updated = await t.call('PUT', `/api/v1/projects/${created.body.id}`, { environments: { qa: 'http://localhost:3000' } });
    expect(updated.body.environments).toEqual({ qa: 'http://localhost:3000' });
    expect(updated.body.name).toBe('Shop');
    const del = await t.call('DELETE', `/api/v1/projects/${created.body.id}`);
    expect(del.body).toMatchObject({ id: created.body.id, test_cases_removed: 0, test_plans_removed: 0 });
    expect((await t.call('GET', `/api/v1/projects/${created.body.id}`)).status).toBe(404);
  });

  it('refuses bad project input and deleting a project with content unless forced', async () => {
    const t = svc.tenant();
    for (const body of [{ name: 'x', base_url: 'ftp://x' }, { name: 'x', base_url: 'not a url' }, { base_url: 'https://x.test' }, { name: 'x', base_url: 'https://x.test', environments: { 'bad name!': 'https://x.test' } }]) {
      const r = await t.call('POST', '/api/v1/projects', body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('validation_error');
    }
    const project = await t.project();
    await t.testCase(project.id);
    const refused = await t.call('DELETE', `/api/v1/projects/${project.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.details).toEqual({ cases: 1, plans: 0 });
    const forced = await t.call('DELETE', `/api/v1/projects/${project.id}?force=true`);
    expect(forced.body.test_cases_removed).toBe(1);
  });
});

describe('test plans', () => {
  it('keeps cases in order, adds idempotently, removes, and keeps archived cases listed', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const [a, b, c] = [await t.testCase(project.id, { name: 'a' }), await t.testCase(project.id, { name: 'b' }), await t.testCase(project.id, { name: 'c' })];
    const plan = await t.call('POST', '/api/v1/test-plans', { project_id: project.id, name: 'Smoke', test_case_ids: [b.id, a.id] });
    expect(plan.status).toBe(201);
    expect(plan.body).toMatchObject({ project_id: project.id, name: 'Smoke', description: null, test_case_ids: [b.id, a.id] });

    const added = await t.call('POST', `/api/v1/test-plans/${plan.body.id}/test-cases`, { test_case_id: c.id });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ added: true, test_case_id: c.id, test_plan: { test_case_ids: [b.id, a.id, c.id] } });
    const again = await t.call('POST', `/api/v1/test-plans/${plan.body.id}/test-cases`, { test_case_id: c.id });
    expect(again.status).toBe(200);
    expect(again.body.added).toBe(false);
    expect(again.body.test_plan.test_case_ids).toEqual([b.id, a.id, c.id]);

    const removed = await t.call('DELETE', `/api/v1/test-plans/${plan.body.id}/test-cases/${a.id}`);
    expect(removed.body.test_case_ids).toEqual([b.id, c.id]);
    expect((await t.call('DELETE', `/api/v1/test-plans/${plan.body.id}/test-cases/${a.id}`)).status).toBe(404);

    await t.call('DELETE', `/api/v1/test-cases/${b.id}`);
    expect((await t.call('GET', `/api/v1/test-plans/${plan.body.id}`)).body.test_case_ids).toEqual([b.id, c.id]);

    const reordered = await t.call('PUT', `/api/v1/test-plans/${plan.body.id}`, { name: 'Smoke 2', test_case_ids: [c.id, a.id] });
    expect(reordered.body).toMatchObject({ name: 'Smoke 2', test_case_ids: [c.id, a.id] });
    const list = await t.call('GET', `/api/v1/test-plans?project_id=${project.id}`);
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([plan.body.id]);

    const del = await t.call('DELETE', `/api/v1/test-plans/${plan.body.id}`);
    expect(del.body.id).toBe(plan.body.id);
    expect((await t.call('GET', `/api/v1/test-cases/${c.id}`)).status).toBe(200);
  });

  it('refuses cases from another project or organization in a plan', async () => {
    const t = svc.tenant();
    const other = svc.tenant();
    const project = await t.project();
    const elsewhere = await t.testCase((await t.project()).id);
    const foreign = await other.testCase((await other.project()).id);
    const r = await t.call('POST', '/api/v1/test-plans', { project_id: project.id, name: 'p', test_case_ids: [elsewhere.id, foreign.id] });
    expect(r.status).toBe(400);
    expect(r.body.details.map((d: { field: string }) => d.field)).toEqual(['test_case_ids[0]', 'test_case_ids[1]']);
    const plan = await t.call('POST', '/api/v1/test-plans', { project_id: project.id, name: 'p' });
    expect((await t.call('POST', `/api/v1/test-plans/${plan.body.id}/test-cases`, { test_case_id: elsewhere.id })).status).toBe(400);
    expect((await t.call('POST', `/api/v1/test-plans/${plan.body.id}/test-cases`, { test_case_id: foreign.id })).status).toBe(404);
  });

  it('gives execution-runner a snapshot of the plan with its project and active cases in order', async () => {
    const t = svc.tenant();
    const project = await t.project({ environments: { staging: 'https://staging.example.test' } });
    const [a, b, c] = [await t.testCase(project.id, { name: 'a' }), await t.testCase(project.id, { name: 'b' }), await t.testCase(project.id, { name: 'c' })];
    const plan = await t.call('POST', '/api/v1/test-plans', { project_id: project.id, name: 'p', test_case_ids: [c.id, a.id, b.id] });
    await t.call('DELETE', `/api/v1/test-cases/${a.id}`);
    const snapshot = async (orgId: string | null) => {
      const res = await fetch(`${svc.server.url}/internal/test-plans/${plan.body.id}/snapshot`, {
        headers: { [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, { ...servicePrincipal('execution-runner'), org_id: orgId }) },
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const r = await snapshot(t.orgId);
    expect(r.status).toBe(200);
    expect(r.body.project).toMatchObject({ id: project.id, base_url: project.base_url, environments: { staging: 'https://staging.example.test' } });
    expect(r.body.test_cases.map((x: { id: string }) => x.id)).toEqual([c.id, b.id]);
    expect(r.body.test_cases[0].steps).toEqual(c.steps);
    expect(r.body.skipped_archived).toBe(1);
    expect((await snapshot(svc.tenant().orgId)).status).toBe(404);
    expect((await snapshot(null)).status).toBe(403);
    expect((await t.call('GET', `/internal/test-plans/${plan.body.id}/snapshot`)).status).toBe(403);
  });
});
