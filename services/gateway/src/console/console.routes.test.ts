import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AppError, createHttpApp } from '@assay/http';
import { createSilentLogger } from '@assay/logger';
import { listen, type TestServer } from '@assay/testing';
import { CONSOLE_CSP, consoleRoutes, TRACE_VIEWER_CSP } from './console.routes.js';

// The console's static serving over real HTTP: a small built console in a
// temporary directory, and the trace viewer from the installed playwright-core.
let dir: string;
let server: TestServer;
let unbuilt: TestServer;

function app(consoleDir: string) {
  return createHttpApp({
    name: 'gateway',
    logger: createSilentLogger(),
    parseJson: false,
    mount(a) {
      a.use(consoleRoutes({ consoleDir }));
      // What the gateway does next for anything else: unknown paths are a JSON 404.
      a.use((req, _res, next) => next(new AppError('not_found', `No route for ${req.method} ${req.path}`)));
    },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'console-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Assay</title><script type="module" src="/assets/index-abc123.js"></script>');
  writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
  server = await listen(app(dir));
  unbuilt = await listen(app(path.join(dir, 'missing')));
});
afterAll(async () => {
  await server.close();
  await unbuilt.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (base: TestServer, p: string, accept?: string) => fetch(`${base.url}${p}`, accept ? { headers: { accept } } : {});

describe('the console at /', () => {
  it('serves index.html at / and for the app’s own routes, with the strict policy and no caching', async () => {
    for (const p of ['/', '/projects/123', '/executions/abc']) {
      const res = await get(server, p, 'text/html,application/xhtml+xml');
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<title>Assay</title>');
      expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(CONSOLE_CSP).toContain("default-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
  });

  it('leaves API, reference and unknown non-browser paths to the API’s JSON 404', async () => {
    for (const [p, accept] of [
      ['/api/v1/nothing', 'text/html'],
      ['/v1/nothing', 'text/html'],
      ['/docs/nothing', 'text/html'],
      ['/projects', 'application/json'],
      ['/projects', '*/*'],
      ['/style.css', 'text/html'],
    ] as const) {
      const res = await get(server, p, accept);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'not_found' });
    }
    const post = await fetch(`${server.url}/projects`, { method: 'POST', headers: { accept: 'text/html' } });
    expect(post.status).toBe(404);
  });

  it('serves hashed assets with a year-long immutable cache, and a missing one as a 404', async () => {
    const res = await get(server, '/assets/index-abc123.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('javascript');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await get(server, '/assets/nope.js')).status).toBe(404);
    expect((await get(server, '/assets/../index.html')).status).not.toBe(200);
  });

  it('answers 501 saying how to build it when the console is not built', async () => {
    const res = await get(unbuilt, '/');
    expect(res.status).toBe(501);
    expect(await res.json()).toMatchObject({ error: 'not_implemented', message: expect.stringContaining('make setup') });
  });
});

describe('the trace viewer at /trace/', () => {
  it('serves Playwright’s viewer from playwright-core without its inline script, under its own policy', async () => {
    const res = await get(server, '/trace/index.html');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Playwright Trace Viewer');
    expect(html).not.toMatch(/<script>/);
    expect(res.headers.get('content-security-policy')).toBe(TRACE_VIEWER_CSP);
    expect(TRACE_VIEWER_CSP).toContain("script-src 'self'");
    expect(TRACE_VIEWER_CSP).toContain("worker-src 'self'");

    const script = /src="\.\/(index\.[^"]+\.js)"/.exec(html)![1]!;
    const js = await get(server, `/trace/${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toContain('immutable');
    const sw = await get(server, '/trace/sw.bundle.js');
    expect(sw.status).toBe(200);
    expect(sw.headers.get('cache-control')).toBe('no-cache');
    expect((await get(server, '/trace')).status).toBe(200); // redirected to /trace/
  });
});
