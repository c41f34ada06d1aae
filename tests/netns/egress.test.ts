import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { bearer, call } from '../e2e/support/http.js';
import { launchForFile } from '../e2e/support/launcher.js';
import { TestDnsServer } from './dns-server.js';

/**
 * The egress policy against the real thing: the whole stack (launcher,
 * gateway, runner, crawler, dispatcher, Chromium) inside a private network
 * namespace whose only interface is `lo`, with the forbidden addresses
 * (metadata, private, CGNAT, unique local) put on that loopback and a trap
 * listening on each. No trap may ever see a connection, whatever a tenant
 * tries: discovery targets in every spelling, crawled pages' images, frames,
 * fetches and redirects, test-case navigation and page subresources, webhook
 * registration, and DNS answers that change after a check.
 *
 * Run only by tests/e2e/egress-netns.test.ts through tests/netns/run.sh.
 */

// Refuse to run anywhere else: these addresses must never be real ones.
const outer = process.env.ASSAY_OUTER_NETNS;
const inside = readlinkSync('/proc/self/ns/net');
if (!outer || outer === inside || Object.keys(networkInterfaces()).some((name) => name !== 'lo')) {
  throw new Error(`tests/netns must run inside the private network namespace made by tests/netns/run.sh (this one: ${inside}, interfaces ${Object.keys(networkInterfaces()).join(', ')})`);
}

jest.setTimeout(240_000);

const FORBIDDEN = ['169.254.169.254', 'fd00:ec2::254', '10.0.0.5', '100.64.0.5', '192.168.1.5', 'fd00::5'];
const PUBLIC = '93.184.216.34'; // "public" only inside this namespace
const ALLOWED_CIDR_HOST = '100.64.7.7'; // in EGRESS_ALLOW_CIDRS below
const TRAP_PORTS = [80, 443];
const DOMAIN = 'egress.example';

interface Trap {
  address: string;
  port: number;
  hits: string[];
}
const traps: Trap[] = [];
const servers: Array<net.Server> = [];
const dns = new TestDnsServer();

async function listenOn(server: net.Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

/** Counts every connection; answers like a metadata service would, so a leak would also show in a result. */
async function trap(address: string, port: number): Promise<void> {
  const t: Trap = { address, port, hits: [] };
  traps.push(t);
  await listenOn(
    net.createServer((s) => {
      t.hits.push(`${s.remoteAddress}:${s.remotePort}`);
      s.end('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nconnection: close\r\n\r\n<h1>ami-id i-secret AccessKeyId</h1>');
    }),
    address,
    port,
  );
}

const bad = {
  meta: 'http://169.254.169.254/latest/meta-data/',
  metaMapped: 'http://[::ffff:169.254.169.254]/latest/meta-data/',
  metaHex: 'http://[::ffff:a9fe:a9fe]/',
  metaDecimal: 'http://2852039166/latest/',
  metaV6: 'http://[fd00:ec2::254]/latest/',
  private: 'http://10.0.0.5/',
  privateMapped: 'http://[::ffff:10.0.0.5]/',
  cgnat: 'http://100.64.0.5/',
  lan: 'http://192.168.1.5/',
  ula: 'http://[fd00::5]/',
  metaName: `http://meta.${DOMAIN}/latest/meta-data/`,
  privateName: `http://private.${DOMAIN}/`,
  mixedName: `http://mixed.${DOMAIN}/`,
};

/** The application under test: the same pages on loopback, on a "public" address and on an allowed CIDR. */
function appHandler(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (req.url === '/robots.txt') return void res.writeHead(302, { location: 'http://169.254.169.254/robots.txt' }).end();
  if (req.url === '/redirect-meta') return void res.writeHead(302, { location: bad.meta }).end();
  if (req.url === '/api/items') return void res.writeHead(200, { 'content-type': 'application/json' }).end('[{"id":1}]');
  res.writeHead(200, { 'content-type': 'text/html' });
  if (req.url === '/about') return void res.end('<!doctype html><title>About</title><h1 id="title">About us</h1><a href="/">Home</a>');
  res.end(`<!doctype html><title>Home</title><h1 id="title">Welcome</h1>
    <nav><a href="/about">About</a> <a href="/redirect-meta">Status</a> <a href="${bad.meta}">Metadata</a> <a href="${bad.private}">Intranet</a></nav>
    <img src="${bad.meta}iam/pixel.png"><img src="${bad.metaV6}x.png">
    <iframe src="${bad.private}"></iframe><iframe src="${bad.privateName}"></iframe>
    <link rel="stylesheet" href="${bad.ula}s.css"><script src="${bad.lan}x.js"></script>
    <form action="${bad.private}search" method="get"><input name="q"><button>Search</button></form>
    <script>
      for (const u of ['${bad.metaMapped}', '${bad.metaHex}', '${bad.metaDecimal}', '${bad.metaName}', '${bad.mixedName}']) fetch(u).catch(() => {});
      const x = new XMLHttpRequest(); x.open('GET', '${bad.cgnat}'); x.send();
      try { new WebSocket('ws://10.0.0.5/socket'); } catch (e) {}
      fetch('/api/items').then((r) => r.json()).then((items) => { document.body.dataset.items = String(items.length); });
    </script>`);
}

let loopbackApp: string;
const publicApp = `http://app.${DOMAIN}`;
const allowedApp = `http://${ALLOWED_CIDR_HOST}`;
let hookReceived: string[] = [];
let localHookReceived: string[] = [];
let localHookUrl: string;

beforeAll(async () => {
  await dns.start();
  dns.records.set(`app.${DOMAIN}`, [PUBLIC]);
  dns.records.set(`meta.${DOMAIN}`, ['169.254.169.254']);
  dns.records.set(`private.${DOMAIN}`, ['10.0.0.5']);
  dns.records.set(`mixed.${DOMAIN}`, [PUBLIC, '10.0.0.5']);
  dns.records.set(`hook.${DOMAIN}`, [PUBLIC]);
  // First lookup public (the runner's check before navigating), every later one private (the browser's connection).
  dns.records.set(`flip.${DOMAIN}`, (n) => (n <= 1 ? [PUBLIC] : ['10.0.0.5']));

  for (const address of FORBIDDEN) for (const port of TRAP_PORTS) await trap(address, port);
  loopbackApp = `http://127.0.0.1:${await listenOn(http.createServer(appHandler), '127.0.0.1', 0)}`;
  await listenOn(http.createServer(appHandler), PUBLIC, 80);
  await listenOn(http.createServer(appHandler), ALLOWED_CIDR_HOST, 80);

  // The webhook receiver on the "public" address speaks HTTPS and closes every connection, so each delivery looks its host up again.
  await listenOn(
    https.createServer({ key: readFileSync(path.join(certDir, 'key.pem')), cert: readFileSync(path.join(certDir, 'cert.pem')) }, (req, res) => {
      req.resume();
      req.on('end', () => {
        hookReceived.push(String(req.headers['x-service-event']));
        res.writeHead(200, { connection: 'close' }).end('ok');
      });
    }),
    PUBLIC,
    443,
  );
  localHookUrl = `http://127.0.0.1:${await listenOn(
    http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        localHookReceived.push(String(req.headers['x-service-event']));
        res.writeHead(200).end('ok');
      });
    }),
    '127.0.0.1',
    0,
  )}/hook`;
});

// A certificate for hook.egress.example, made before the launch: the dispatcher trusts it through NODE_EXTRA_CA_CERTS.
const certDir = mkdtempSync(path.join(tmpdir(), 'assay-netns-cert-'));
execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=hook.${DOMAIN}`, '-addext', `subjectAltName=DNS:hook.${DOMAIN}`, '-keyout', path.join(certDir, 'key.pem'), '-out', path.join(certDir, 'cert.pem')], { stdio: 'ignore' });
// Rate limits off: the suite makes more calls a minute than a Starter key may.
const launched = launchForFile({ env: { RATE_LIMITS_ENABLED: 'false', EGRESS_ALLOW_CIDRS: '100.64.7.0/24', NODE_EXTRA_CA_CERTS: path.join(certDir, 'cert.pem') } });

afterAll(async () => {
  for (const s of servers) s.close();
  await dns.close();
});

const gw = (method: string, p: string, body?: unknown) => call(launched.assay.gatewayUrl, method, p, { headers: bearer(launched.assay.serviceKey), ...(body !== undefined ? { body } : {}) });

async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const trapHits = () => traps.filter((t) => t.hits.length).map((t) => `${t.address}:${t.port} ← ${t.hits.join(', ')}`);

describe('egress inside a private network namespace', () => {
  let projectId: string;

  it('uses the namespace’s own resolver and addresses (sanity)', async () => {
    expect((await readFile('/etc/resolv.conf', 'utf8')).trim()).toBe('nameserver 127.0.0.1');
    const project = await gw('POST', '/api/v1/projects', { name: 'Egress', base_url: loopbackApp });
    expect(project.status).toBe(201);
    projectId = project.body.id;
    // The public app answers through its name, from this process (not through Assay).
    expect(await (await fetch(`${publicApp}/about`)).text()).toContain('About us');
  });

  it('refuses discovery targets on forbidden addresses in every spelling and through names', async () => {
    for (const target of Object.values(bad)) {
      const r = await gw('POST', '/api/v1/discovery/start', { project_id: projectId, target_url: target, request_delay_ms: 0 });
      expect({ target, status: r.status, field: r.body.details?.[0]?.field }).toEqual({ target, status: 400, field: 'target_url' });
      expect({ target, message: r.body.details[0].message }).toEqual({ target, message: expect.stringMatching(/^blocked by the egress policy \(/) });
    }
    expect(trapHits()).toEqual([]);
  });

  it('crawls allowed apps (loopback, a public name, an allowed CIDR) without any page, subresource, redirect or robots.txt reaching a trap', async () => {
    for (const target of [loopbackApp, publicApp, allowedApp]) {
      const started = await gw('POST', '/api/v1/discovery/start', { project_id: projectId, target_url: `${target}/`, request_delay_ms: 0, max_depth: 2 });
      expect({ target, status: started.status }).toEqual({ target, status: 201 });
      const id = started.body.session_id;
      await eventually(`the crawl of ${target}`, async () => ((await gw('GET', `/api/v1/discovery/${id}/progress`)).body.status === 'completed' ? true : undefined), 120_000);
      const results = await gw('GET', `/api/v1/discovery/${id}/results`);
      const urls = results.body.pages.map((p: { url: string }) => p.url).sort();
      expect({ target, urls }).toEqual({ target, urls: expect.arrayContaining([`${target}/`, `${target}/about`]) });
      // Only the app's own pages: nothing on a forbidden host was crawled.
      expect(urls.every((u: string) => u.startsWith(`${target}/`))).toBe(true);
      expect(results.body.api_endpoints.map((e: { endpoint: string }) => e.endpoint)).toContain('/api/items');
    }
    expect(trapHits()).toEqual([]);
  });

  it('fails test steps that navigate to forbidden addresses, passes pages whose forbidden subresources were refused, and catches a name that changes between check and connection', async () => {
    const steps = (url: string) => [{ action: 'navigate', value: url }, { action: 'assert_text', selector: 'h1', value: 'ami-id' }];
    const cases: Record<string, unknown[]> = Object.fromEntries(Object.entries(bad).map(([k, url]) => [`direct ${k}`, steps(url)]));
    cases['redirect to metadata'] = [{ action: 'navigate', value: '/redirect-meta' }];
    cases['name flips to private'] = [{ action: 'navigate', value: `http://flip.${DOMAIN}/` }];
    for (const [name, base] of [['loopback', loopbackApp], ['public name', publicApp], ['allowed CIDR', allowedApp]]) {
      cases[`home on ${name}`] = [
        { action: 'navigate', value: `${base}/` },
        { action: 'wait', selector: 'body[data-items="1"]', timeout: 10000 },
        { action: 'assert_text', selector: '#title', value: 'Welcome' },
      ];
    }
    const ids: Record<string, string> = {};
    for (const [name, s] of Object.entries(cases)) {
      const c = await gw('POST', '/api/v1/test-cases', { project_id: projectId, name, steps: s });
      expect({ name, status: c.status, body: c.status === 201 ? undefined : c.body }).toEqual({ name, status: 201, body: undefined });
      ids[name] = c.body.id;
    }
    const plan = await gw('POST', '/api/v1/test-plans', { project_id: projectId, name: 'Egress', test_case_ids: Object.values(ids) });
    const run = await gw('POST', '/api/v1/executions', { test_plan_id: plan.body.id, project_id: projectId, timeout_seconds: 200 });
    expect(run.body.status).toBe('completed');
    const results = await gw('GET', `/api/v1/executions/${run.body.id}/results`);
    const byName = Object.fromEntries(results.body.test_results.map((r: any) => [r.name, r]));
    for (const name of Object.keys(cases)) {
      const r = byName[name];
      if (name.startsWith('home on')) {
        expect({ name, status: r.status, error: r.error }).toEqual({ name, status: 'passed', error: undefined });
        const blocked = r.diagnostics.blocked_requests.map((b: { url: string }) => b.url);
        expect({ name, blocked }).toEqual({ name, blocked: expect.arrayContaining([`${bad.meta}iam/pixel.png`, bad.private, `${bad.lan}x.js`]) });
      } else {
        expect({ name, status: r.status, error: r.error }).toEqual({ name, status: 'failed', error: expect.stringMatching(/^Navigation to \S+ blocked by the egress policy \(/) });
      }
    }
    expect(byName['name flips to private'].error).toMatch(/flip\.egress\.example resolves to private address 10\.0\.0\.5/);
    expect(byName['redirect to metadata'].error).toMatch(/169\.254\.169\.254:80: cloud metadata address/);
    expect(trapHits()).toEqual([]);
  });

  it('refuses webhook URLs on forbidden hosts and refuses a delivery once the registered name resolves to a private address', async () => {
    for (const url of [
      'https://169.254.169.254/',
      'https://[::ffff:169.254.169.254]/',
      'https://10.0.0.5/',
      'https://[::ffff:10.0.0.5]/',
      'https://[fd00::5]/',
      `https://meta.${DOMAIN}/`,
      `https://private.${DOMAIN}/`,
      `https://mixed.${DOMAIN}/`,
    ]) {
      const r = await gw('POST', '/api/v1/webhooks', { name: 'x', url, events: ['test.case.created'] });
      expect({ url, status: r.status, message: r.body.details?.[0]?.message }).toEqual({ url, status: 400, message: expect.stringMatching(/^blocked by the egress policy/) });
    }

    // Registered while its name resolves to a public address: the create-time test event arrives.
    const hook = await gw('POST', '/api/v1/webhooks', { name: 'rebound', url: `https://hook.${DOMAIN}/assay`, events: ['test.case.created'] });
    expect(hook.status).toBe(201);
    await eventually('the first delivery', async () => (hookReceived.length >= 1 ? true : undefined));
    const local = await gw('POST', '/api/v1/webhooks', { name: 'local', url: localHookUrl, events: ['test.case.created'] });
    expect(local.status).toBe(201);

    // DNS now answers with a private address (rebinding): the next delivery must not connect to it.
    dns.records.set(`hook.${DOMAIN}`, ['10.0.0.5']);
    hookReceived = [];
    localHookReceived = [];
    await gw('POST', '/api/v1/test-cases', { project_id: projectId, name: 'Triggers webhooks', steps: [{ action: 'navigate', value: '/' }] });
    const failed = await eventually('the refused delivery', async () => {
      const log = await gw('GET', `/api/v1/webhooks/${hook.body.id}/deliveries?event=test.case.created`);
      const d = log.body.data.find((x: any) => x.attempts?.some((a: any) => /EGRESS_DENIED|egress policy/.test(a.error ?? '')));
      return d;
    });
    expect(failed.attempts.at(-1).error).toMatch(/hook\.egress\.example resolves to private address 10\.0\.0\.5/);
    // Loopback still works for the deployment that allows it.
    await eventually('the loopback delivery', async () => (localHookReceived.includes('test.case.created') ? true : undefined));
    expect(hookReceived).toEqual([]);
    expect(trapHits()).toEqual([]);
  });
});
