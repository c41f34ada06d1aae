import { startTestCaseService, type TestCaseHarness } from './harness.js';
import { useHarness } from '@assay/testing';

const svc = useHarness(() => startTestCaseService());

const csvFile = (content: string) => ({ name: 'cases.csv', type: 'text/csv', content });
const count = async (t: ReturnType<TestCaseHarness['tenant']>, projectId: string) =>
  (await t.call('GET', `/api/v1/test-cases?project_id=${projectId}&status=all&limit=1`)).body.pagination.total as number;

describe('import', () => {
  it('imports CSV rows with quoted commas and colons, and reports a failed row without blocking the others', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const csv = [
      'Name,Description,Step 1,Step 2,Step 3',
      '"Checkout, happy path","Pays: card",navigate:https://shop.example.test/cart?x=1:2,"assert_text:#total:Total: $20, incl. tax",click:a:hover',
      'Broken,,fill:#email,,',
      'Wait for it,,wait:#spinner\\:done:5000,"fill:input\\:focus:12:30",',
    ].join('\r\n');
    const r = await t.upload('/api/v1/test-cases/import', { project_id: project.id }, csvFile(csv));
    expect(r.status).toBe(200);
    expect(r.body.imported).toBe(2);
    expect(r.body.failed).toBe(1);
    expect(r.body.results).toEqual([
      { name: 'Checkout, happy path', id: expect.any(String), status: 'imported', row: 1 },
      { name: 'Broken', id: null, status: 'failed', row: 2, error: expect.stringMatching(/^row 2: .*value/) },
      { name: 'Wait for it', id: expect.any(String), status: 'imported', row: 3 },
    ]);
    const checkout = (await t.call('GET', `/api/v1/test-cases/${r.body.results[0].id}`)).body;
    expect(checkout.description).toBe('Pays: card');
    expect(checkout.steps.map(({ step_id: _, ...s }: { step_id: string }) => s)).toEqual([
      { action: 'navigate', value: 'https://shop.example.test/cart?x=1:2' },
      { action: 'assert_text', selector: '#total', value: 'Total: $20, incl. tax' },
      { action: 'click', selector: 'a:hover' },
    ]);
    const wait = (await t.call('GET', `/api/v1/test-cases/${r.body.results[2].id}`)).body;
    expect(wait.steps.map(({ step_id: _, ...s }: { step_id: string }) => s)).toEqual([
      { action: 'wait', selector: '#spinner:done', timeout: 5000 },
      { action: 'fill', selector: 'input:focus', value: '12:30' },
    ]);
    const created = await svc.events({ type: 'test.case.created', key: r.body.results[0].id });
    expect(created[0]!.data.source).toBe('import');
  });

  it('imports a JSON array of cases', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const cases = [
      { name: 'One', description: 'first', steps: [{ action: 'navigate', value: '/' }] },
      { name: 'Two', steps: [{ action: 'click' }] },
    ];
    const r = await t.upload('/api/v1/test-cases/import', { project_id: project.id }, { name: 'cases.json', type: 'application/json', content: JSON.stringify(cases) });
    expect(r.body.imported).toBe(1);
    expect(r.body.results[1]).toMatchObject({ name: 'Two', status: 'failed', row: 2, error: expect.stringMatching(/^row 2: .*selector/) });
  });

  it('imports 10,000 rows in one call', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const lines = ['Name,Description,Step 1,Step 2,Step 3,Step 4'];
    for (let i = 0; i < 10_000; i++) lines.push(`Case ${i},generated,navigate:/p/${i},fill:#q:item ${i},click:#go,assert_visible:#result`);
    const r = await t.upload('/api/v1/test-cases/import', { project_id: project.id }, csvFile(lines.join('\n')));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ imported: 10_000, failed: 0 });
    expect(new Set(r.body.results.map((x: { id: string }) => x.id)).size).toBe(10_000);
    expect(await count(t, project.id)).toBe(10_000);
    expect((await svc.events({ type: 'test.case.created' })).filter((e) => e.organization_id === t.orgId)).toHaveLength(10_000);
  }, 120_000);

  it('refuses 10,001 rows with 413 before inserting anything', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const lines = ['Name,Description,Step 1'];
    for (let i = 0; i < 10_001; i++) lines.push(`Case ${i},,navigate:/`);
    const r = await t.upload('/api/v1/test-cases/import', { project_id: project.id }, csvFile(lines.join('\n')));
    expect(r.status).toBe(413);
    expect(r.body.error).toBe('payload_too_large');
    expect(await count(t, project.id)).toBe(0);
  });

  it('refuses malformed files, wrong content types and missing fields with a clear 4xx', async () => {
    const t = svc.tenant();
    const project = await t.project();
    const cases: Array<[Record<string, string>, Parameters<typeof t.upload>[2], number]> = [
      [{ project_id: project.id }, csvFile('Title,Steps\nx,navigate:/'), 400],
      [{ project_id: project.id }, csvFile('Name,Description,Step 1\n"unclosed,,navigate:/'), 400],
      [{ project_id: project.id }, { name: 'cases.json', type: 'application/json', content: '[{"name": ' }, 400],
      [{ project_id: project.id }, { name: 'cases.json', type: 'application/json', content: '{"name": "not an array"}' }, 400],
      [{ project_id: project.id }, { name: 'logo.png', type: 'image/png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]) }, 415],
      [{ project_id: project.id }, undefined, 400],
      [{}, csvFile('Name,Description,Step 1\nx,,navigate:/'), 400],
      [{ project_id: '00000000-0000-4000-8000-000000000000' }, csvFile('Name,Description,Step 1\nx,,navigate:/'), 404],
    ];
    for (const [fields, file, status] of cases) {
      const r = await t.upload('/api/v1/test-cases/import', fields, file);
      expect({ status: r.status, hasMessage: typeof r.body?.message === 'string' }).toEqual({ status, hasMessage: true });
    }
    const json = await t.call('POST', '/api/v1/test-cases/import', { project_id: project.id });
    expect(json.status).toBe(415);
    expect(await count(t, project.id)).toBe(0);
  });
});
