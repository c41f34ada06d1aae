import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { BrowserPool, DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { DEFAULT_EGRESS, EgressPolicy, EgressProxy } from '@assay/egress';
import { createSilentLogger } from '@assay/logger';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH;

/**
 * Loopback stands in for the forbidden networks here (127.0.0.2 is refused by
 * EGRESS_DENY_CIDRS): the policy's address ranges have their own unit tests,
 * and the network-namespace e2e puts real private and metadata addresses on a
 * private loopback. What this file proves is that every kind of browser
 * request goes through the proxy and that the proxy speaks SOCKS5 correctly.
 */
const policy = new EgressPolicy({ ...DEFAULT_EGRESS, allowLoopback: true, denyCidrs: ['127.0.0.2/32'] });

/** A listener that records every TCP connection made to it and answers nothing useful. */
async function trap(host: string): Promise<{ port: number; hits: number; close(): Promise<void> }> {
  const state = { hits: 0 };
  const server = net.createServer((s) => {
    state.hits++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return {
    port: (server.address() as AddressInfo).port,
    get hits() {
      return state.hits;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('browser contexts behind the egress proxy', () => {
  jest.setTimeout(60_000);
  let pool: BrowserPool;
  let app: http.Server;
  let appUrl: string;
  let forbidden: Awaited<ReturnType<typeof trap>>;

  beforeAll(async () => {
    forbidden = await trap('127.0.0.2');
    const bad = `http://127.0.0.2:${forbidden.port}`;
    app = http.createServer((req, res) => {
      if (req.url === '/redirect') return void res.writeHead(302, { location: `${bad}/after-redirect` }).end();
      if (req.url === '/api') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>page</title><h1>allowed page</h1>
        <img src="${bad}/pixel.png"><iframe src="${bad}/frame"></iframe>
        <link rel="stylesheet" href="${bad}/style.css">
        <script>
          fetch('${bad}/fetch').catch(() => {});
          const x = new XMLHttpRequest(); x.open('GET', '${bad}/xhr'); x.send();
          try { new WebSocket('ws://127.0.0.2:${forbidden.port}/ws'); } catch (e) {}
          fetch('/api').then((r) => r.json()).then((j) => { document.body.dataset.api = String(j.ok); });
        </script>`);
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    pool = new BrowserPool(CHROMIUM_PATH, createSilentLogger(), policy);
  });

  afterAll(async () => {
    await pool.close();
    await new Promise((r) => app.close(r));
    await forbidden.close();
  });

  it('loads an allowed page while its image, frame, stylesheet, fetch, XHR and WebSocket to a refused address never connect', async () => {
    const { context, egress } = await pool.newContext();
    const page = await context.newPage();
    const failed = new Set<string>();
    page.on('requestfailed', (r) => failed.add(`${new URL(r.url()).pathname} ${r.failure()?.errorText}`));
    const socketClosed = new Promise<void>((resolve) => page.on('websocket', (ws) => ws.on('socketerror', () => resolve()).on('close', () => resolve())));
    await page.goto(`${appUrl}/`);
    await page.waitForFunction("document.body.dataset.api === 'true'");
    await socketClosed;
    const expected = ['/pixel.png', '/frame', '/style.css', '/fetch', '/xhr'].map((p) => `${p} net::ERR_SOCKS_CONNECTION_FAILED`);
    const deadline = Date.now() + 10_000;
    while (expected.some((e) => !failed.has(e)) && Date.now() < deadline) await page.waitForTimeout(50);
    expect([...failed].sort()).toEqual(expected.sort());
    const blocked = egress.takeBlocked();
    expect(blocked.length).toBeGreaterThan(0);
    expect(blocked.every((b) => b.host === '127.0.0.2' && b.port === forbidden.port && /EGRESS_DENY_CIDRS/.test(b.reason))).toBe(true);
    expect(await page.locator('h1').innerText()).toBe('allowed page');
    expect(forbidden.hits).toBe(0);
    await context.close();
  });

  it('refuses a redirect to a refused address and Playwright’s own route.fetch through the same proxy', async () => {
    const { context, egress } = await pool.newContext();
    const page = await context.newPage();
    await expect(page.goto(`${appUrl}/redirect`)).rejects.toThrow(/ERR_SOCKS_CONNECTION_FAILED/);
    expect(egress.takeBlocked()).toEqual([expect.objectContaining({ host: '127.0.0.2', port: forbidden.port })]);
    await expect(context.request.get(`http://127.0.0.2:${forbidden.port}/direct`)).rejects.toThrow(/NotAllowed|rejected/);
    expect((await context.request.get(`${appUrl}/api`)).status()).toBe(200);
    expect(forbidden.hits).toBe(0);
    await context.close();
  });

  it('closes the proxy with its context', async () => {
    const { context, egress } = await pool.newContext();
    const port = Number(new URL(egress.url).port);
    await context.close();
    const deadline = Date.now() + 5000;
    let open = true;
    while (open && Date.now() < deadline) {
      open = await new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => {
          s.destroy();
          resolve(true);
        });
        s.on('error', () => resolve(false));
      });
    }
    expect(open).toBe(false);
  });
});

describe('the SOCKS5 side of the proxy', () => {
  let proxy: EgressProxy;
  let port: number;
  let echo: net.Server;
  let echoPort: number;

  beforeAll(async () => {
    proxy = await EgressProxy.start(policy);
    port = Number(new URL(proxy.url).port);
    echo = net.createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    echoPort = (echo.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((r) => echo.close(r));
  });

  /** Sends `bytes` (in pieces, to test reassembly) and collects what comes back until the proxy closes or `until` holds. */
  function exchange(pieces: Buffer[], until: (b: Buffer) => boolean = () => false): Promise<Buffer> {
    return new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      let got = Buffer.alloc(0);
      s.on('data', (d) => {
        got = Buffer.concat([got, d]);
        if (!until(got)) return;
        s.destroy();
        resolve(got);
      });
      s.on('close', () => resolve(got));
      s.on('error', () => resolve(got));
      s.on('connect', async () => {
        for (const p of pieces) {
          s.write(p);
          await new Promise((r) => setTimeout(r, 20));
        }
      });
    });
  }

  const greet = Buffer.from([0x05, 0x01, 0x00]);
  const connectTo = (host: string, p: number) => {
    const name = Buffer.from(host, 'latin1');
    const port = Buffer.alloc(2);
    port.writeUInt16BE(p);
    return Buffer.concat([Buffer.from([0x05, 0x01, 0x00, 0x03, name.length]), name, port]);
  };

  it('connects an allowed destination given in pieces and relays both ways', async () => {
    const req = connectTo('127.0.0.1', echoPort);
    const got = await exchange([greet, req.subarray(0, 3), req.subarray(3), Buffer.from('ping')], (b) => b.includes(Buffer.from('ping')));
    expect([...got.subarray(0, 4)]).toEqual([0x05, 0x00, 0x05, 0x00]);
    expect(got.subarray(12).toString()).toBe('ping');
  });

  it('answers "not allowed by ruleset" for a refused destination, in any spelling, and records it', async () => {
    proxy.takeBlocked();
    for (const host of ['127.0.0.2', '2130706434', '0x7f.0.0.2']) {
      const got = await exchange([greet, connectTo(host, echoPort)]);
      expect([...got]).toEqual([0x05, 0x00, 0x05, 0x02, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);
    }
    // An IPv6 destination (ATYP 4): ::ffff:127.0.0.2.
    const v6 = Buffer.from([0x05, 0x01, 0x00, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 2, echoPort >> 8, echoPort & 0xff]);
    expect([...(await exchange([greet, v6]))].slice(2, 4)).toEqual([0x05, 0x02]);
    expect(proxy.takeBlocked().map((b) => b.host)).toEqual(['127.0.0.2', '2130706434', '0x7f.0.0.2', '0:0:0:0:0:ffff:7f00:2']);
  });

  it('refuses clients that want authentication, other commands and other protocols', async () => {
    expect([...(await exchange([Buffer.from([0x05, 0x01, 0x02])]))]).toEqual([0x05, 0xff]);
    const bind = Buffer.from([0x05, 0x02, 0x00, 0x01, 127, 0, 0, 1, 0, 80]);
    expect([...(await exchange([greet, bind]))].slice(2, 4)).toEqual([0x05, 0x07]);
    expect((await exchange([Buffer.from('GET / HTTP/1.1\r\n\r\n')])).length).toBe(0);
  });
});
