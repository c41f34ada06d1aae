import { contractValidator } from '@assay/contracts';
import { startDiscoveryHarness, type DiscoveryHarness, type Tenant } from './harness.js';

jest.setTimeout(180_000);

let h: DiscoveryHarness;
let t: Tenant;

beforeAll(async () => {
  h = await startDiscoveryHarness();
  t = await h.tenant();
});
afterAll(() => h?.close());

/** The pages an interactive test needs: notes (CRUD by script), contact (a form post), sign-in, checkout and its payment form. */
const SCOPE = { max_depth: 2, include_patterns: ['/notes', '/contact', '/login', '/checkout', '/checkout/payment'] };

async function crawl(body: Record<string, unknown>) {
  h.site.reset();
  const id = await t.start({ ...SCOPE, ...body });
  await t.waitFor(id, 'completed', 150_000);
  return (await t.dc('GET', `/api/v1/discovery/${id}/results`)).body;
}

describe('interactive discovery', () => {
  let results: any;
  beforeAll(async () => {
    results = await crawl({ interactive: true, allow_writes: true });
  });

  it('submits forms and clicks in-page buttons, so the write endpoints appear with their real status codes and times', () => {
    expect(contractValidator().validate('DiscoveryResults', results)).toEqual([]);
    const byKey = new Map(results.api_endpoints.map((e: any) => [`${e.method} ${e.endpoint}`, e]));
    expect(byKey.get('POST /api/notes')).toMatchObject({ status_code: 201, calls: expect.any(Number) });
    expect(byKey.get('PUT /api/notes/{id}')).toMatchObject({ status_code: 200 });
    expect(byKey.get('DELETE /api/notes/{id}')).toMatchObject({ status_code: 204 });
    for (const k of ['POST /api/notes', 'PUT /api/notes/{id}', 'DELETE /api/notes/{id}']) {
      const e: any = byKey.get(k);
      expect(e.min_response_time_ms).toBeLessThanOrEqual(e.max_response_time_ms);
    }
    // The site really received them.
    const writes = h.site.writes.map((w) => `${w.method} ${w.path.replace(/\d+$/, '{id}')}`);
    expect(writes).toEqual(expect.arrayContaining(['POST /api/notes', 'PUT /api/notes/{id}', 'DELETE /api/notes/{id}', 'POST /contact', 'POST /login']));
  });

  it('backs the crud and form_submission flows with the calls it observed', () => {
    const crud = results.flows.find((f: any) => f.type === 'crud');
    expect(crud.evidence).toEqual(expect.arrayContaining([expect.stringMatching(/^observed .*POST \/api\/notes 201/)]));
    expect(crud.evidence.join(' ')).toMatch(/DELETE \/api\/notes\/\{id\} 204/);
    const contact = results.flows.find((f: any) => f.type === 'form_submission' && f.pages[0].endsWith('/contact'));
    expect(contact.evidence).toContain('submitted: POST /contact 200');
  });

  it('never submits a payment form, never follows a navigation while exploring, never visits what robots.txt disallows', () => {
    expect(h.site.writes.some((w) => w.path === '/checkout/confirm')).toBe(false);
    expect(h.site.requests.some((r) => r.path.startsWith('/private'))).toBe(false);
    // In scope only: a click that navigated away would have fetched a page outside it (the home page is the target).
    const outside = h.site.requests.filter((r) => !['/', '/notes', '/contact', '/login', '/checkout', '/checkout/payment'].includes(r.path.split('?')[0]!));
    expect(outside.filter((r) => !r.path.startsWith('/contact') && !r.path.startsWith('/login'))).toEqual([]);
  });

  it('signs in with a generated e-mail and a fresh password, not a fixed one', () => {
    const logins = h.site.writes.filter((w) => w.path === '/login');
    expect(logins.length).toBeGreaterThan(0);
    expect(logins[0]!.form!.email).toMatch(/^[a-z]+\.[0-9a-f]{6}@example\.com$/);
    expect(logins[0]!.form!.password!.length).toBeGreaterThanOrEqual(16);
  });
});

describe('interactive discovery without allow_writes (the default)', () => {
  it('fills, submits and clicks, but holds every call that would write in the browser: the target gets none, and the flows name the calls held', async () => {
    const results = await crawl({ interactive: true });
    expect(h.site.writes).toEqual([]);
    expect(results.api_endpoints.filter((e: any) => e.method !== 'GET')).toEqual([]);
    const crud = results.flows.find((f: any) => f.type === 'crud');
    expect(crud.evidence).toEqual(expect.arrayContaining([expect.stringMatching(/^held .*POST \/api\/notes/)]));
    const contact = results.flows.find((f: any) => f.type === 'form_submission' && f.pages.some((p: string) => p.endsWith('/contact')));
    expect(contact.evidence).toContain('would submit: POST /contact (held: the session does not allow writes)');
  });
});

describe('interactive, bad input', () => {
  it('refuses a non-boolean interactive with a 400 naming the field, and starts nothing', async () => {
    const before = (await h.events('discovery.session.started')).length;
    const res = await t.dc('POST', '/api/v1/discovery/start', { project_id: t.projectId, target_url: h.site.url, interactive: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_error');
    expect(JSON.stringify(res.body.details)).toContain('interactive');
    expect((await h.events('discovery.session.started')).length).toBe(before);
  });
});

describe('discovery without interactive (the default)', () => {
  it('changes nothing on the target and lists only the calls the pages made by themselves', async () => {
    const results = await crawl({});
    expect(h.site.writes).toEqual([]);
    expect(results.api_endpoints.filter((e: any) => e.method !== 'GET')).toEqual([]);
    expect(results.flows.find((f: any) => f.type === 'crud').evidence.join(' ')).not.toMatch(/observed/);
  });
});
