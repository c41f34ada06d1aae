import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDiscoveryHarness, type DiscoveryHarness, type Tenant } from './harness.js';

// Issue 30: only documents are held (DevTools Fetch on documents); a page's scripts, styles and calls go
// straight through, so the browser's HTTP cache works across the pages of a crawl. Before, page.route
// paused every request and turned the cache off: each page fetched its assets again.
jest.setTimeout(120_000);

const PAGES = 12;

interface Site {
  url: string;
  hits: Map<string, number>;
  /** Whether the first page links to the page that never answers. */
  hang: boolean;
  /** Set: the first page links first to /slow, answered after this many ms, and every page takes pageMs to answer. */
  slow: { slowMs: number; pageMs: number } | undefined;
  close(): Promise<void>;
}

/** Twelve pages linked in a ring, each loading the same cacheable stylesheet and script, and one PDF link. */
async function startAssetSite(): Promise<Site> {
  const hits = new Map<string, number>();
  const hanging: http.ServerResponse[] = [];
  const state: { hang: boolean; slow: Site['slow'] } = { hang: false, slow: undefined };
  const server = http.createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (state.slow && !path.startsWith('/app.')) await new Promise((r) => setTimeout(r, path === '/slow' ? state.slow!.slowMs : state.slow!.pageMs));
    if (path === '/slow') return res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Slow</title><h1>Slow</h1>');
    if (path === '/app.css') return res.writeHead(200, { 'content-type': 'text/css', 'cache-control': 'max-age=3600' }).end('body { margin: 0 }');
    if (path === '/app.js') return res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'max-age=3600' }).end('document.documentElement.dataset.ready = "1";');
    // A client-side router's links without an href: one writes (a POST) before it moves, one reads (a GET).
    if (path === '/router') {
      return res.writeHead(200, { 'content-type': 'text/html' }).end(
        '<title>Router</title><h1>Router</h1><span role="link" id="read">Read on</span> <span role="link" id="save">Save and go on</span>' +
          '<script>document.getElementById("save").onclick = () => { fetch("/api/track", { method: "POST", body: "x" }).catch(() => {}); history.pushState({}, "", "/p/3"); };' +
          'document.getElementById("read").onclick = () => { fetch("/api/read").catch(() => {}); history.pushState({}, "", "/p/5"); };</script>',
      );
    }
    if (path === '/api/track' || path === '/api/read') return res.writeHead(204).end();
    if (path === '/guide.pdf') return res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4\n%%EOF\n');
    // Never answers: its request is dropped when the navigation times out.
    if (path === '/hang') return void hanging.push(res);
    const n = path === '/' ? 0 : Number(path.slice(3));
    if (!(n >= 0 && n < PAGES) || path === '/p/0') return res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(
      `<!doctype html><html><head><title>Page ${n}</title><link rel="stylesheet" href="/app.css"><script src="/app.js"></script></head>` +
        `<body><h1>Page ${n}</h1>${n === 0 && state.slow ? '<a href="/slow">slow</a> ' : ''}<a href="${n + 1 < PAGES ? `/p/${n + 1}` : '/'}">next</a> <a href="/guide.pdf">guide</a>${n === 0 && state.hang ? ' <a href="/hang">slow</a>' : ''}</body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    get hang() {
      return state.hang;
    },
    set hang(on: boolean) {
      state.hang = on;
    },
    get slow() {
      return state.slow;
    },
    set slow(s: Site['slow']) {
      state.slow = s;
    },
    close: () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

let h: DiscoveryHarness;
let t: Tenant;
let site: Site;
beforeAll(async () => {
  [h, site] = await Promise.all([startDiscoveryHarness(), startAssetSite()]);
  t = await h.tenant();
});
afterAll(async () => {
  await h?.close();
  await site?.close();
});

describe('a crawl’s subresources', () => {
  it('go on after a page that never answers, with a request delay (its turn ends with its navigation)', async () => {
    // One tab whose navigations give up after 3 s. The pacing turn of the page that never answers ends with its
    // navigation; before, nothing ended it and the session waited for ever. (Pacing waits for each answer, so with
    // several tabs the others' navigations wait on it and may time out too: politeness first.)
    site.hang = true;
    await h.stopCrawlers();
    h.startCrawler({ navigationTimeoutMs: 3000, pagesInParallel: 1 });
    const id = await t.start({ target_url: `${site.url}/`, max_pages: 6, max_depth: 20, request_delay_ms: 200 });
    const done = await t.waitFor(id, 'completed', 60_000);
    expect(done.progress.pages_crawled).toBe(6);
    const r = (await t.dc('GET', `/api/v1/discovery/${id}/results`)).body;
    expect(r.pages.find((p: any) => p.url.endsWith('/hang'))).toMatchObject({ status_code: 0 });
    expect(r.pages.filter((p: any) => p.status_code === 200)).toHaveLength(5);
    expect(site.hits.get('/hang')).toBe(1);
    await h.stopCrawlers();
    h.startCrawler();
    site.hang = false;
  });

  it('wait behind a slow page with a request delay, and do not time out for it (a navigation’s timeout starts with its turn)', async () => {
    // Two tabs, navigations give up after 1.5 s, 100 ms between requests. /slow takes 1.2 s and every other page
    // 400 ms: the tab whose request queues behind /slow waits 1.3 s for its turn, then 400 ms for its answer. When
    // the wait counted against its navigation, that tab's page timed out (status 0); now each page is read.
    site.slow = { slowMs: 1200, pageMs: 400 };
    await h.stopCrawlers();
    h.startCrawler({ navigationTimeoutMs: 1500, pagesInParallel: 2 });
    try {
      const id = await t.start({ target_url: `${site.url}/`, max_pages: 5, max_depth: 20, request_delay_ms: 100 });
      const done = await t.waitFor(id, 'completed', 60_000);
      expect(done.progress.pages_crawled).toBe(5);
      const pages = (await t.dc('GET', `/api/v1/discovery/${id}/results`)).body.pages as any[];
      expect(pages.map((p) => [new URL(p.url).pathname, p.status_code]).sort()).toEqual([['/', 200], ['/guide.pdf', 200], ['/p/1', 200], ['/p/2', 200], ['/slow', 200]]);
    } finally {
      await h.stopCrawlers();
      h.startCrawler();
      site.slow = undefined;
    }
  });

  it('hold a write that a click made to find a client-side route would send (no allow_writes), and let its reads through', async () => {
    site.hits.clear();
    const id = await t.start({ target_url: `${site.url}/router`, max_pages: 3, max_depth: 1 });
    await t.waitFor(id, 'completed');
    const pages = (await t.dc('GET', `/api/v1/discovery/${id}/results`)).body.pages as any[];
    // Both clicks were made: the routes they reached were crawled.
    expect(pages.map((p) => new URL(p.url).pathname).sort()).toEqual(['/p/3', '/p/5', '/router']);
    expect(site.hits.get('/api/read')).toBeGreaterThanOrEqual(1);
    expect(site.hits.get('/api/track')).toBeUndefined();
  });

  it('come from the HTTP cache after the first page, while each document is still read with its status and type', async () => {
    site.hits.clear();
    const id = await t.start({ target_url: `${site.url}/`, max_pages: 50, max_depth: 20 });
    await t.waitFor(id, 'completed');
    const results = (await t.dc('GET', `/api/v1/discovery/${id}/results`)).body;
    const pages = results.pages.filter((p: any) => p.content_type === 'text/html');
    expect(pages).toHaveLength(PAGES);
    // The PDF was asked for once, recorded with its type, and not rendered.
    expect(results.pages.find((p: any) => p.url.endsWith('/guide.pdf'))).toMatchObject({ status_code: 200, content_type: 'application/pdf' });
    expect(site.hits.get('/guide.pdf')).toBe(1);
    // Every page's script ran (its stylesheet and script loaded), yet each asset was fetched at most once per tab.
    expect(site.hits.get('/app.css')).toBeGreaterThanOrEqual(1);
    expect(site.hits.get('/app.js')).toBeGreaterThanOrEqual(1);
    expect(site.hits.get('/app.css')!).toBeLessThanOrEqual(3);
    expect(site.hits.get('/app.js')!).toBeLessThanOrEqual(3);
  });
});
