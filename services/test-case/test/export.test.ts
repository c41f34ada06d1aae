import { PRINCIPAL_HEADER, signPrincipal } from '@assay/principal';
import { TEST_INTERNAL_SECRET, useHarness } from '@assay/testing';
import { startTestCaseService, type Tenant } from './harness.js';

const svc = useHarness(() => startTestCaseService());

/** A GET whose answer is read as text (the harness parses JSON only). */
async function download(t: Tenant, path: string) {
  const res = await fetch(`${svc.server.url}${path}`, { headers: { [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, t.principal) } });
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), text: await res.text() };
}

describe('export', () => {
  it('exports a test case as a Playwright Test file against the project base URL, or an environment’s', async () => {
    const t = svc.tenant();
    const project = await t.project({ name: 'Shop', base_url: 'http://shop.test', environments: { staging: 'http://staging.shop.test' } });
    const tc = await t.testCase(project.id, {
      name: 'Login works',
      steps: [
        { action: 'navigate', value: '/login' },
        { action: 'fill', selector: '[data-testid="email"]', value: 'a@b.test', description: 'Type the e-mail' },
        { action: 'click', selector: 'button[type=submit]' },
      ],
    });
    const r = await download(t, `/api/v1/test-cases/${tc.id}/export?format=playwright`);
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^text\/plain/);
    expect(r.disposition).toBe('attachment; filename="login-works.spec.ts"');
    expect(r.text).toContain("import { test, expect, type Page } from '@playwright/test';");
    expect(r.text).toContain("const BASE_URL = process.env.BASE_URL ?? 'http://shop.test';");
    expect(r.text).toContain("test('Login works', async ({ page }) => {");
    expect(r.text).toContain("  // Type the e-mail\n  await page.getByTestId('email').first().fill('a@b.test');");
    expect(r.text).toContain("await page.locator('button[type=submit]').first().click();");
    expect(r.text).not.toContain('test.describe');

    const staging = await download(t, `/api/v1/test-cases/${tc.id}/export?environment=staging`);
    expect(staging.text).toContain("process.env.BASE_URL ?? 'http://staging.shop.test'");
    const unknown = await t.call('GET', `/api/v1/test-cases/${tc.id}/export?environment=prod`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([{ field: 'environment', message: 'must be one of staging' }]);
  });

  it('exports a plan’s active cases in run order inside a describe block', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const a = await t.testCase(project.id, { name: 'A first' });
    const b = await t.testCase(project.id, { name: 'B archived' });
    const c = await t.testCase(project.id, { name: 'C second' });
    const plan = (await t.call('POST', '/api/v1/test-plans', { project_id: project.id, name: 'Smoke plan', test_case_ids: [c.id, b.id, a.id] })).body;
    await t.call('DELETE', `/api/v1/test-cases/${b.id}`);
    const r = await download(t, `/api/v1/test-plans/${plan.id}/export`);
    expect(r.status).toBe(200);
    expect(r.disposition).toBe('attachment; filename="smoke-plan.spec.ts"');
    expect(r.text).toContain("test.describe('Smoke plan', () => {");
    expect(r.text).toContain('test plan "Smoke plan" of project "Shop", 2 test cases.');
    expect([...r.text.matchAll(/ {2}test\('([^']+)'/g)].map((m) => m[1])).toEqual(['C second', 'A first']);
  });

  it('exports import JSON that imports back into the same steps', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const tc = await t.testCase(project.id, {
      name: 'Round trip',
      description: 'kept',
      tags: ['smoke'],
      steps: [
        { action: 'navigate', value: '/' },
        { action: 'wait', selector: '#late', timeout: 2000 },
        { action: 'assert_text', selector: '#title', value: 'Assay: {{name}}' },
      ],
    });
    const r = await download(t, `/api/v1/test-cases/${tc.id}/export?format=json`);
    expect(r.type).toMatch(/^application\/json/);
    expect(r.disposition).toBe('attachment; filename="round-trip.json"');
    const other = await t.project({ name: 'Copy' });
    const imported = await t.upload('/api/v1/test-cases/import', { project_id: other.id }, { name: 'round-trip.json', type: 'application/json', content: r.text });
    expect(imported.body).toMatchObject({ imported: 1, failed: 0 });
    const copy = (await t.call('GET', `/api/v1/test-cases/${imported.body.results[0].id}`)).body;
    const strip = (steps: Array<{ step_id: string }>) => steps.map(({ step_id: _, ...s }) => s);
    expect({ name: copy.name, description: copy.description, tags: copy.tags, steps: strip(copy.steps) }).toEqual({
      name: 'Round trip',
      description: 'kept',
      tags: ['smoke'],
      steps: strip(tc.steps),
    });
  });

  it('refuses an unknown format and answers 404 for another organization’s or a malformed id', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const tc = await t.testCase(project.id);
    const plan = (await t.call('POST', '/api/v1/test-plans', { project_id: project.id, name: 'P', test_case_ids: [tc.id] })).body;
    const bad = await t.call('GET', `/api/v1/test-cases/${tc.id}/export?format=cypress`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'validation_error', details: [{ field: 'format', message: 'must be one of playwright, json' }] });
    const stranger = svc.tenant();
    for (const path of [`/api/v1/test-cases/${tc.id}/export`, `/api/v1/test-plans/${plan.id}/export`, '/api/v1/test-plans/not-a-uuid/export']) {
      const r = await stranger.call('GET', path);
      expect(r.status).toBe(404);
      expect(r.body.error).toBe('not_found');
    }
  });
});

describe('Selenium IDE import', () => {
  it('imports the mappable tests of a .side project and reports the others per row', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const side = {
      id: 'p',
      version: '2.0',
      name: 'Shop',
      url: 'http://shop.test',
      tests: [
        {
          id: 't1',
          name: 'Search',
          commands: [
            { id: '1', command: 'open', target: '/products', targets: [], value: '' },
            { id: '2', command: 'setWindowSize', target: '1280x800', targets: [], value: '' },
            { id: '3', command: 'type', target: 'id=q', targets: [['id=q', 'id']], value: 'shoes' },
            { id: '4', command: 'click', target: 'css=#search-button', targets: [], value: '' },
            { id: '5', command: 'assertText', target: 'css=#product-list', targets: [], value: 'Red Shoes' },
          ],
        },
        { id: 't2', name: 'Scripted', commands: [{ id: '1', command: 'executeScript', target: 'return 1', targets: [], value: 'x' }] },
      ],
      suites: [],
      urls: [],
      plugins: [],
    };
    const r = await t.upload('/api/v1/test-cases/import', { project_id: project.id }, { name: 'shop.side', type: 'application/octet-stream', content: JSON.stringify(side) });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      imported: 1,
      failed: 1,
      results: [
        { name: 'Search', id: expect.any(String), status: 'imported', row: 1 },
        { name: 'Scripted', id: null, status: 'failed', row: 2, error: 'row 2: command 1 "executeScript" has no Assay action' },
      ],
    });
    const search = (await t.call('GET', `/api/v1/test-cases/${r.body.results[0].id}`)).body;
    expect(search.steps.map(({ step_id: _, ...s }: { step_id: string }) => s)).toEqual([
      { action: 'navigate', value: '/products' },
      { action: 'fill', selector: '#q', value: 'shoes' },
      { action: 'click', selector: '#search-button' },
      { action: 'assert_text', selector: '#product-list', value: 'Red Shoes' },
    ]);
    const created = await svc.events({ type: 'test.case.created', key: search.id });
    expect(created[0]!.data.source).toBe('import');
  });
});
