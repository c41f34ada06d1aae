import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, readConfig } from '@assay/config';
import { ensureDatabase, freePort } from '@assay/embedded-pg';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import { SERVICE_NODE_ARGS } from '@assay/telemetry';
import { bundleServices, type ServiceBundles } from './bundle.js';

/**
 * `make run`: embedded Postgres (or DATABASE_URL), every built service as its
 * own process, the gateway in front; on first start an organization, its
 * owner and a dev service key. Ctrl-C stops everything cleanly.
 */

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

interface ServiceSpec {
  name: string;
  port: number;
  env?: Record<string, string>;
}

const config = (() => {
  try {
    return readConfig(process.env, (r) => ({
      home: path.resolve(REPO, r.string('ASSAY_HOME', { default: '.assay' })),
      databaseUrl: r.optionalUrl('DATABASE_URL'),
      pgPort: r.int('ASSAY_PG_PORT', { default: 0, min: 0, max: 65535 }),
      gatewayPort: r.int('GATEWAY_PORT', { default: 8080, min: 1, max: 65535 }),
      authPort: r.int('AUTH_PORT', { default: 8081, min: 1, max: 65535 }),
      testCasePort: r.int('TEST_CASE_PORT', { default: 8082, min: 1, max: 65535 }),
      executionRunnerPort: r.int('EXECUTION_RUNNER_PORT', { default: 8083, min: 1, max: 65535 }),
      discoveryCrawlerPort: r.int('DISCOVERY_CRAWLER_PORT', { default: 8084, min: 1, max: 65535 }),
      analysisPort: r.int('ANALYSIS_PORT', { default: 8085, min: 1, max: 65535 }),
      webhookDispatcherPort: r.int('WEBHOOK_DISPATCHER_PORT', { default: 8086, min: 1, max: 65535 }),
      // Debian's headless shell (@assay/browser DEFAULT_CHROMIUM_PATH; not imported: the launcher starts no browser).
      chromiumPath: r.string('CHROMIUM_PATH', { default: '/usr/lib/chromium/chromium-headless-shell' }),
      runnerConcurrency: r.int('RUNNER_CONCURRENCY', { default: 2, min: 1, max: 32 }),
      host: r.string('ASSAY_HOST', { default: '127.0.0.1' }),
      logLevel: r.string('LOG_LEVEL', { default: 'info' }),
      bus: r.oneOf('BUS', ['pg', 'kafka'] as const, { default: 'pg' }),
      kafkaBrokers: r.optionalString('KAFKA_BROKERS') ?? '',
      publicBaseUrl: r.optionalUrl('PUBLIC_BASE_URL'),
      redisUrl: r.optionalUrl('REDIS_URL'),
      redisPort: r.int('ASSAY_REDIS_PORT', { default: 0, min: 0, max: 65535 }),
      redisServer: r.string('REDIS_SERVER_PATH', { default: 'redis-server' }),
      readyTimeoutSeconds: r.int('ASSAY_READY_TIMEOUT_SECONDS', { default: 120, min: 5, max: 3600 }),
      // Services built into JavaScript at each start (./bundle.ts), or run from their sources through tsx.
      bundle: r.bool('ASSAY_BUNDLE', { default: true }),
    }));
  } catch (err) {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(2);
  }
})();

const gatewayUrl = config.publicBaseUrl ?? `http://localhost:${config.gatewayPort}`;
const children: Array<{ name: string; proc: ChildProcess }> = [];
let postgres: ChildProcess | undefined;
let redis: ChildProcess | undefined;
let stopping = false;

const say = (line: string) => process.stdout.write(`${line}\n`);

async function loadOrCreateSecrets(): Promise<Record<string, string>> {
  const file = path.join(config.home, 'secrets.env');
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  const secrets: Record<string, string> = existing
    ? Object.fromEntries(existing.split('\n').filter((l) => l.includes('=')).map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]))
    : {};
  // Secrets added by later versions join an existing file; the ones there are kept.
  const generated = ['INTERNAL_TOKEN_SECRET', 'SESSION_TOKEN_SECRET', 'WEBHOOK_SECRET_KEY', 'SECRETS_KEY'].filter((name) => !secrets[name]);
  for (const name of generated) secrets[name] = randomBytes(32).toString('base64url');
  if (generated.length) await writeFile(file, Object.entries(secrets).map(([k, v]) => `${k}=${v}`).join('\n') + '\n', { mode: 0o600 });
  return secrets;
}

function prefixLines(name: string, stream: NodeJS.ReadableStream | null, out: NodeJS.WritableStream): void {
  let buffer = '';
  stream?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) out.write(`[${name}] ${line}\n`);
  });
}

let bundles: ServiceBundles | undefined;

function startService(spec: ServiceSpec, env: Record<string, string>): ChildProcess {
  // OTEL_* reach every service with the rest of the environment; the preload starts tracing when they ask for it.
  const args = bundles ? [...bundles.nodeArgs(spec.name), bundles.entry(spec.name)] : [...SERVICE_NODE_ARGS, path.join('services', spec.name, 'src', 'main.ts')];
  const proc = spawn(process.execPath, args, {
    cwd: REPO,
    env: { ...process.env, ...env, ...spec.env, PORT: String(spec.port), HOST: config.host },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  prefixLines(spec.name, proc.stdout, process.stdout);
  prefixLines(spec.name, proc.stderr, process.stderr);
  proc.on('exit', (code, signal) => {
    if (stopping) return;
    console.error(`[launcher] ${spec.name} exited unexpectedly (code ${code}, signal ${signal}); stopping Assay`);
    void shutdown(1);
  });
  children.push({ name: spec.name, proc });
  return proc;
}

async function waitReady(spec: ServiceSpec, proc: ChildProcess, timeoutMs = config.readyTimeoutSeconds * 1000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`${spec.name} exited during start (code ${proc.exitCode})`);
    try {
      const res = await fetch(`http://127.0.0.1:${spec.port}/readyz`, { signal: AbortSignal.timeout(5000) });
      if (res.ok) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${spec.name} was not ready within ${timeoutMs / 1000} s (last /readyz: ${last}); is port ${spec.port} taken by another process?`);
}

/** True when nothing listens on the port: readiness must come from our own process, not a stranger. */
function portIsFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

async function bootstrap(authPort: number, secret: string): Promise<void> {
  const file = path.join(config.home, 'bootstrap.env');
  const res = await fetch(`http://127.0.0.1:${authPort}/internal/bootstrap`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [PRINCIPAL_HEADER]: await signPrincipal(secret, servicePrincipal('launcher')) },
    body: '{}',
  });
  const body = (await res.json()) as { created: boolean; service_key?: string; email?: string; password?: string };
  if (!res.ok) throw new Error(`bootstrap failed: ${res.status} ${JSON.stringify(body)}`);
  let lines: string;
  if (body.created) {
    lines = [
      `ASSAY_GATEWAY_URL=${gatewayUrl}`,
      `ASSAY_SERVICE_KEY=${body.service_key}`,
      `ASSAY_ADMIN_EMAIL=${body.email}`,
      `ASSAY_ADMIN_PASSWORD=${body.password}`,
    ].join('\n');
    await writeFile(file, `${lines}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
  } else {
    const saved = await readFile(file, 'utf8').catch(() => undefined);
    lines = saved
      ? saved.trim().replace(/^ASSAY_GATEWAY_URL=.*$/m, `ASSAY_GATEWAY_URL=${gatewayUrl}`)
      : `ASSAY_GATEWAY_URL=${gatewayUrl}\n# This database was set up before and ${file} is missing: use the key you saved then.`;
  }
  say('');
  const shown = path.relative(REPO, file);
  say(`Assay is running. Credentials (also in ${shown.startsWith('..') ? file : shown}):`);
  say(lines);
  say(`Try: curl -H "Authorization: Bearer $ASSAY_SERVICE_KEY" ${gatewayUrl}/api/service-keys`);
  say(`API reference: ${gatewayUrl}/docs   Stop: Ctrl-C`);
  say('');
}

/** Starts Postgres in its own process group (see postgres.ts) and resolves with its URL. */
function startPostgres(): Promise<string> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join('deploy', 'local', 'src', 'postgres.ts')], {
    cwd: REPO,
    env: { ...process.env, PG_DATA_DIR: path.join(config.home, 'pg'), PG_PORT: String(config.pgPort) },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  postgres = proc;
  prefixLines('postgres', proc.stderr, process.stderr);
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    proc.once('exit', (code) => {
      if (!stopping) {
        reject(new Error(`embedded Postgres exited (code ${code})`));
        if (children.length) void shutdown(1);
      }
    });
  });
}

/**
 * Debian's redis-server for the gateway's shared rate-limit counters, data in
 * `$ASSAY_HOME/redis`, loopback only. Resolves with its URL, or undefined when
 * redis-server is missing (the gateway then counts in its own process).
 */
async function startRedis(): Promise<string | undefined> {
  const dir = path.join(config.home, 'redis');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const port = config.redisPort || (await freePort());
  const proc = spawn(config.redisServer, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '300 10', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started = await new Promise<boolean>((resolve) => {
    proc.once('error', () => resolve(false));
    proc.once('spawn', () => resolve(true));
  });
  if (!started) {
    console.error(`[launcher] ${config.redisServer} not found (make setup installs it): rate-limit counters stay in the gateway process`);
    return undefined;
  }
  redis = proc;
  prefixLines('redis', proc.stdout, process.stdout);
  prefixLines('redis', proc.stderr, process.stderr);
  // Redis going away is not fatal: the gateway counts in process until it is back.
  proc.on('exit', (code) => {
    if (!stopping) console.error(`[launcher] redis-server exited (code ${code}); the gateway counts rate limits in process meanwhile`);
  });
  const deadline = Date.now() + 15_000;
  while (!(await portAnswers(port))) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return `redis://127.0.0.1:${port}`;
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Gateway first (started last), so no call reaches a service that is stopping; then the others at once
  // (one after another, each leaving its Kafka groups, a stack took 26-28 s).
  const stopOne = async (proc: ChildProcess) => {
    if (proc.exitCode !== null) return;
    proc.kill('SIGTERM');
    const exited = await Promise.race([
      new Promise<boolean>((r) => proc.once('exit', () => r(true))),
      new Promise<boolean>((r) => setTimeout(() => r(false), 8000)),
    ]);
    if (!exited) proc.kill('SIGKILL');
  };
  const [first, ...rest] = [...children].reverse();
  if (first) await stopOne(first.proc);
  await Promise.all(rest.map((c) => stopOne(c.proc)));
  if (redis && redis.exitCode === null) {
    redis.kill('SIGTERM');
    await Promise.race([new Promise((r) => redis!.once('exit', r)), new Promise((r) => setTimeout(r, 5000))]);
  }
  if (postgres && postgres.exitCode === null) {
    postgres.kill('SIGTERM');
    await new Promise((r) => postgres!.once('exit', r));
  }
  process.exit(code);
}

async function main(): Promise<void> {
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));
  const ports: Array<[string, number]> = [
    ['gateway', config.gatewayPort],
    ['auth', config.authPort],
    ['test-case', config.testCasePort],
    ['execution-runner', config.executionRunnerPort],
    ['discovery-crawler', config.discoveryCrawlerPort],
    ['analysis', config.analysisPort],
    ['webhook-dispatcher', config.webhookDispatcherPort],
  ];
  const taken = [];
  for (const [name, port] of ports) if (!(await portIsFree(port, config.host))) taken.push(`${name} port ${port}`);
  if (taken.length) throw new Error(`In use already: ${taken.join(', ')}. Is Assay running? Stop it, or set the *_PORT variables (see README).`);

  await mkdir(config.home, { recursive: true });
  const secrets = await loadOrCreateSecrets();
  if (config.bundle) {
    const started = Date.now();
    bundles = await bundleServices(REPO, ports.map(([name]) => name), path.join(config.home, 'build'));
    say(`[launcher] services built into ${path.join(config.home, 'build')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    say(`[launcher] starting embedded Postgres (data in ${path.join(config.home, 'pg')})`);
    databaseUrl = await ensureDatabase(await startPostgres(), 'assay');
  }

  const redisUrl = config.redisUrl ?? (await startRedis());
  if (redisUrl && !config.redisUrl) say(`[launcher] redis-server for shared rate limits (data in ${path.join(config.home, 'redis')})`);

  const common = {
    DATABASE_URL: databaseUrl,
    BUS: config.bus,
    // One machine usually means one broker: replicate topics once unless told otherwise.
    ...(config.kafkaBrokers
      ? { KAFKA_BROKERS: config.kafkaBrokers, KAFKA_REPLICATION_FACTOR: process.env.KAFKA_REPLICATION_FACTOR ?? '1' }
      : {}),
    INTERNAL_TOKEN_SECRET: secrets.INTERNAL_TOKEN_SECRET!,
    PUBLIC_BASE_URL: gatewayUrl,
    LOG_LEVEL: config.logLevel,
  };
  const auth: ServiceSpec = { name: 'auth', port: config.authPort, env: { SESSION_TOKEN_SECRET: secrets.SESSION_TOKEN_SECRET! } };
  const testCase: ServiceSpec = { name: 'test-case', port: config.testCasePort, env: { SECRETS_KEY: secrets.SECRETS_KEY! } };
  const local = (spec: ServiceSpec) => `http://127.0.0.1:${spec.port}`;
  // Local apps are the usual targets of runs, crawls and webhooks here, so the egress policy
  // allows loopback (a deployment refuses it by default); metadata and private ranges stay
  // refused unless the launcher's own EGRESS_* variables say otherwise (they pass through).
  const egress = { EGRESS_ALLOW_LOOPBACK: process.env.EGRESS_ALLOW_LOOPBACK ?? 'true' };
  const discoveryCrawler: ServiceSpec = {
    name: 'discovery-crawler',
    port: config.discoveryCrawlerPort,
    env: { TEST_CASE_URL: local(testCase), CHROMIUM_PATH: config.chromiumPath, ...egress },
  };
  const executionRunner: ServiceSpec = {
    name: 'execution-runner',
    port: config.executionRunnerPort,
    // AUTH_URL: the scheduler asks auth for the plan's API access and quotas before each scheduled run.
    // DISCOVERY_CRAWLER_URL: exploratory runs of a discovery session ask it for the session's generated cases.
    env: {
      TEST_CASE_URL: local(testCase),
      DISCOVERY_CRAWLER_URL: local(discoveryCrawler),
      CHROMIUM_PATH: config.chromiumPath,
      RUNNER_CONCURRENCY: String(config.runnerConcurrency),
      AUTH_URL: local(auth),
      ...egress,
    },
  };
  // Failure analysis reads executions from the runner, writes applied selectors through test-case,
  // enriches discovery sessions; ANALYSIS_LLM_* set for the launcher reach it too (prose only).
  const analysis: ServiceSpec = {
    name: 'analysis',
    port: config.analysisPort,
    env: { EXECUTION_RUNNER_URL: local(executionRunner), TEST_CASE_URL: local(testCase), DISCOVERY_CRAWLER_URL: local(discoveryCrawler), CHROMIUM_PATH: config.chromiumPath, ...egress },
  };
  // Webhooks to http://localhost receivers are allowed here: this is local development.
  // SMTP_URL and SMTP_FROM, when set for the launcher, reach it too (e-mail on a disabled webhook; auth names the recipients).
  const webhookDispatcher: ServiceSpec = {
    name: 'webhook-dispatcher',
    port: config.webhookDispatcherPort,
    env: { WEBHOOK_SECRET_KEY: secrets.WEBHOOK_SECRET_KEY!, WEBHOOK_ALLOW_LOCAL_HTTP: 'true', AUTH_URL: local(auth), ...egress },
  };
  // Services not built yet have no URL: the gateway answers 501 for their routes.
  const gateway: ServiceSpec = {
    name: 'gateway',
    port: config.gatewayPort,
    env: {
      AUTH_URL: local(auth),
      TEST_CASE_URL: local(testCase),
      EXECUTION_RUNNER_URL: local(executionRunner),
      DISCOVERY_CRAWLER_URL: local(discoveryCrawler),
      ANALYSIS_URL: local(analysis),
      WEBHOOK_DISPATCHER_URL: local(webhookDispatcher),
      ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    },
  };

  // Services start side by side; the gateway once they are ready.
  await Promise.all([auth, testCase, executionRunner, discoveryCrawler, analysis, webhookDispatcher].map((spec) => waitReady(spec, startService(spec, common))));
  await waitReady(gateway, startService(gateway, common));
  await bootstrap(auth.port, secrets.INTERNAL_TOKEN_SECRET!);
}

main().catch(async (err) => {
  console.error(`[launcher] ${err instanceof Error ? err.message : String(err)}`);
  await shutdown(1);
});
