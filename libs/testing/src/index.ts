import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { dropDatabase, ensureDatabase, freePort } from '@assay/embedded-pg';
import { createLogger, createSilentLogger, type Logger } from '@assay/logger';

/**
 * Helpers for integration tests: a fresh database per test file on the
 * Postgres that jest's global setup started (or TEST_DATABASE_URL), and
 * real HTTP servers on free ports.
 */

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export function testDatabaseAdminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests through jest (its global setup starts Postgres)');
  return url;
}

/** A new, empty database; `drop()` removes it. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const admin = testDatabaseAdminUrl();
  const name = `t_${randomBytes(6).toString('hex')}`;
  const url = await ensureDatabase(admin, name);
  return { url, name, drop: () => dropDatabase(admin, name) };
}

export interface TestServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Listens with `handler` (an express app, say) on a free loopback port. */
export async function listen(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, stepMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/**
 * A harness started before a test file's tests and closed after them, in one
 * line instead of a `let`, a `beforeAll` and an `afterAll`:
 * `const svc = useHarness(() => startTestCaseService());`. The object answered
 * stands for the harness: each property read goes to the started one (methods
 * bound to it). Read it only inside tests and hooks: before `beforeAll` has
 * run there is no harness yet, and it says so.
 */
export function useHarness<T extends { close(): unknown }>(start: () => Promise<T>): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as T, {
    get(_, key) {
      if (!started) throw new Error(`The harness is not started yet (read of ${String(key)}): use it inside a test or a hook`);
      const value: unknown = Reflect.get(started, key);
      return typeof value === 'function' ? value.bind(started) : value;
    },
    has: (_, key) => !!started && Reflect.has(started, key),
  });
}

/** A logger for the services a test starts: silent unless `TEST_LOG` names a level (`TEST_LOG=debug pnpm exec jest …`). */
export function testLogger(): Logger {
  const level = process.env.TEST_LOG;
  return level ? createLogger('test', level) : createSilentLogger();
}

/**
 * A TCP server on 127.0.0.2 that counts every connection and drops it at
 * once: the address an egress test points a redirect or a request at, to
 * show it was never reached (`hits` stays 0).
 */
export interface ConnectionTrap {
  port: number;
  /** Connections it received. */
  readonly hits: number;
  close(): Promise<void>;
}

export async function startConnectionTrap(): Promise<ConnectionTrap> {
  let hits = 0;
  const server = net.createServer((socket) => {
    hits += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.2', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    get hits() {
      return hits;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const TEST_INTERNAL_SECRET = 'test-internal-token-secret-0123456789abcdef';

export { freePort as freePortForTests } from '@assay/embedded-pg';

export interface Reply {
  status: number;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: any;
  headers: Headers;
}

/** One real HTTP call with fetch; JSON in, JSON (or text) out. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<Reply> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers },
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* HTML or empty */
  }
  return { status: res.status, body, headers: res.headers };
}

/** A GET whose path is sent byte for byte (fetch would normalise dot segments). */
export function rawGet(baseUrl: string, path: string): Promise<{ status: number; body: string; contentType: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, contentType: String(res.headers['content-type'] ?? '') }));
    });
    req.on('error', reject);
    req.end();
  });
}

export const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });

export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, then SIGKILL); its data is not kept. */
  stop(): Promise<void>;
  /** Starts it again on the same port (after `stop`). */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

/** Answers true when a Redis server on `port` replies PONG to PING. */
function redisPongs(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString('utf8').startsWith('+PONG')));
  });
}

/**
 * Debian's `redis-server` on a free loopback port with its files in a new
 * temporary directory (no persistence), for tests of Redis-backed features.
 */
export async function startTestRedis(binary = process.env.REDIS_SERVER_PATH ?? 'redis-server'): Promise<TestRedis> {
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'assay-redis-'));
  let proc: ChildProcess | undefined;
  const start = async () => {
    const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    proc = child;
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const deadline = Date.now() + 15_000;
    while (!(await redisPongs(port))) {
      if (child.exitCode !== null) throw new Error(`redis-server exited (code ${child.exitCode}): ${stderr}`);
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port} within 15 s: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    const child = proc;
    proc = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    async close() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
export { startKafkaFront, createTestPki, type KafkaFront, type KafkaFrontOptions, type KafkaFrontStats, type FrontMechanism, type TestPki } from './kafka-front.js';
