import { startDiscoveryHarness, type DiscoveryHarness, type Tenant } from './harness.js';

jest.setTimeout(120_000);

let h: DiscoveryHarness;
let t: Tenant;

beforeAll(async () => {
  h = await startDiscoveryHarness();
  t = await h.tenant();
});
afterAll(() => h?.close());

const crawledPaths = async (sessionId: string) => ((await t.dc('GET', `/api/v1/discovery/${sessionId}/results`)).body.pages as any[]).map((p) => p.url.slice(h.site.url.length) || '/');

describe('starting a discovery session', () => {
  it('answers the spec shape and refuses values outside the documented bounds with 400', async () => {
    const ok = await t.dc('POST', '/api/v1/discovery/start', { project_id: t.projectId, target_url: h.site.url, max_pages: 1 });
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({ session_id: expect.any(String), project_id: t.projectId, target_url: `${h.site.url}/`, status: 'running', started_at: expect.any(String), estimated_completion: expect.any(String) });
    await t.waitFor(ok.body.session_id, 'completed');
    for (const [field, value] of [['max_pages', 0], ['max_pages', 1001], ['max_depth', -1], ['max_depth', 21], ['request_delay_ms', -1], ['request_delay_ms', 60_001], ['include_patterns', 'x'], ['headless', 'yes']] as const) {
      const res = await t.dc('POST', '/api/v1/discovery/start', { project_id: t.projectId, target_url: h.site.url, [field]: value });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'validation_error', details: [expect.objectContaining({ field })] });
    }
    for (const target of ['ftp://example.com/', 'not a url', '/relative']) {
      const res = await t.dc('POST', '/api/v1/discovery/start', { project_id: t.projectId, target_url: target });
      expect(res.status).toBe(400);
      expect(res.body.details[0].field).toBe('target_url');
    }
    expect((await t.dc('POST', '/api/v1/discovery/start', { target_url: h.site.url })).body).toMatchObject({ error: 'validation_error', details: [{ field: 'project_id' }] });
    const missing = await t.dc('POST', '/api/v1/discovery/start', { project_id: '00000000-0000-4000-8000-000000000000', target_url: h.site.url });
    expect(missing).toMatchObject({ status: 404, body: { error: 'not_found', message: 'Project not found' } });
    expect((await t.dc('GET', '/api/v1/discovery/not-a-uuid/progress')).status).toBe(404);
    // enable_ai_analysis is accepted: the analysis service enriches the results once the crawl ends (pending until then).
    const ai = await t.dc('POST', '/api/v1/discovery/start', { project_id: t.projectId, target_url: h.site.url, enable_ai_analysis: true, max_pages: 1 });
    expect(ai.status).toBe(201);
    // No analysis service runs beside this harness: the enrichment stays pending.
    expect((await t.dc('GET', `/api/v1/discovery/${ai.body.session_id}/results`)).body.ai_analysis).toEqual({ status: 'pending' });
  });

  it('refuses loopback, private and metadata targets in every spelling unless the deployment allows them', async () => {
    const strict = async (target: string) => {
      const res = await fetch(`${h.strictUrl}/api/v1/discovery/start`, { method: 'POST', headers: { ...(await t.headers()), 'content-type': 'application/json' }, body: JSON.stringify({ project_id: t.projectId, target_url: target }) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const refused: Array<[string, RegExp]> = [
      [h.site.url, /loopback address 127\.0\.0\.1/],
      ['http://localhost:9/', /loopback address/],
      ['http://[::1]/', /loopback address ::1/],
      ['http://2130706433/', /loopback address 127\.0\.0\.1/],
      ['http://0x7f.1/', /loopback address 127\.0\.0\.1/],
      ['http://0177.0.0.1/', /loopback address 127\.0\.0\.1/],
      ['http://10.1.2.3/', /private address 10\.1\.2\.3/],
      ['http://[::ffff:10.0.0.5]/', /private address .*10\.0\.0\.5/],
      ['http://192.168.0.1/', /private address 192\.168\.0\.1/],
      ['http://100.64.0.5/', /private address \(carrier-grade NAT\)/],
      ['http://169.254.169.254/latest', /cloud metadata address 169\.254\.169\.254/],
      ['http://[::ffff:169.254.169.254]/', /cloud metadata address .*169\.254\.169\.254/],
      ['http://[::ffff:a9fe:a9fe]/', /cloud metadata address/],
      ['http://169.254.10.10/', /link-local address/],
      ['http://metadata.google.internal./computeMetadata/v1/', /cloud metadata name/],
      ['http://0.0.0.0/', /unspecified address/],
      ['http://[::]/', /unspecified address/],
    ];
    for (const [target, reason] of refused) {
      const res = await strict(target);
      expect({ target, status: res.status }).toEqual({ target, status: 400 });
      expect(res.body.details[0]).toMatchObject({ field: 'target_url', message: expect.stringMatching(/^blocked by the egress policy \(/) });
      expect({ target, message: res.body.details[0].message }).toEqual({ target, message: expect.stringMatching(reason) });
    }
    expect(await h.database.db.selectFrom('sessions').select('id').where('target_url', 'not like', `${h.site.url}%`).execute()).toEqual([]);
  });

  it('crawls only what the include and exclude globs allow (* stays in one segment, ** crosses)', async () => {
    const id = await t.start({ include_patterns: ['/articles', '/articles/*', '/products/**'], exclude_patterns: ['/articles/1?'], max_depth: 3 });
    await t.waitFor(id, 'completed');
    const paths = await crawledPaths(id);
    // target_url is always crawled; its links are filtered.
    const products = ['/products', ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => `/products/${n}`)];
    const articles = ['/articles', '/articles?page=1', '/articles?page=2', ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `/articles/${n}`)];
    expect(paths.sort()).toEqual(['/', ...articles, ...products].sort());
    const deep = await t.start({ include_patterns: ['/deep/*'], max_depth: 20 });
    await t.waitFor(deep, 'completed');
    expect((await crawledPaths(deep)).sort()).toEqual(['/', '/deep/1', '/deep/2', '/deep/3', '/deep/4', '/deep/5', '/deep/6', '/deep/7', '/deep/8']);
  });

  it('takes robots.txt Crawl-delay when it is longer than request_delay_ms', async () => {
    h.site.setCrawlDelay(1);
    h.site.requests.length = 0;
    const id = await t.start({ max_pages: 3, request_delay_ms: 0 });
    await t.waitFor(id, 'completed');
    h.site.setCrawlDelay(0);
    const times = h.site.requests.map((r) => r.at);
    expect(times).toHaveLength(3);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(980);
  });
});
