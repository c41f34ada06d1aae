import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { BrowserPool, DEFAULT_CHROMIUM_PATH, FULL_CHROMIUM_PATH, type FreshPage } from '@assay/browser';
import { DEFAULT_EGRESS, EgressPolicy } from '@assay/egress';
import { createSilentLogger } from '@assay/logger';

/** 127.0.0.2 (loopback) stands in for a forbidden address, as in egress.test.ts. */
const policy = new EgressPolicy({ ...DEFAULT_EGRESS, allowLoopback: true, denyCidrs: ['127.0.0.2/32'] });

interface Site {
  url: string;
  /** Requests for /cached.txt that reached the server (the rest came from the browser's cache). */
  cachedHits: number;
  /** The connection (numbered in the order they were accepted) each request came on. */
  connections: number[];
  close(): Promise<void>;
}

/** A site that leaves state of every kind in a browser, and a probe page that reads it back. */
async function site(other?: string): Promise<Site> {
  const state = { cachedHits: 0, connections: [] as number[] };
  const numbers = new WeakMap<Socket, number>();
  let accepted = 0;
  const server = http.createServer((req, res) => {
    state.connections.push(numbers.get(req.socket)!);
    const html = (body: string, headers: Record<string, string> = {}) => void res.writeHead(200, { 'content-type': 'text/html', ...headers }).end(`<!doctype html><title>t</title>${body}`);
    switch (req.url) {
      case '/sw.js':
        return void res.writeHead(200, { 'content-type': 'text/javascript' }).end('self.addEventListener("fetch", () => {});');
      case '/cached.txt':
        state.cachedHits++;
        return void res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'max-age=3600' }).end('cached');
      case '/auth':
        // No WWW-Authenticate: the full browser would wait on a sign-in prompt. The status is what counts.
        return void res.writeHead(401, { 'content-type': 'text/plain' }).end('who?');
      case '/mark':
        // Marks this origin's local storage (the other origin's frame).
        return html('<script>localStorage.setItem("frame", "left"); document.title = "marked";</script>');
      case '/dirty':
        return html(
          `<button id="b" style="position:fixed;left:500px;top:400px;width:100px;height:50px">b</button>
           ${other ? `<iframe src="${other}/mark"></iframe>` : ''}
           <img src="http://127.0.0.2:8999/blocked.png">
           <script>
             window.ready = (async () => {
               document.cookie = 'js=1';
               localStorage.setItem('k', 'v');
               sessionStorage.setItem('k', 'v');
               window.name = 'left behind';
               await new Promise((r) => { const o = indexedDB.open('db', 1); o.onupgradeneeded = () => o.result.createObjectStore('s'); o.onsuccess = () => { o.result.close(); r(); }; });
               await (await caches.open('c')).put('/x', new Response('y'));
               await navigator.serviceWorker.register('/sw.js');
               await navigator.serviceWorker.ready;
               await fetch('/cached.txt');
               history.pushState({}, '', '/dirty#2');
             })();
           </script>`,
          { 'set-cookie': 'http=1; Path=/' },
        );
      default:
        // /probe: reads every kind of state back.
        return html(`<button id="b" style="position:fixed;left:500px;top:400px;width:100px;height:50px">b</button>
          <style>#b:hover { color: rgb(255, 0, 0); }</style>
          <script>
            window.probe = (async () => ({
              cookie: document.cookie,
              local: { ...localStorage },
              session: { ...sessionStorage },
              name: window.name,
              databases: (await indexedDB.databases()).map((d) => d.name),
              caches: await caches.keys(),
              serviceWorkers: (await navigator.serviceWorker.getRegistrations()).length,
              history: history.length,
              hovered: getComputedStyle(document.getElementById('b')).color === 'rgb(255, 0, 0)',
              geolocation: (await navigator.permissions.query({ name: 'geolocation' })).state,
              cached: await (await fetch('/cached.txt')).text(),
            }))();
          </script>`);
    }
  });
  server.on('connection', (socket) => numbers.set(socket, ++accepted));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get cachedHits() {
      return state.cachedHits;
    },
    get connections() {
      return state.connections;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Resolves once `check` holds; fails after 10 s. */
async function eventually(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not met within 10 s: ${check.toString()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Process ids of the browser's renderers. */
async function renderers(browser: Browser): Promise<number[]> {
  const session = await browser.newBrowserCDPSession();
  const { processInfo } = (await session.send('SystemInfo.getProcessInfo')) as { processInfo: Array<{ type: string; id: number }> };
  await session.detach();
  return processInfo.filter((p) => p.type === 'renderer').map((p) => p.id);
}

describe.each([
  ['the headless shell (the default)', DEFAULT_CHROMIUM_PATH],
  ['the full browser', FULL_CHROMIUM_PATH],
])('BrowserPool.recycle on %s', (_, executablePath) => {
  jest.setTimeout(60_000);
  let a: Site;
  let b: Site;
  let pool: BrowserPool;

  beforeAll(async () => {
    b = await site();
    a = await site(b.url);
    pool = new BrowserPool(executablePath, createSilentLogger(), policy, { maxCases: 3 });
  });
  afterAll(async () => {
    await pool.close();
    await Promise.all([a.close(), b.close()]);
  });

  /** What a page of this context sees: on both origins, and whether /cached.txt came from the network. */
  async function probe(page: Page) {
    const hits = a.cachedHits;
    await page.goto(`${a.url}/probe`);
    const onA = await page.evaluate<unknown>('window.probe');
    const fromNetwork = a.cachedHits > hits;
    await page.goto(`${b.url}/probe`);
    const onB = await page.evaluate<{ local: unknown }>('window.probe');
    return { onA, bLocalStorage: onB.local, fromNetwork, pages: page.context().pages().length };
  }

  /** A case that leaves everything behind: storage on two origins, a worker, the cache, history, a popup, a permission, the pointer, a refused request, open connections. */
  async function dirty(used: FreshPage): Promise<void> {
    await used.page.goto(`${a.url}/dirty`);
    await used.page.evaluate('window.ready');
    await used.page.frameLocator('iframe').locator('body').waitFor({ state: 'attached' });
    await used.page.frames()[1]!.waitForFunction('document.title === "marked"');
    await used.context.grantPermissions(['geolocation'], { origin: a.url });
    await used.page.hover('#b');
    await used.page.evaluate(`void window.open('${a.url}/probe')`);
    await eventually(() => used.context.pages().length === 2);
    await eventually(() => used.egress.peekBlocked().length > 0);
  }

  it('gives the next case a page that sees exactly what a page of a new context sees', async () => {
    const baseline = await probe((await pool.freshPage(0)).page);
    expect(baseline).toMatchObject({ onA: { cookie: '', local: {}, session: {}, name: '', databases: [], caches: [], serviceWorkers: 0, history: 2, hovered: false }, bLocalStorage: {}, fromNetwork: true, pages: 1 });

    const used = await pool.freshPage(0);
    await dirty(used);
    // Without the reset the next case would see all of it.
    await used.page.goto(`${a.url}/probe`);
    expect(await used.page.evaluate('window.probe')).toMatchObject({ cookie: 'http=1; js=1', local: { k: 'v' }, session: { k: 'v' }, name: 'left behind', databases: ['db'], caches: ['c'], serviceWorkers: 1, geolocation: 'granted', cached: 'cached' });

    const requestsBefore = a.connections.length;
    const before = new Set(a.connections);
    const next = await pool.recycle(used);
    expect(next).toBeDefined();
    expect(next!.context).toBe(used.context);
    expect(next!.page).not.toBe(used.page);
    expect(used.page.isClosed()).toBe(true);
    expect(next!.egress.peekBlocked()).toEqual([]);
    const seen = await probe(next!.page);
    expect(seen).toEqual(baseline);
    // New connections: nothing bound to the old ones reaches the next case.
    const after = a.connections.slice(requestsBefore);
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((c) => before.has(c))).toEqual([]);
    await next!.context.close();
  });

  // The headless shell only: the full browser keeps a spare renderer process and starts another once one is taken.
  if (executablePath === DEFAULT_CHROMIUM_PATH)
  it("reuses the context's renderer process instead of starting one", async () => {
    const first = await pool.freshPage(0);
    await first.page.goto(`${a.url}/probe`);
    const before = await renderers(await first.context.browser()!);
    const next = (await pool.recycle(first))!;
    await next.page.goto(`${a.url}/probe`);
    // No renderer process started: the next case's page lives in one that was already there.
    const after = await renderers(next.context.browser()!);
    expect(after.filter((id) => !before.includes(id))).toEqual([]);
    await next.context.close();
  });

  it('closes instead of recycling a context after an HTTP authentication challenge, and after maxCases cases', async () => {
    const challenged = await pool.freshPage(0);
    await challenged.page.goto(`${a.url}/probe`);
    expect(await challenged.page.evaluate("fetch('/auth').then((r) => r.status)")).toBe(401);
    expect(await pool.recycle(challenged)).toBeUndefined();
    expect(challenged.page.isClosed()).toBe(true);

    let current: FreshPage | undefined = await pool.freshPage(0);
    const served: number[] = [];
    while (current) {
      served.push(current.usage.cases);
      current = await pool.recycle(current);
    }
    expect(served).toEqual([1, 2, 3]);
  });

  it('never recycles for a pool made without recycling', async () => {
    const plain = new BrowserPool(executablePath, createSilentLogger(), policy);
    try {
      const used = await plain.freshPage(0);
      expect(await plain.recycle(used)).toBeUndefined();
      expect(used.page.isClosed()).toBe(true);
    } finally {
      await plain.close();
    }
  });
});
