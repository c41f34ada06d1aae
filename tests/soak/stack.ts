import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureDatabase, freePort } from '@assay/embedded-pg';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import { EVENTS, TOPICS, type Topic } from '@assay/contracts';
import { startKafkaFront, type KafkaFront } from '@assay/testing';
import { bundleServices, type ServiceBundles } from '../../deploy/local/src/bundle.js';
import { autoCreateTopics, groupBacklog, mockClusterAvailable, startMockCluster, type GroupBacklog, type MockCluster } from '../../libs/bus/test/mock-cluster.js';

/**
 * The stack of `make soak`: what `make run` starts (deploy/local/src/launch.ts:
 * embedded Postgres in its own process, redis-server, every service built into
 * JavaScript and started with the launcher's environment), plus what the
 * launcher leaves to Kubernetes: a service that dies is started again on the
 * same port after a short back-off (the launcher would stop everything), and
 * Postgres and Redis can be stopped and started on the same port and data.
 */

export const SERVICES = ['auth', 'test-case', 'execution-runner', 'discovery-crawler', 'analysis', 'webhook-dispatcher', 'gateway'] as const;
export type ServiceName = (typeof SERVICES)[number];

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const RESTART_BACKOFF_MS = 1000;
const READY_TIMEOUT_MS = 120_000;

interface Supervised {
  name: ServiceName;
  port: number;
  /** The build it runs (the repository's, or another release's for `make upgrade-drill`) and its name. */
  bundles: ServiceBundles;
  build: string;
  /** Receives new connections through the service's front (`fronts`). */
  inPool: boolean;
  env: Record<string, string>;
  proc?: ChildProcess;
  /** Exits nobody asked for (not counting the soak's own kills). */
  unexpectedExits: number;
  /** Kills the soak made. */
  kills: number;
  restarts: number;
  lastLog: string[];
}

/**
 * BUS=kafka without KAFKA_BROKERS: librdkafka's mock cluster (three brokers) behind KafkaFront, as
 * `make test-kafka` runs it (tests/e2e/kafka/stack.ts) but in plaintext: the front names a
 * controller (kafkajs's idempotent producer needs one) and can be restarted (every connection
 * reset, new ones refused) while the cluster keeps its data. The topics, each group's retry and
 * dead-letter topics among them, are made by auto-creation; the services run with
 * KAFKA_PROVISION_TOPICS=false.
 */
export const KAFKA_RETRY_DELAYS = ['2s', '10s', '30s'];
/** Consumer groups and the topics they consume (the gateway's broadcast groups commit nothing). */
const PUBLIC_TOPICS = (Object.values(TOPICS) as Topic[]).filter((t) => Object.values(EVENTS).some((c) => c.topic === t && c.visibility === 'public'));
export const KAFKA_SUBSCRIPTIONS: Record<string, Topic[]> = {
  'webhook-dispatcher': PUBLIC_TOPICS,
  analysis: [TOPICS.executionEvents, TOPICS.discoveryEvents],
  auth: [TOPICS.executionEvents, TOPICS.discoveryEvents],
  'execution-runner': [TOPICS.executionCommands],
  // The runner's suite shards (issue 42) are a group of their own on the commands topic; without its retry
  // topics auto-created the runner could not join it on the mock cluster and exited (found by make upgrade-drill).
  'execution-runner-suites': [TOPICS.executionCommands],
};

export interface KafkaControl {
  brokers: string[];
  /** The brokers' front stopped (open connections reset, new ones refused) for `ms`, then serving again. */
  restartFront(ms: number): Promise<void>;
  /** Messages not yet committed by each consumer group (main and retry topics) and dead letters. */
  backlog(): Promise<GroupBacklog>;
}

async function startKafka(): Promise<{ control: KafkaControl; front: KafkaFront; cluster: MockCluster }> {
  if (!mockClusterAvailable) throw new Error('BUS=kafka needs KAFKA_BROKERS or @confluentinc/kafka-javascript (the mock cluster): make setup builds it against Debian librdkafka-dev');
  const cluster = await startMockCluster(3);
  const groups = Object.keys(KAFKA_SUBSCRIPTIONS);
  const retryTopics = (t: string, g: string) => KAFKA_RETRY_DELAYS.map((_, i) => `${t}.retry.${g}.${i + 1}`);
  const topics = Object.values(TOPICS).flatMap((t) => [t, ...groups.flatMap((g) => [`${t}.dlq.${g}`, ...retryTopics(t, g)])]);
  await autoCreateTopics(cluster.brokers, topics);
  const front = await startKafkaFront({ upstream: cluster.brokers });
  const pairs: Array<[string, string]> = [];
  const dlqs: string[] = [];
  for (const [g, ts] of Object.entries(KAFKA_SUBSCRIPTIONS)) {
    for (const t of ts) {
      pairs.push([`${g}.${t}`, t], ...retryTopics(t, g).map((r): [string, string] => [`${g}.${t}.retry`, r]));
      dlqs.push(`${t}.dlq.${g}`);
    }
  }
  const control: KafkaControl = {
    brokers: front.brokers,
    async restartFront(ms) {
      front.refuse();
      await new Promise((r) => setTimeout(r, ms));
      front.resume();
    },
    backlog: () => groupBacklog(front.brokers, pairs, dlqs),
  };
  return { control, front, cluster };
}

export interface Stack {
  home: string;
  kafka?: KafkaControl;
  gatewayUrl: string;
  databaseUrl: string;
  internalSecret: string;
  ports: Record<ServiceName, number>;
  redis?: Redis;
  pids(): Partial<Record<ServiceName, number>>;
  /** Resident memory of each service's process in MB (its own process, not its Chromium children). */
  memoryMb(): Promise<Partial<Record<ServiceName, number>>>;
  /** SIGKILL of the service's process; it is started again (after the back-off) like a pod. Resolves when it answers /readyz. */
  kill(service: ServiceName): Promise<{ killedAt: number; readyAt: number }>;
  stopPostgres(): Promise<void>;
  startPostgres(): Promise<void>;
  stopRedis(): Promise<void>;
  startRedis(): Promise<void>;
  unexpectedExits(): Record<string, number>;
  /** Recent log lines of a service (the last 200). */
  logs(service: ServiceName): string[];
  /** Every replica's log lines received between `from` and `to` (epoch ms), oldest first (the last 20000 lines are kept). */
  logsBetween(from: number, to: number): LogLine[];
  /** What happened to each replica and when (started, ready and in its pool, out of the pool, SIGTERM, exited), oldest first. */
  timeline(): ReplicaEvent[];
  /** This repository's build (what the stack starts unless `initial` says otherwise). */
  build: ServiceBundles;
  /**
   * With `fronts`: one more replica of `service` from `bundles` (its own port, the service's
   * environment plus `env`), in its front's pool once it answers /readyz, as a Deployment's new pod.
   */
  addReplica(service: ServiceName, replica: { bundles: ServiceBundles; build: string; env?: Record<string, string> }): Promise<ReplicaInfo>;
  /** Out of its front's pool first (no new connection reaches it), then SIGTERM and wait for its exit (at most 30 s), as a pod's termination. */
  removeReplica(service: ServiceName, port: number): Promise<void>;
  replicas(service: ServiceName): ReplicaInfo[];
  provisionOrganization(name: string, plan: 'starter' | 'growth' | 'pro'): Promise<{ orgId: string; email: string; password: string }>;
  stop(): Promise<void>;
}

export interface LogLine {
  at: number;
  service: ServiceName;
  port: number;
  build: string;
  line: string;
}

export interface ReplicaEvent {
  at: number;
  service: ServiceName;
  port: number;
  build: string;
  event: 'started' | 'in pool' | 'out of pool' | 'sigterm' | 'exited';
  detail?: string;
}

/**
 * Which replicas of each service served at `at` (in their pool) and which were stopping (out of the pool, not yet
 * exited), from the stack's timeline: for judging an answer given at that moment.
 */
export function replicasAt(timeline: ReplicaEvent[], at: number, when: (t: number) => string): Record<string, { serving: string[]; stopping: string[] }> {
  const state = new Map<string, { service: string; label: string; inPool: boolean; stopping: boolean; exited: boolean }>();
  for (const e of timeline) {
    if (e.at > at) break;
    const k = `${e.service}:${e.port}`;
    const r = state.get(k) ?? { service: e.service, label: `${e.build} :${e.port}`, inPool: false, stopping: false, exited: false };
    if (e.event === 'started') Object.assign(r, { inPool: false, stopping: false, exited: false });
    if (e.event === 'in pool') r.inPool = true;
    if (e.event === 'out of pool') Object.assign(r, { inPool: false, stopping: true, label: `${r.label} (out of the pool at ${when(e.at)})` });
    if (e.event === 'sigterm') r.label = `${r.label.replace(/\)$/, '')}, SIGTERM at ${when(e.at)})`;
    if (e.event === 'exited') Object.assign(r, { inPool: false, stopping: false, exited: true });
    state.set(k, r);
  }
  const out: Record<string, { serving: string[]; stopping: string[] }> = {};
  for (const r of state.values()) {
    const o = (out[r.service] ??= { serving: [], stopping: [] });
    if (r.inPool) o.serving.push(r.label);
    else if (r.stopping) o.stopping.push(r.label);
  }
  return out;
}

export interface ReplicaInfo {
  port: number;
  pid?: number;
  build: string;
}

export interface StackOptions {
  bus: 'pg' | 'kafka';
  /** The build every service starts from (default: this repository's) and its name. */
  initial?: { bundles: ServiceBundles; build: string };
  /**
   * Each service's port is a TCP front that hands each new connection to the next replica of its pool in turn
   * (a Kubernetes Service), so replicas of two builds can serve side by side (`make upgrade-drill`).
   */
  fronts?: boolean;
  kafkaBrokers?: string;
  logLevel?: string;
  /** Extra environment for every service. */
  env?: Record<string, string>;
}

function say(line: string): void {
  process.stdout.write(`[soak] ${line}\n`);
}

async function readyz(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(3000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

async function rssMb(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
  const kb = status && /^VmRSS:\s+(\d+)/m.exec(status)?.[1];
  return kb ? Math.round(Number(kb) / 1024) : undefined;
}

export interface Redis {
  url: string;
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  killNow(): void;
}

/** redis-server as the launcher runs it (loopback, its own directory), restartable on the same port. */
async function startRedis(dir: string): Promise<Redis> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const port = await freePort();
  let proc: ChildProcess | undefined;
  const start = async () => {
    const child = spawn(process.env.REDIS_SERVER_PATH ?? 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    proc = child;
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('spawn', () => resolve());
    });
    const deadline = Date.now() + 15_000;
    for (;;) {
      const up = await new Promise<boolean>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(false));
      });
      if (up) return;
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const stop = async () => {
    const child = proc;
    proc = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, start, stop, killNow: () => proc?.kill('SIGKILL') };
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  const home = await mkdtemp(path.join(tmpdir(), 'assay-soak-'));
  // As root embedded Postgres runs as `postgres`, which must traverse the home.
  await chmod(home, 0o711);
  const secrets = {
    INTERNAL_TOKEN_SECRET: randomBytes(32).toString('base64url'),
    SESSION_TOKEN_SECRET: randomBytes(32).toString('base64url'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64url'),
    SECRETS_KEY: randomBytes(32).toString('base64url'),
  };

  const buildStarted = Date.now();
  const bundles: ServiceBundles = await bundleServices(REPO, SERVICES, path.join(home, 'build'));
  say(`services built in ${((Date.now() - buildStarted) / 1000).toFixed(1)} s`);

  // Postgres: deploy/local/src/postgres.ts, as the launcher runs it, on one port for the whole soak.
  const pgPort = await freePort();
  let postgres: ChildProcess | undefined;
  let adminUrl = '';
  const startPostgres = async (): Promise<void> => {
    const proc = spawn(process.execPath, ['--import', 'tsx', path.join('deploy', 'local', 'src', 'postgres.ts')], {
      cwd: REPO,
      env: { ...process.env, PG_DATA_DIR: path.join(home, 'pg'), PG_PORT: String(pgPort) },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    postgres = proc;
    let err = '';
    proc.stderr!.on('data', (c: Buffer) => (err = (err + c.toString('utf8')).slice(-4000)));
    adminUrl = await new Promise<string>((resolve, reject) => {
      let out = '';
      proc.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve((JSON.parse(line) as { url: string }).url);
      });
      proc.once('exit', (code) => reject(new Error(`embedded Postgres exited (code ${code}): ${err}`)));
    });
  };
  const stopPostgres = async (): Promise<void> => {
    const proc = postgres;
    postgres = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  };
  await startPostgres();
  const databaseUrl = await ensureDatabase(adminUrl, 'assay');

  let redis: Redis | undefined;
  try {
    redis = await startRedis(path.join(home, 'redis'));
  } catch (err) {
    say(`redis-server did not start (${String(err)}): the gateway counts rate limits in process`);
  }

  let kafka: Awaited<ReturnType<typeof startKafka>> | undefined;
  if (opts.bus === 'kafka' && !opts.kafkaBrokers) kafka = await startKafka();

  const ports = {} as Record<ServiceName, number>;
  const taken = new Set<number>([pgPort, redis?.port ?? 0]);
  const newPort = async () => {
    let port = await freePort();
    while (taken.has(port)) port = await freePort();
    taken.add(port);
    return port;
  };
  for (const name of SERVICES) ports[name] = await newPort();
  const initial = opts.initial ?? { bundles, build: 'this repository' };
  const local = (name: ServiceName) => `http://127.0.0.1:${ports[name]}`;
  const gatewayUrl = local('gateway');
  const common: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    BUS: opts.bus,
    ...(opts.kafkaBrokers ? { KAFKA_BROKERS: opts.kafkaBrokers, KAFKA_REPLICATION_FACTOR: '1', KAFKA_MIN_INSYNC_REPLICAS: '1' } : {}),
    ...(kafka
      ? { KAFKA_BROKERS: kafka.control.brokers.join(','), KAFKA_PROVISION_TOPICS: 'false', KAFKA_RETRY_DELAYS: KAFKA_RETRY_DELAYS.join(','), KAFKA_SESSION_TIMEOUT_MS: '10000' }
      : {}),
    INTERNAL_TOKEN_SECRET: secrets.INTERNAL_TOKEN_SECRET,
    PUBLIC_BASE_URL: gatewayUrl,
    LOG_LEVEL: opts.logLevel ?? 'warn',
    HOST: '127.0.0.1',
    ...opts.env,
  };
  const egress = { EGRESS_ALLOW_LOOPBACK: 'true' };
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium-headless-shell';
  // The launcher's per-service environment (deploy/local/src/launch.ts).
  const envOf: Record<ServiceName, Record<string, string>> = {
    auth: { SESSION_TOKEN_SECRET: secrets.SESSION_TOKEN_SECRET },
    'test-case': { SECRETS_KEY: secrets.SECRETS_KEY },
    'discovery-crawler': { TEST_CASE_URL: local('test-case'), CHROMIUM_PATH: chromium, ...egress },
    'execution-runner': {
      TEST_CASE_URL: local('test-case'),
      DISCOVERY_CRAWLER_URL: local('discovery-crawler'),
      CHROMIUM_PATH: chromium,
      RUNNER_CONCURRENCY: process.env.RUNNER_CONCURRENCY ?? '2',
      AUTH_URL: local('auth'),
      ...egress,
    },
    analysis: { EXECUTION_RUNNER_URL: local('execution-runner'), TEST_CASE_URL: local('test-case'), DISCOVERY_CRAWLER_URL: local('discovery-crawler'), CHROMIUM_PATH: chromium, ...egress },
    'webhook-dispatcher': { WEBHOOK_SECRET_KEY: secrets.WEBHOOK_SECRET_KEY, WEBHOOK_ALLOW_LOCAL_HTTP: 'true', AUTH_URL: local('auth'), ...egress },
    gateway: {
      AUTH_URL: local('auth'),
      TEST_CASE_URL: local('test-case'),
      EXECUTION_RUNNER_URL: local('execution-runner'),
      DISCOVERY_CRAWLER_URL: local('discovery-crawler'),
      ANALYSIS_URL: local('analysis'),
      WEBHOOK_DISPATCHER_URL: local('webhook-dispatcher'),
      ...(redis ? { REDIS_URL: redis.url } : {}),
    },
  };

  let stopping = false;
  const supervised = new Map<ServiceName, Supervised>();
  const logLines: LogLine[] = [];
  const events: ReplicaEvent[] = [];
  const note = (s: Supervised, event: ReplicaEvent['event'], detail?: string) => events.push({ at: Date.now(), service: s.name, port: s.port, build: s.build, event, ...(detail ? { detail } : {}) });
  const killing = new Set<ServiceName>();

  const spawnService = (s: Supervised): ChildProcess => {
    // Only what the launcher passes: PATH and the like from our environment, then the service's own.
    const proc = spawn(process.execPath, [...s.bundles.nodeArgs(s.name), s.bundles.entry(s.name)], {
      cwd: REPO,
      env: { ...process.env, ...common, ...s.env, PORT: String(s.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (c: Buffer) => {
      for (const line of c.toString('utf8').split('\n')) {
        if (!line) continue;
        s.lastLog.push(line);
        if (s.lastLog.length > 200) s.lastLog.shift();
        logLines.push({ at: Date.now(), service: s.name, port: s.port, build: s.build, line });
        if (logLines.length > 20_000) logLines.splice(0, logLines.length - 20_000);
      }
    };
    proc.stdout!.on('data', keep);
    proc.stderr!.on('data', keep);
    note(s, 'started');
    proc.once('exit', (code, signal) => {
      note(s, 'exited', `code ${code}, signal ${signal}`);
      if (stopping || s.proc !== proc) return;
      if (killing.has(s.name)) return;
      s.unexpectedExits++;
      say(`${s.name} exited unexpectedly (code ${code}, signal ${signal}); starting it again`);
      say(`  its last lines:\n${s.lastLog.slice(-40).map((l) => `    ${l.slice(0, 400)}`).join('\n')}`);
      setTimeout(() => {
        if (stopping) return;
        s.restarts++;
        s.proc = spawnService(s);
      }, RESTART_BACKOFF_MS);
    });
    return proc;
  };

  const waitReady = async (s: Supervised): Promise<void> => {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await readyz(s.port))) {
      if (Date.now() > deadline) throw new Error(`${s.name} was not ready within ${READY_TIMEOUT_MS / 1000} s\n${s.lastLog.slice(-20).join('\n')}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  };

  // Whatever happens to the soak (an error, Ctrl-C), no service outlives it; Postgres stops when our pipe closes.
  process.once('exit', () => {
    stopping = true;
    for (const s of [...pools.values()].flat()) if (s.proc && s.proc.exitCode === null) s.proc.kill('SIGKILL');
    redis?.killNow();
  });
  // Every replica of each service (the first one is `supervised`'s until it is removed).
  const pools = new Map<ServiceName, Supervised[]>(SERVICES.map((n) => [n, []]));
  const exitsOfRemoved = new Map<ServiceName, number>();
  const frontServers: net.Server[] = [];
  for (const name of SERVICES) {
    const port = opts.fronts ? await newPort() : ports[name];
    const first: Supervised = { name, port, bundles: initial.bundles, build: initial.build, inPool: true, env: envOf[name], unexpectedExits: 0, kills: 0, restarts: 0, lastLog: [] };
    supervised.set(name, first);
    pools.get(name)!.push(first);
    if (opts.fronts) frontServers.push(await startFront(ports[name], () => pools.get(name)!.filter((r) => r.inPool)));
  }
  const backends = SERVICES.filter((n) => n !== 'gateway').map((n) => supervised.get(n)!);
  for (const s of backends) s.proc = spawnService(s);
  await Promise.all(backends.map(waitReady));
  const gw = supervised.get('gateway')!;
  gw.proc = spawnService(gw);
  await waitReady(gw);
  for (const s of supervised.values()) note(s, 'in pool');
  const replicaInfo = (r: Supervised): ReplicaInfo => ({ port: r.port, pid: r.proc?.pid, build: r.build });

  const stack: Stack = {
    home,
    gatewayUrl,
    databaseUrl,
    internalSecret: secrets.INTERNAL_TOKEN_SECRET,
    ports,
    redis,
    ...(kafka ? { kafka: kafka.control } : {}),
    pids: () => Object.fromEntries([...supervised].map(([n, s]) => [n, s.proc?.pid])),
    build: bundles,
    async addReplica(service, replica) {
      if (!opts.fronts) throw new Error('addReplica needs a stack started with fronts');
      const r: Supervised = { name: service, port: await newPort(), bundles: replica.bundles, build: replica.build, inPool: false, env: { ...envOf[service], ...replica.env }, unexpectedExits: 0, kills: 0, restarts: 0, lastLog: [] };
      pools.get(service)!.push(r);
      r.proc = spawnService(r);
      await waitReady(r);
      r.inPool = true;
      note(r, 'in pool');
      supervised.set(service, r);
      return replicaInfo(r);
    },
    async removeReplica(service, port) {
      const pool = pools.get(service)!;
      const r = pool.find((x) => x.port === port);
      if (!r) throw new Error(`${service} has no replica on port ${port}`);
      r.inPool = false;
      note(r, 'out of pool');
      pool.splice(pool.indexOf(r), 1);
      exitsOfRemoved.set(service, (exitsOfRemoved.get(service) ?? 0) + r.unexpectedExits);
      if (supervised.get(service) === r && pool.length) supervised.set(service, pool[pool.length - 1]!);
      const proc = r.proc;
      r.proc = undefined;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((res) => proc.once('exit', res));
      proc.kill('SIGTERM');
      note(r, 'sigterm');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
    replicas: (service) => pools.get(service)!.map(replicaInfo),
    async memoryMb() {
      const out: Partial<Record<ServiceName, number>> = {};
      for (const [n, s] of supervised) if (s.proc?.pid) out[n] = await rssMb(s.proc.pid);
      return out;
    },
    async kill(service) {
      const s = supervised.get(service)!;
      const proc = s.proc!;
      killing.add(service);
      const exited = new Promise((r) => (proc.exitCode !== null || proc.signalCode !== null ? r(undefined) : proc.once('exit', r)));
      const killedAt = Date.now();
      proc.kill('SIGKILL');
      s.kills++;
      await exited;
      killing.delete(service);
      // Kubernetes restarts a crashed container at once the first time (back-off grows later).
      await new Promise((r) => setTimeout(r, RESTART_BACKOFF_MS));
      s.restarts++;
      s.proc = spawnService(s);
      await waitReady(s);
      return { killedAt, readyAt: Date.now() };
    },
    stopPostgres,
    startPostgres,
    async stopRedis() {
      await redis?.stop();
    },
    async startRedis() {
      await redis?.start();
    },
    // Every replica's, those already removed included (they stay in no pool but were counted while in one).
    unexpectedExits: () => Object.fromEntries([...pools].map(([n, replicas]) => [n, replicas.reduce((sum, r) => sum + r.unexpectedExits, 0) + (exitsOfRemoved.get(n) ?? 0)])),
    logs: (service) => supervised.get(service)!.lastLog,
    logsBetween: (from, to) => logLines.filter((l) => l.at >= from && l.at <= to),
    timeline: () => [...events],
    async provisionOrganization(name, plan) {
      const owner = { email: `${name.toLowerCase().replace(/\W/g, '')}@soak.test`, name: `${name} owner`, password: 'a long enough password 12345' };
      const res = await fetch(`${local('auth')}/internal/organizations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [PRINCIPAL_HEADER]: await signPrincipal(secrets.INTERNAL_TOKEN_SECRET, servicePrincipal('soak')) },
        body: JSON.stringify({ name, plan, owner }),
      });
      const body = (await res.json()) as { organization: { id: string } };
      if (res.status !== 201) throw new Error(`provisioning failed: ${res.status} ${JSON.stringify(body)}`);
      return { orgId: body.organization.id, email: owner.email, password: owner.password };
    },
    async stop() {
      stopping = true;
      for (const server of frontServers) server.close();
      for (const s of [...pools.values()].flat().reverse()) {
        const proc = s.proc;
        if (!proc || proc.exitCode !== null || proc.signalCode !== null) continue;
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 8000);
        await exited;
        clearTimeout(timer);
      }
      await redis?.stop();
      if (kafka) {
        await kafka.front.close();
        await kafka.cluster.stop();
      }
      await stopPostgres();
      await rm(home, { recursive: true, force: true });
    },
  };
  await mkdir(home, { recursive: true });
  return stack;
}

/**
 * A Service's front: each new connection on `port` goes to the next replica `pool()` names, in turn, and
 * stays with it (bytes relayed both ways). A replica that refuses the connection is skipped for the next one.
 */
async function startFront(port: number, pool: () => Array<{ port: number }>): Promise<net.Server> {
  let turn = 0;
  const server = net.createServer((client) => {
    client.pause();
    const tryNext = (left: number) => {
      const replicas = pool();
      if (!replicas.length || left === 0) return client.destroy();
      const target = replicas[turn++ % replicas.length]!;
      const upstream = net.connect(target.port, '127.0.0.1');
      upstream.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ECONNREFUSED' && !upstream.bytesWritten) return tryNext(left - 1);
        client.destroy();
      });
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    tryNext(pool().length);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}
