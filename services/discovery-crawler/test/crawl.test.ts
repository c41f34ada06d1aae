import { randomUUID } from 'node:crypto';
import { contractValidator } from '@assay/contracts';
import { startDiscoveryHarness, readStream, type DiscoveryHarness, type Tenant } from './harness.js';

jest.setTimeout(120_000);

let h: DiscoveryHarness;
let t: Tenant;
let sessionId: string;
let results: any;

beforeAll(async () => {
  h = await startDiscoveryHarness();
  t = await h.tenant();
  sessionId = await t.start({ max_depth: 5 });
  await t.waitFor(sessionId, 'completed');
  results = (await t.dc('GET', `/api/v1/discovery/${sessionId}/results`)).body;
});
afterAll(() => h?.close());

const paths = (urls: string[]) => urls.map((u) => u.slice(h.site.url.length) || '/');

describe('a crawl of the fixture site', () => {
  it('answers results in the contract shape with every reachable page once', async () => {
    expect(contractValidator().validate('DiscoveryResults', results)).toEqual([]);
    const crawled = paths(results.pages.map((p: any) => p.url));
    expect(new Set(crawled).size).toBe(crawled.length);
    expect(crawled).toEqual(expect.arrayContaining(['/', '/login', '/products', '/products/1', '/products/8', '/cart', '/checkout', '/checkout/payment', '/notes', '/articles', '/articles/12', '/about', '/help', '/contact', '/files/guide.pdf', '/account', '/deep/5']));
    expect(results.pages.length).toBeGreaterThanOrEqual(30);
    expect(results.summary.total_pages).toBe(results.pages.length);
    const home = results.pages.find((p: any) => p.url === `${h.site.url}/`);
    expect(home).toMatchObject({ title: 'Home - Assay Market', status_code: 200, content_type: 'text/html', depth: 0 });
    expect(home.links_found).toBeGreaterThan(10);
    expect(results.pages.find((p: any) => p.url.endsWith('/contact'))).toMatchObject({ forms_found: 1 });
    expect(results.pages.find((p: any) => p.url.endsWith('/products'))).toMatchObject({ api_calls: 1 });
  });

  it('honours robots.txt, max_depth and the origin, and records what it does not render', () => {
    const crawled = paths(results.pages.map((p: any) => p.url));
    expect(crawled).not.toContain('/private/area');
    expect(crawled).not.toContain('/deep/6');
    expect(results.pages.every((p: any) => p.url.startsWith(h.site.url))).toBe(true);
    expect(h.site.requests.some((r) => r.path.startsWith('/private') || r.path.startsWith('/deep/6'))).toBe(false);
    expect(results.pages.find((p: any) => p.url.endsWith('/files/guide.pdf'))).toMatchObject({ status_code: 200, content_type: 'application/pdf', links_found: 0 });
    expect(results.pages.find((p: any) => p.url.endsWith('/account'))).toMatchObject({ status_code: 302 });
    expect(Math.max(...results.pages.map((p: any) => p.depth))).toBe(5);
    // Said, with the links refused, each once however many pages show it.
    expect(results.warnings).toEqual([expect.objectContaining({ code: 'robots_blocked', pages: [`${h.site.url}/private/area`], count: 1 })]);
  });

  it('lists the API endpoints once each with ids templated', () => {
    const endpoints = results.api_endpoints.map((e: any) => `${e.method} ${e.endpoint}`);
    expect(endpoints).toEqual(expect.arrayContaining(['GET /api/products', 'GET /api/products/{id}', 'GET /api/notes']));
    expect(new Set(endpoints).size).toBe(endpoints.length);
    expect(results.api_endpoints.find((e: any) => e.endpoint === '/api/products/{id}')).toMatchObject({ status_code: 200, calls: 8 });
  });

  it('folds sibling paths that differ in one segment into one {slug} endpoint, with its calls and min/median/max time', () => {
    const stock = results.api_endpoints.filter((e: any) => e.endpoint.startsWith('/api/stock/'));
    // Eight product pages, each calling /api/stock/<its slug> once: one endpoint, not eight.
    expect(stock).toHaveLength(1);
    expect(stock[0]).toMatchObject({ method: 'GET', endpoint: '/api/stock/{slug}', status_code: 200, calls: 8, paths: 8 });
    const { min_response_time_ms: min, median_response_time_ms: median, max_response_time_ms: max, response_time_ms } = stock[0];
    expect(min).toBeGreaterThanOrEqual(0);
    expect(min).toBeLessThanOrEqual(median);
    expect(median).toBeLessThanOrEqual(max);
    expect(response_time_ms).toBe(median);
    // Numeric ids stay {id}, a path of its own.
    expect(results.api_endpoints.find((e: any) => e.endpoint === '/api/products/{id}')).toMatchObject({ paths: 1 });
  });

  it('detects a flow of each type from structure and network behaviour', () => {
    const byType = (type: string) => results.flows.filter((f: any) => f.type === type);
    expect(new Set(results.flows.map((f: any) => f.type))).toEqual(new Set(['authentication', 'checkout', 'search', 'form_submission', 'navigation', 'crud']));
    expect(byType('authentication')[0]).toMatchObject({ pages: [`${h.site.url}/login`, `${h.site.url}/login`].slice(0, 1).concat(byType('authentication')[0].pages.slice(1)) });
    expect(byType('authentication')[0].steps).toEqual(
      expect.arrayContaining([{ action: 'navigate', url: `${h.site.url}/login` }, { action: 'fill_form', selector: '#password', value: expect.any(String) }, { action: 'submit', selector: '#sign-in' }]),
    );
    expect(paths(byType('checkout')[0].pages)).toEqual(['/cart', '/checkout', '/checkout/payment']);
    // Several forms are searches; which comes first depends on the order the tabs finished in.
    const productSearch = byType('search').find((f: any) => paths(f.pages).includes('/products'));
    // Found by what the form affords (a search box); the results its page fetched with the term back it.
    expect(productSearch.evidence).toEqual(['search input', 'results fetched from /api/products']);
    expect(byType('crud')[0]).toMatchObject({ pages: [`${h.site.url}/notes`] });
    expect(byType('crud')[0].evidence[0]).toBe('DELETE, GET, POST, PUT on /api/notes');
    expect(paths(byType('form_submission').map((f: any) => f.pages[0]))).toContain('/contact');
    expect(paths(byType('navigation')[0].pages)).toEqual(expect.arrayContaining(['/', '/products', '/cart', '/notes']));
    expect(results.summary.unique_flows).toBe(results.flows.length);
    expect(results.summary.discovery_confidence).toBeGreaterThan(0.5);
    expect(results.summary.discovery_confidence).toBeLessThanOrEqual(1);
  });

  it('finds UI patterns with examples', () => {
    const types = new Set(results.patterns.map((p: any) => p.type));
    for (const type of ['form', 'navigation', 'table', 'list', 'modal', 'pagination']) expect(types).toContain(type);
    const nav = results.patterns.find((p: any) => p.type === 'navigation' && p.location === 'header');
    expect(nav.links).toBe(7);
    expect(nav.occurrences).toBeGreaterThan(20);
    const login = results.patterns.find((p: any) => p.type === 'form' && p.examples.some((e: string) => e.endsWith('/login')));
    expect(login).toMatchObject({ occurrences: 1, average_fields: 2 });
    expect(results.summary.ui_patterns).toBe(results.patterns.length);
  });

  it('reports progress at 100 % and wrote the three discovery events', async () => {
    const progress = (await t.dc('GET', `/api/v1/discovery/${sessionId}/progress`)).body;
    expect(contractValidator().validate('DiscoveryProgress', progress)).toEqual([]);
    expect(progress).toMatchObject({ status: 'completed', progress: { percent: 100, pages_crawled: results.pages.length, flows_detected: results.flows.length, api_endpoints: results.api_endpoints.length, patterns_found: results.patterns.length } });
    const started = await h.events('discovery.session.started');
    expect(started[0]).toMatchObject({ organization_id: t.orgId, project_id: t.projectId, data: { session_id: sessionId, target_url: `${h.site.url}/`, configuration: { max_pages: 100, max_depth: 5, request_delay_ms: 0 } } });
    const flows = await h.events('discovery.flow.detected');
    expect(flows.map((e) => e.data.flow.flow_id).sort()).toEqual(results.flows.map((f: any) => f.flow_id).sort());
    const completed = await h.events('discovery.session.completed');
    expect(completed).toHaveLength(1);
    expect(completed[0].data).toMatchObject({ session_id: sessionId, pages_found: results.pages.length, flows_detected: results.flows.length });
    // Internal page-count events, which auth meters: together they count every crawled page once.
    const pages = await h.events('discovery.pages.crawled');
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.reduce((sum, e) => sum + e.data.pages, 0)).toBe(results.pages.length);
    expect(new Set(pages.map((e) => e.data.session_id))).toEqual(new Set([sessionId]));
    expect(await h.events('discovery.page.crawled')).toEqual([]);
  });

  it('replays the stream after completion and ends it', async () => {
    const { events } = await readStream(`${t && h.url}/api/v1/discovery/${sessionId}/stream`, await t.headers());
    const pages = events.filter((e) => e.event === 'page_discovered');
    expect(pages).toHaveLength(results.pages.length);
    expect(pages[0]!.data).toMatchObject({ url: `${h.site.url}/`, title: 'Home - Assay Market', status_code: 200, depth: 0 });
    expect(events.filter((e) => e.event === 'flow_detected').map((e) => e.data.type).sort()).toEqual(results.flows.map((f: any) => f.type).sort());
    expect(events[events.length - 1]).toMatchObject({ event: 'completion', data: { status: 'completed' } });
  });

  it('answers 404 to another organization and 409 to wrong transitions', async () => {
    const other = await h.tenant();
    for (const [m, p] of [['GET', 'progress'], ['GET', 'results'], ['POST', 'pause'], ['GET', 'stream']] as const) {
      const res = await other.dc(m, `/api/v1/discovery/${sessionId}/${p}`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found' });
    }
    expect((await other.dc('DELETE', `/api/v1/discovery/${sessionId}`)).status).toBe(404);
    const pause = await t.dc('POST', `/api/v1/discovery/${sessionId}/pause`);
    expect(pause.status).toBe(409);
    expect(pause.body).toMatchObject({ error: 'conflict', details: { status: 'completed' } });
    expect((await t.dc('POST', `/api/v1/discovery/${sessionId}/resume`)).status).toBe(409);
    expect((await t.dc('DELETE', `/api/v1/discovery/${sessionId}`)).status).toBe(409);
  });

  it('lists the organization’s sessions newest first, by project and status, paginated; another organization sees none', async () => {
    const second = await t.start({ max_pages: 1 });
    await t.waitFor(second, 'completed');
    const all = await t.dc('GET', '/api/v1/discovery');
    expect(all.status).toBe(200);
    expect(contractValidator().validate('DiscoverySessionList', all.body)).toEqual([]);
    expect(all.body.data.map((s: any) => s.session_id)).toEqual([second, sessionId]);
    expect(all.body.pagination).toEqual({ limit: 20, offset: 0, total: 2 });
    expect(all.body.data[1]).toMatchObject({ project_id: t.projectId, target_url: `${h.site.url}/`, status: 'completed', pages_crawled: results.pages.length, flows_detected: results.flows.length });
    expect(all.body.data[1].completed_at).not.toBeNull();
    expect(all.body.data[0]).toMatchObject({ pages_crawled: 1 });

    const page = await t.dc('GET', '/api/v1/discovery?limit=1&offset=1');
    expect(page.body).toMatchObject({ data: [{ session_id: sessionId }], pagination: { limit: 1, offset: 1, total: 2 } });
    expect((await t.dc('GET', `/api/v1/discovery?project_id=${t.projectId}&status=completed`)).body.pagination.total).toBe(2);
    expect((await t.dc('GET', '/api/v1/discovery?status=running')).body).toEqual({ data: [], pagination: { limit: 20, offset: 0, total: 0 } });
    for (const [query, field] of [['status=done', 'status'], ['limit=0', 'limit'], ['limit=101', 'limit'], ['offset=-1', 'offset']] as const) {
      const bad = await t.dc('GET', `/api/v1/discovery?${query}`);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ error: 'validation_error', details: [{ field }] });
    }

    // Another organization: none of these, and this project answers as an unknown one.
    const other = await h.tenant();
    expect((await other.dc('GET', '/api/v1/discovery')).body).toEqual({ data: [], pagination: { limit: 20, offset: 0, total: 0 } });
    const foreign = await other.dc('GET', `/api/v1/discovery?project_id=${t.projectId}`);
    const unknown = await other.dc('GET', `/api/v1/discovery?project_id=${randomUUID()}`);
    expect(foreign.status).toBe(404);
    expect({ ...foreign.body, request_id: undefined }).toEqual({ ...unknown.body, request_id: undefined });
  });
});
