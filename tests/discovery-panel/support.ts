// What the panel's app starters share: a static file server on loopback, and a
// child process started, waited for and stopped. Nothing here reaches beyond
// 127.0.0.1.
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

/** A started panel app: where it answers, and how to stop it (and remove what it wrote). */
export interface RunningApp {
  url: string;
  close(): Promise<void>;
}

export const PANEL_DIR = path.dirname(fileURLToPath(import.meta.url));
/** Built sites and throw-away copies live here (ignored by git), as the fixture SPA's build does. */
export const PANEL_TMP = path.join(PANEL_DIR, '..', '.tmp', 'discovery-panel');

const require = createRequire(import.meta.url);
/** The folder of an npm package installed for the panel (tests/discovery-panel/package.json). */
export const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.yaml': 'text/yaml; charset=utf-8',
  '.map': 'application/json',
  '.xml': 'application/xml',
};

export interface StaticOptions {
  /** URL path prefix → folder; the longest prefix wins. */
  mounts: Record<string, string>;
  /** Answers before the files: a handler returns true when it answered. */
  handle?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean | Promise<boolean>;
  /** Page answered (with 404) for a path with no file. */
  notFound?: string;
}

/** Serves folders on a free loopback port; a folder's index.html answers for it. */
export async function serveStatic(opts: StaticOptions): Promise<RunningApp> {
  const mounts = Object.entries(opts.mounts).sort((a, b) => b[0].length - a[0].length);
  const server = http.createServer((req, res) => {
    void (async () => {
      if (opts.handle && (await opts.handle(req, res))) return;
      const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const mount = mounts.find(([prefix]) => pathname === prefix || pathname.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`));
      let file: string | undefined;
      if (mount) {
        const rel = pathname.slice(mount[0].length).replace(/^\/+/, '');
        const candidate = path.join(mount[1], rel);
        if (candidate.startsWith(mount[1])) {
          const st = await stat(candidate).catch(() => undefined);
          if (st?.isFile()) file = candidate;
          else if (st?.isDirectory()) {
            if (!pathname.endsWith('/')) {
              res.writeHead(301, { location: `${pathname}/` }).end();
              return;
            }
            if ((await stat(path.join(candidate, 'index.html')).catch(() => undefined))?.isFile()) file = path.join(candidate, 'index.html');
          } else if ((await stat(`${candidate}.html`).catch(() => undefined))?.isFile()) file = `${candidate}.html`;
        }
      }
      if (!file) {
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
        if (opts.notFound) createReadStream(opts.notFound).pipe(res);
        else res.end('<!doctype html><title>Not found</title><h1>Not found</h1>');
        return;
      }
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
      createReadStream(file).pipe(res);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads a request's body as text. */
export async function bodyOf(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts `command` and waits until `url` answers (any HTTP status under 500);
 * the process is stopped (SIGTERM, then SIGKILL) by close().
 */
export async function startProcess(command: string, args: string[], url: string, opts: { cwd?: string; env?: NodeJS.ProcessEnv; probe?: string; cleanup?: () => Promise<void> } = {}): Promise<RunningApp> {
  const child: ChildProcess = spawn(command, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (c: Buffer) => (output = (output + c.toString()).slice(-4000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await opts.cleanup?.();
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      await close();
      throw new Error(`${command} exited with ${child.exitCode}: ${output}`);
    }
    const res = await fetch(`${url}${opts.probe ?? '/'}`).catch(() => undefined);
    if (res && res.status < 500) break;
    if (Date.now() > deadline) {
      await close();
      throw new Error(`${command} did not answer within 60 s: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, close };
}
