import { contractValidator } from '@assay/contracts';
import { startSpa, type Spa } from '../../../tests/fixtures/spa/server.js';
import { startVerdaccio, type Verdaccio } from '../../../tests/fixtures/verdaccio/server.js';
import { readStream, startDiscoveryHarness, type DiscoveryHarness, type Tenant } from './harness.js';

// Discovery on single-page apps, where the server sends an empty shell and scripts
// render everything: the fixture SPA (React with React Router, built by the test
// set-up: a list filled by XHR, a lazily loaded route, a route behind a role=link,
// a sign-in dialog, a type-ahead search), served with and without history fallback,
// and a real third-party SPA, Verdaccio's web UI (an npm registry from the npm
// registry, React and Material UI), holding four packages.
jest.setTimeout(300_000);

let h: DiscoveryHarness;
let t: Tenant;
let spa: Spa;
let bareSpa: Spa;
let broken: Spa;
let registry: Verdaccio;
const sessions: Record<string, string> = {};
const results: Record<string, any> = {};

const paths = (urls: string[], origin: string) => urls.map((u) => u.slice(origin.length) || '/').sort();
const endpoint = (r: any, method: string, path: string) => r.api_endpoints.find((e: any) => e.method === method && e.endpoint === path);

beforeAll(async () => {
  h = await startDiscoveryHarness();
  t = await h.tenant();
  [spa, bareSpa, broken, registry] = await Promise.all([startSpa(), startSpa({ historyFallback: false }), startSpa({ broken: true }), startVerdaccio()]);
  const start = (target: string, body: Record<string, unknown> = {}) => t.start({ target_url: target, max_pages: 30, ...body });
  sessions.spa = await start(spa.url);
  sessions.bare = await start(bareSpa.url, { interactive: true });
  sessions.broken = await start(broken.url);
  sessions.registry = await start(registry.url);
  sessions.registryInteractive = await start(registry.url, { interactive: true });
  for (const [name, id] of Object.entries(sessions)) {
    await t.waitFor(id, 'completed', 240_000);
    results[name] = (await t.dc('GET', `/api/v1/discovery/${id}/results`)).body;
  }
});
afterAll(async () => {
  await h?.close();
  await Promise.all([spa, bareSpa, broken, registry].map((s) => s?.close()));
});

describe('discovery on the fixture SPA', () => {
  it('reads pages once their scripts rendered them: the XHR-filled list, the lazily loaded route and the route behind a role=link', async () => {
    const r = results.spa;
    expect(paths(r.pages.map((p: any) => p.url), spa.url)).toEqual(['/', '/about', '/team', ...spa.products.map((p) => `/products/${p.slug}`)].sort());
    for (const p of r.pages) expect(p).toMatchObject({ status_code: 200, reached_by: 'direct' });
    // What the crawler read on each page is what its scripts rendered, not the shell.
    const rows = await h.database.db.selectFrom('pages').select(['url', 'analysis']).where('session_id', '=', sessions.spa!).execute();
    const heading = (path: string) => (rows.find((row) => row.url === `${spa.url}${path}`)?.analysis as any)?.headings[0]?.text;
    expect(heading('/')).toBe('All products');
    expect(heading('/about')).toBe('About Lampshop');
    expect(heading('/team')).toBe('Our team');
    expect(heading(`/products/${spa.products[0]!.slug}`)).toBe(spa.products[0]!.name);
    expect(r.warnings).toEqual([]);
    expect(contractValidator().validate('DiscoveryResults', r)).toEqual([]);
  });

  it('records the calls that fill the pages, per-item reads templated even when the item is a scoped name encoded in one segment', () => {
    const r = results.spa;
    const n = spa.products.length;
    expect(endpoint(r, 'GET', '/api/products')).toMatchObject({ status_code: 200, paths: 1 });
    expect(endpoint(r, 'GET', '/api/products/{slug}')).toMatchObject({ status_code: 200, paths: n, calls: n });
    // /api/reviews/%40lampshop%2Fstorm-lamp and its siblings.
    expect(endpoint(r, 'GET', '/api/reviews/{slug}')).toMatchObject({ status_code: 200, paths: n });
    expect(endpoint(r, 'GET', '/api/team')).toBeDefined();
    // A plain crawl types nothing and opens nothing.
    expect(endpoint(r, 'GET', '/api/search')).toBeUndefined();
    expect(spa.requests.filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('turns the product list into a flow that opens an item, with a confidence that says it is sure', () => {
    const r = results.spa;
    const list = r.flows.find((f: any) => f.type === 'navigation' && f.evidence[0].startsWith('a list of'));
    expect(list.evidence[0]).toBe(`a list of ${spa.products.length} items linking to /products/{item}`);
    expect(list.steps[0]).toEqual({ action: 'navigate', url: `${spa.url}/` });
    expect(list.steps[1]).toMatchObject({ action: 'click', url: expect.stringMatching(/\/products\/[a-z-]+$/) });
    expect(r.summary.discovery_confidence).toBeGreaterThan(0.5);
  });

  it('reaches client-side routes by navigating inside the app where the server has no history fallback, and reports their real 404', () => {
    const r = results.bare;
    expect(contractValidator().validate('DiscoveryResults', r)).toEqual([]);
    expect(paths(r.pages.map((p: any) => p.url), bareSpa.url)).toEqual(['/', '/about', '/team', ...bareSpa.products.map((p) => `/products/${p.slug}`)].sort());
    for (const p of r.pages) {
      if (p.url === `${bareSpa.url}/`) expect(p).toMatchObject({ status_code: 200, reached_by: 'direct' });
      else expect(p).toMatchObject({ status_code: 404, reached_by: 'in_app', links_found: expect.any(Number) });
    }
    // Read in the app: each item's own calls, not the list page's.
    expect(endpoint(r, 'GET', '/api/products/{slug}')).toMatchObject({ paths: bareSpa.products.length });
    expect(r.warnings.map((w: any) => w.code)).not.toContain('unreachable_routes');
  });

  it('opens the sign-in dialog, and the authentication flow starts with the click that opens it', () => {
    const auth = results.bare.flows.find((f: any) => f.type === 'authentication');
    expect(auth.steps.slice(0, 3)).toEqual([
      { action: 'navigate', url: `${bareSpa.url}/` },
      { action: 'click', selector: 'role=button[name="Sign in"s]' },
      { action: 'wait_for', selector: 'input[autocomplete="username"]' },
    ]);
    expect(auth.steps.slice(3)).toEqual([
      { action: 'fill_form', selector: 'input[autocomplete="username"]', value: expect.any(String) },
      { action: 'fill_form', selector: 'input[autocomplete="current-password"]', value: expect.any(String) },
      { action: 'submit', selector: 'role=button[name="Log in"s]' },
    ]);
    expect(auth.evidence[0]).toBe('password field in a dialog that "Sign in" opens');
  });

  it('types a word of the page into the type-ahead, records the call it makes and the suggestions', () => {
    const search = results.bare.flows.find((f: any) => f.type === 'search');
    const term = search.steps[1].value;
    expect(bareSpa.products.some((p) => p.name.includes(term))).toBe(true);
    expect(search.steps).toEqual([
      { action: 'navigate', url: `${bareSpa.url}/` },
      { action: 'type', selector: 'input[placeholder="Search products"]', value: term },
      { action: 'wait_for', selector: '#search-suggestions', value: term },
    ]);
    expect(search.evidence).toEqual(['type-ahead search box "Search products"', `typing "${term}" called GET /api/search`, expect.stringMatching(/^\d+ suggestion\(s\) shown$/)]);
    expect(endpoint(results.bare, 'GET', '/api/search')).toMatchObject({ status_code: 200 });
    // Typed into once per session, not on every page that has the box in its header.
    const searches = bareSpa.requests.filter((q) => q.path.startsWith('/api/search'));
    expect(new Set(searches.map((q) => decodeURIComponent(q.path.split('q=')[1]!).slice(0, 1))).size).toBe(1);
  });

  it('says why a crawl that saw only an empty shell found nothing, and is not confident', async () => {
    const r = results.broken;
    expect(r.summary).toMatchObject({ total_pages: 1, unique_flows: 0, discovery_confidence: 0 });
    const codes = r.warnings.map((w: any) => w.code).sort();
    expect(codes).toEqual(['empty_page', 'no_flows', 'script_errors', 'single_page']);
    expect(r.warnings.find((w: any) => w.code === 'script_errors')).toMatchObject({ count: 1, pages: [`${broken.url}/`], message: expect.stringContaining('Lampshop could not read its configuration') });
    const progress = (await t.dc('GET', `/api/v1/discovery/${sessions.broken}/progress`)).body;
    expect(progress.warnings.map((w: any) => w.code).sort()).toEqual(codes);
    expect(contractValidator().validate('DiscoveryProgress', progress)).toEqual([]);
    expect(contractValidator().validate('DiscoveryResults', r)).toEqual([]);
    const { events } = await readStream(`${h.url}/api/v1/discovery/${sessions.broken}/stream`, await t.headers());
    expect(events.filter((e) => e.event === 'warning').map((e) => e.data.code).sort()).toEqual(codes);
    expect(events[events.length - 1]).toMatchObject({ event: 'completion', data: { warnings: 4 } });
    expect((await t.dc('POST', `/api/v1/discovery/${sessions.broken}/generate-test-cases`, {})).status).toBe(409);
  });
});

describe('discovery on a real third-party SPA: Verdaccio', () => {
  it('finds the home page and every package page, and the XHR that fills the list, with per-package reads templated', () => {
    const r = results.registry;
    expect(paths(r.pages.map((p: any) => p.url), registry.url)).toEqual(['/', ...registry.packages.map((p) => `/-/web/detail/${p.name}`)].sort());
    expect(endpoint(r, 'GET', '/-/verdaccio/data/packages')).toMatchObject({ status_code: 200, paths: 1 });
    // Scoped names (/@acme/ui-kit) and plain ones are one endpoint.
    expect(endpoint(r, 'GET', '/-/verdaccio/data/sidebar/{slug}')).toMatchObject({ status_code: 200, paths: 4, calls: 4 });
    expect(endpoint(r, 'GET', '/-/verdaccio/data/package/readme/{slug}')).toMatchObject({ paths: 4 });
    expect(r.flows.find((f: any) => f.type === 'navigation').evidence[0]).toBe('a list of 4 items linking to /-/web/detail/{item}');
    expect(r.warnings).toEqual([]);
  });

  it('interactive: finds the type-ahead search with its API call and the sign-in dialog', () => {
    const r = results.registryInteractive;
    const search = r.flows.find((f: any) => f.type === 'search');
    expect(search.steps[1]).toMatchObject({ action: 'type', selector: '#search-header-suggest' });
    expect(search.evidence[1]).toBe(`typing "${search.steps[1].value}" called GET /-/verdaccio/data/search/{query}`);
    expect(endpoint(r, 'GET', '/-/verdaccio/data/search/{query}')).toMatchObject({ status_code: 200 });
    const auth = r.flows.find((f: any) => f.type === 'authentication');
    expect(auth.steps.map((s: any) => [s.action, s.selector])).toEqual([
      ['navigate', undefined],
      ['click', '[data-testid="header--button-login"]'],
      ['wait_for', '#login--dialog-username'],
      ['fill_form', '#login--dialog-username'],
      ['fill_form', '#login--dialog-password'],
      ['submit', '[data-testid="login-dialog-form-login-button"]'],
    ]);
  });
});
