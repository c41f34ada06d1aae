import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { SERVICE_NODE_ARGS } from '@assay/telemetry';
import { createTestDatabase, freePortForTests, type TestDatabase } from '@assay/testing';
import { bundledServiceArgs } from '../../../deploy/local/src/bundle.js';

/**
 * Runs the real local launcher (`deploy/local/src/launch.ts`) as a child
 * process, the way `make run` does, and reads what it prints.
 */

// A loaded machine (CI beside other jobs) starts seven services and Postgres slowly: raise it there.
const READY_TIMEOUT_MS = Number(process.env.ASSAY_TEST_READY_TIMEOUT_MS) || 120_000;
const STOP_TIMEOUT_MS = 15_000;

/** The monorepo root: the nearest directory up from the cwd holding pnpm-workspace.yaml. */
export function repoRoot(): string {
  let dir = process.cwd();
  while (!existsSync(path.join(dir, 'pnpm-workspace.yaml'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No pnpm-workspace.yaml above ${process.cwd()}: run jest from the repository`);
    dir = parent;
  }
  return dir;
}

/** An environment without the knobs a test sets itself, so the developer's shell cannot leak in. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'ASSAY_HOME', 'ASSAY_PG_PORT', 'GATEWAY_PORT', 'AUTH_PORT', 'TEST_CASE_PORT', 'EXECUTION_RUNNER_PORT', 'DISCOVERY_CRAWLER_PORT', 'ANALYSIS_PORT', 'WEBHOOK_DISPATCHER_PORT', 'PUBLIC_BASE_URL', 'BUS', 'KAFKA_BROKERS', 'PORT', 'HOST', 'REDIS_URL', 'ASSAY_REDIS_PORT', 'STRIPE_WEBHOOK_SECRET']) {
    delete env[name];
  }
  // Tracing only where a test asks for it (tests/e2e/traces.test.ts), never from the developer's shell.
  for (const name of Object.keys(env)) if (name.startsWith('OTEL_')) delete env[name];
  return { ...env, ...extra };
}

export interface StopResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The launcher's own children that were still alive the moment it exited. */
  survivors: number[];
}

export interface Assay {
  gatewayUrl: string;
  serviceKey: string;
  adminEmail: string;
  adminPassword: string;
  /** ASSAY_HOME of this launch (absolute). */
  home: string;
  /** INTERNAL_TOKEN_SECRET from `$ASSAY_HOME/secrets.env`. */
  internalSecret: string;
  gatewayPort: number;
  /** The auth service's own port: services trust callers that sign with the internal secret. */
  authPort: number;
  testCasePort: number;
  /** Every service's own port, by service name. */
  ports: Record<string, number>;
  /** The launcher's pid. */
  pid: number;
  /** Everything the launcher printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Processes the launcher started (Postgres, the services). */
  childPids(): number[];
  /** SIGINT, then waits for the launcher to exit (SIGKILL to it and its children after 15 s). */
  stop(): Promise<StopResult>;
}

export interface StartOptions {
  /** External Postgres; without it the launcher starts its own embedded Postgres in `home`. */
  databaseUrl?: string;
  /** Reuse an ASSAY_HOME (a second start); default: a new temporary directory. */
  home?: string;
  env?: Record<string, string>;
}

/**
 * The bus of every launched stack: `make test-kafka` (tests/e2e/kafka/stack.ts) writes a JSON file
 * of BUS=kafka and KAFKA_* variables (brokers behind TLS and SASL) and names it in
 * ASSAY_E2E_BUS_ENV_FILE; without it the launcher's default (pg).
 */
export function busEnvForTests(): Record<string, string> {
  const file = process.env.ASSAY_E2E_BUS_ENV_FILE;
  return file ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
}

/** Direct children of `pid`, from ps. */
export function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when nothing matches
  }
}

/** True while `pid` runs; a zombie (exited, not yet reaped) counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc: trust kill(0)
  }
}

/** A new ASSAY_HOME under the system temp directory. */
export async function makeAssayHome(): Promise<string> {
  const home = await mkdtemp(path.join(tmpdir(), 'assay-e2e-'));
  // mkdtemp makes it 0700; as root, embedded Postgres runs as the `postgres`
  // user, which must traverse the home to reach its data directory.
  await chmod(home, 0o711);
  return home;
}

export async function removeAssayHome(home: string | undefined): Promise<void> {
  if (home) await rm(home, { recursive: true, force: true });
}

const BOOTSTRAP_LINES = ['ASSAY_GATEWAY_URL', 'ASSAY_SERVICE_KEY', 'ASSAY_ADMIN_EMAIL', 'ASSAY_ADMIN_PASSWORD'] as const;

function parseBootstrap(text: string): Partial<Record<(typeof BOOTSTRAP_LINES)[number], string>> {
  const out: Partial<Record<(typeof BOOTSTRAP_LINES)[number], string>> = {};
  for (const name of BOOTSTRAP_LINES) {
    const match = new RegExp(`^${name}=(.+)$`, 'm').exec(text);
    if (match) out[name] = match[1]!.trim();
  }
  return out;
}

function waitExit(proc: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Starts Assay through the launcher on free ports and resolves once it printed
 * `Assay is running` and the four bootstrap lines.
 * @throws Error carrying the launcher's output when it exits first or is not ready within 60 s.
 */
export async function startAssay(opts: StartOptions = {}): Promise<Assay> {
  // A port found free can be taken by another process before the launcher listens on it (busy CI):
  // the launcher then exits naming it, and a new set of ports is tried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startAssayOnce(opts);
    } catch (err) {
      if (attempt >= 3 || !/In use already/.test((err as Error).message)) throw err;
    }
  }
}

async function startAssayOnce(opts: StartOptions): Promise<Assay> {
  const home = opts.home ?? (await makeAssayHome());
  const ports = new Set<number>();
  while (ports.size < 7) ports.add(await freePortForTests());
  const [gatewayPort, authPort, testCasePort, runnerPort, crawlerPort, webhookPort, analysisPort] = [...ports] as [number, number, number, number, number, number, number];

  const env = cleanEnv({
    ASSAY_HOME: home,
    GATEWAY_PORT: String(gatewayPort),
    AUTH_PORT: String(authPort),
    TEST_CASE_PORT: String(testCasePort),
    EXECUTION_RUNNER_PORT: String(runnerPort),
    DISCOVERY_CRAWLER_PORT: String(crawlerPort),
    WEBHOOK_DISPATCHER_PORT: String(webhookPort),
    ANALYSIS_PORT: String(analysisPort),
    ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
    // Each service's own readiness wait in the launcher matches the test's.
    ASSAY_READY_TIMEOUT_SECONDS: String(Math.ceil(READY_TIMEOUT_MS / 1000)),
    ...busEnvForTests(),
    ...opts.env,
  });
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join('deploy', 'local', 'src', 'launch.ts')], {
    cwd: repoRoot(),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  proc.stdout!.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  proc.stderr!.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  const output = () => chunks.join('');

  // Children are remembered while the launcher lives, to check them after it exits.
  const seenChildren = new Set<number>();
  const childPids = () => {
    for (const pid of childrenOf(proc.pid!)) seenChildren.add(pid);
    return [...seenChildren];
  };

  let stopped: Promise<StopResult> | undefined;
  const stop = (): Promise<StopResult> =>
    (stopped ??= (async () => {
      const children = childPids();
      let survivors: number[] = [];
      proc.once('exit', () => (survivors = children.filter(isAlive)));
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGINT');
        if (!(await waitExit(proc, STOP_TIMEOUT_MS))) {
          for (const pid of childPids()) {
            try {
              process.kill(pid, 'SIGKILL');
            } catch {
              // Already gone (ESRCH): nothing to kill.
            }
          }
          proc.kill('SIGKILL');
          await waitExit(proc, 5000);
        }
      } else {
        survivors = children.filter(isAlive);
      }
      return { code: proc.exitCode, signal: proc.signalCode, survivors };
    })());

  const lines = await new Promise<ReturnType<typeof parseBootstrap>>((resolve, reject) => {
    const fail = (why: string) => {
      cleanup();
      reject(new Error(`${why}\n--- launcher output ---\n${output()}`));
    };
    const check = () => {
      const text = output();
      const at = text.indexOf('Assay is running');
      if (at < 0) return;
      const parsed = parseBootstrap(text.slice(at));
      if (BOOTSTRAP_LINES.every((n) => parsed[n] !== undefined)) {
        cleanup();
        resolve(parsed);
      }
    };
    const onExit = (code: number | null, signal: string | null) => fail(`The launcher exited before it was ready (code ${code}, signal ${signal})`);
    const timer = setTimeout(() => {
      void stop();
      fail(`The launcher was not ready within ${READY_TIMEOUT_MS / 1000} s`);
    }, READY_TIMEOUT_MS);
    const cleanup = () => {
      clearTimeout(timer);
      proc.stdout!.off('data', check);
      proc.off('exit', onExit);
    };
    proc.stdout!.on('data', check);
    proc.once('exit', onExit);
  });

  const secrets = await readFile(path.join(home, 'secrets.env'), 'utf8');
  const internalSecret = /^INTERNAL_TOKEN_SECRET=(.+)$/m.exec(secrets)?.[1];
  if (!internalSecret) {
    await stop();
    throw new Error(`No INTERNAL_TOKEN_SECRET in ${home}/secrets.env`);
  }
  childPids();

  return {
    gatewayUrl: lines.ASSAY_GATEWAY_URL!,
    serviceKey: lines.ASSAY_SERVICE_KEY!,
    adminEmail: lines.ASSAY_ADMIN_EMAIL!,
    adminPassword: lines.ASSAY_ADMIN_PASSWORD!,
    home,
    internalSecret,
    gatewayPort,
    authPort,
    testCasePort,
    ports: {
      gateway: gatewayPort,
      auth: authPort,
      'test-case': testCasePort,
      'execution-runner': runnerPort,
      'discovery-crawler': crawlerPort,
      'webhook-dispatcher': webhookPort,
      analysis: analysisPort,
    },
    pid: proc.pid!,
    output,
    childPids,
    stop,
  };
}

export interface LaunchedForFile {
  readonly assay: Assay;
  readonly database: TestDatabase;
}

/**
 * One launched Assay on a fresh database for the whole test file: started in
 * `beforeAll` (registered now, so it runs before the file's own hooks) and
 * stopped, its database dropped and its home removed, in `afterAll`.
 */
export function launchForFile(opts: Omit<StartOptions, 'databaseUrl'> = {}): LaunchedForFile {
  const state = {} as { assay: Assay; database: TestDatabase };
  beforeAll(async () => {
    state.database = await createTestDatabase();
    state.assay = await startAssay({ ...opts, databaseUrl: state.database.url });
  });
  afterAll(async () => {
    await state.assay?.stop();
    await state.database?.drop();
    await removeAssayHome(state.assay?.home);
  });
  return state;
}

export interface ServiceProcess {
  proc: ChildProcess;
  port: number;
  /** Everything it printed so far. */
  output(): string;
}

/**
 * One more process of `service` (a second pod, in a cluster) on a launched
 * Assay's database and bus, on a free port; resolves once it answers /readyz.
 * The caller kills it.
 */
export async function startServiceProcess(launched: LaunchedForFile, service: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const port = await freePortForTests();
  // The launcher's build of the services when it made one (ASSAY_BUNDLE), as the launched ones run; else the sources.
  const args = bundledServiceArgs(path.join(launched.assay.home, 'build'), service) ?? [...SERVICE_NODE_ARGS, path.join('services', service, 'src', 'main.ts')];
  const proc = spawn(process.execPath, args, {
    cwd: repoRoot(),
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: launched.database.url,
      BUS: 'pg',
      INTERNAL_TOKEN_SECRET: launched.assay.internalSecret,
      PUBLIC_BASE_URL: launched.assay.gatewayUrl,
      TEST_CASE_URL: `http://127.0.0.1:${launched.assay.testCasePort}`,
      CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      // The fixture apps listen on loopback.
      EGRESS_ALLOW_LOOPBACK: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  proc.stdout!.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  proc.stderr!.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  const output = () => chunks.join('');
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${service} exited (code ${proc.exitCode})\n${output()}`);
    if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)) return { proc, port, output };
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`${service} was not ready within ${READY_TIMEOUT_MS / 1000} s\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Every process below `pid`, depth first. */
export function descendantsOf(pid: number): number[] {
  return childrenOf(pid).flatMap((c) => [c, ...descendantsOf(c)]);
}

/** SIGKILL, and resolves once the process and everything it started (Chromium) are gone. */
export async function killHard(proc: ChildProcess): Promise<void> {
  const tree = descendantsOf(proc.pid!);
  const exited = new Promise((r) => (proc.exitCode !== null || proc.signalCode !== null ? r(undefined) : proc.once('exit', r)));
  proc.kill('SIGKILL');
  await exited;
  // Chromium notices its pipe closed and exits with its parent.
  const deadline = Date.now() + 15_000;
  while (tree.some(isAlive)) {
    if (Date.now() > deadline) throw new Error(`processes outlived their killed parent: ${tree.filter(isAlive).join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

