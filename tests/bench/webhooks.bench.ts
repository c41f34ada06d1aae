/* eslint-disable no-console -- a benchmark prints its figures */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import path from 'node:path';
import { Agent, request } from 'undici';
import { readFile } from 'node:fs/promises';
import { ensureDatabase, freePort, startEmbeddedPostgres } from '@assay/embedded-pg';
import { cpuByProcess, startCpuMeter, treeCpuSeconds } from './cpu.js';
import { load, median, ROUNDS, spread, type Figure } from './rounds.js';
import { makeAssayHome, removeAssayHome, repoRoot, startAssay } from '../e2e/support/launcher.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 64);
/** Untimed first run of each side: JIT, connections, caches. */
const WARMUP = Number(process.env.BENCH_WARMUP_EVENTS ?? Math.min(EVENTS, 3000));

async function startReceiver(): Promise<{ url: string; proc: ChildProcess; count(): Promise<number> }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join('tests', 'bench', 'webhook-receiver.ts')], { cwd: repoRoot(), stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    proc.stdout!.once('data', (c: Buffer) => resolve((JSON.parse(c.toString('utf8')) as { port: number }).port));
    proc.once('exit', (code) => reject(new Error(`receiver exited (code ${code})`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return { url, proc, count: async () => ((await (await fetch(`${url}/__count`)).json()) as { count: number }).count };
}

async function json(url: string, key: string, method = 'GET', body?: unknown): Promise<any> {
  const res = await fetch(url, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const parsed = await res.json();
  if (res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

async function waitForCount(count: () => Promise<number>, target: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await count()) < target) {
    if (Date.now() > deadline) throw new Error(`receiver got ${await count()} of ${target} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A dispatcher-only process on Assay's database: the webhook-dispatcher with its API on a spare port. */
async function startDispatcher(env: Record<string, string>): Promise<ChildProcess> {
  const port = await freePort();
  // BENCH_DISPATCHER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the dispatcher process.
  const nodeArgs = (process.env.BENCH_DISPATCHER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join('services', 'webhook-dispatcher', 'src', 'main.ts')], {
    cwd: repoRoot(),
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`dispatcher exited (code ${proc.exitCode})`);
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
    if (ok) return proc;
    if (Date.now() > deadline) throw new Error('dispatcher not ready within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Side {
  seconds: number;
  cpu: number;
  /** Of `cpu`, Postgres's share (Assay's side only). */
  pgCpu?: number;
  /** What Postgres used in as long a window with no dispatcher running (other services' polling). */
  pgIdle?: number;
}

/**
 * One Assay for every round, and one dispatcher process, started once and
 * warmed up like the plain loop: a long-running dispatcher is what sends in
 * production. A round imports `n` test cases while the dispatcher is paused
 * (SIGSTOP): their `test.case.created` events go through the test-case
 * outbox, the bus and the intake (in the webhook-dispatcher that serves the
 * API, WEBHOOK_DISPATCHER_ENABLED=false) into delivery rows. Then the
 * dispatcher resumes (SIGCONT) and sends the backlog, timed from its first
 * delivery to its last, and counted done only when the log holds every
 * delivery as delivered.
 */
async function startAssaySide(receiverUrl: string, count: () => Promise<number>) {
  const home = await makeAssayHome();
  const pg = await startEmbeddedPostgres({ dataDir: path.join(home, 'pg'), ephemeral: true });
  // Rate limits off: 10,000 deliveries to one webhook are 100 times its per-minute limit.
  const env = { LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false', WEBHOOK_RATE_LIMITS_ENABLED: 'false', WEBHOOK_CONCURRENCY: String(CONCURRENCY) };
  const databaseUrl = await ensureDatabase(pg.url, 'assay');
  const assay = await startAssay({ databaseUrl, env: { ...env, WEBHOOK_DISPATCHER_ENABLED: 'false' } });
  const api = (p: string, method = 'GET', body?: unknown) => json(`${assay.gatewayUrl}${p}`, assay.serviceKey, method, body);
  const hook = await api('/api/v1/webhooks', 'POST', { name: 'bench', url: `${receiverUrl}/hook`, events: ['test.case.created'] });
  const secrets = await readFile(path.join(assay.home, 'secrets.env'), 'utf8');
  const secret = (name: string) => new RegExp(`^${name}=(.+)$`, 'm').exec(secrets)![1]!;
  const total = (status: string) => api(`/api/v1/webhooks/${hook.id}/deliveries?status=${status}&limit=1`).then((r) => r.pagination.total as number);
  // The receiver is on loopback, as the launcher's own dispatcher allows.
  const dispatcher = await startDispatcher({ ...env, EGRESS_ALLOW_LOOPBACK: 'true', DATABASE_URL: databaseUrl, INTERNAL_TOKEN_SECRET: secret('INTERNAL_TOKEN_SECRET'), WEBHOOK_SECRET_KEY: secret('WEBHOOK_SECRET_KEY') });
  // The create-time test event goes out now.
  let delivered = 1;
  await waitForLog(total, delivered);
  dispatcher.kill('SIGSTOP');
  let round = 0;

  async function intake(n: number): Promise<number> {
    const project = await api('/api/v1/projects', 'POST', { name: `Bench ${++round}`, base_url: 'http://localhost:3000' });
    const form = new FormData();
    form.append('project_id', project.id);
    const cases = Array.from({ length: n }, (_, i) => ({ name: `case ${i}`, steps: [{ action: 'navigate', value: `/item/${i}` }, { action: 'assert_visible', selector: '#title' }] }));
    form.append('file', new Blob([JSON.stringify(cases)], { type: 'application/json' }), 'cases.json');
    const started = performance.now();
    const res = await fetch(`${assay.gatewayUrl}/api/v1/test-cases/import`, { method: 'POST', headers: { authorization: `Bearer ${assay.serviceKey}` }, body: form });
    if (!res.ok) throw new Error(`import: ${res.status} ${await res.text()}`);
    for (let queued = await total('pending'); queued < n; queued = await total('pending')) {
      if (performance.now() - started > 600_000) throw new Error(`only ${queued} deliveries queued`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return (performance.now() - started) / 1000;
  }

  async function send(n: number): Promise<Side> {
    const base = await count();
    // Postgres started before the bench could meter it: its CPU is read from its processes (all of it
    // in the window: autovacuum and the other services' bus polling too). What it burns with no
    // dispatcher running (that polling), per second, is measured first, for the report.
    const pgCpu = () => cpuByProcess(process.pid).get('postgres') ?? 0;
    const idleStart = pgCpu();
    await new Promise((r) => setTimeout(r, 2000));
    const pgIdlePerSecond = (pgCpu() - idleStart) / 2;
    dispatcher.kill('SIGCONT');
    try {
      // Timed from the first delivery.
      await waitForCount(count, base + 1, 60_000);
      const sendStart = performance.now();
      const cpuStart = treeCpuSeconds(dispatcher.pid!);
      const pgStart = pgCpu();
      await waitForCount(count, base + n, 600_000);
      // Every delivery is in the log, delivered (a batch's results commit just after its last answer).
      await waitForLog(total, delivered + n);
      const seconds = (performance.now() - sendStart) / 1000;
      const pg = pgCpu() - pgStart;
      const cpu = treeCpuSeconds(dispatcher.pid!) - cpuStart + pg;
      delivered += n;
      return { seconds, cpu, pgCpu: pg, pgIdle: pgIdlePerSecond * seconds };
    } finally {
      dispatcher.kill('SIGSTOP');
    }
  }

  async function stop(): Promise<void> {
    dispatcher.kill('SIGCONT');
    dispatcher.kill('SIGTERM');
    await new Promise((r) => (dispatcher.exitCode !== null ? r(null) : dispatcher.once('exit', r)));
    await assay.stop();
    await pg.stop();
    await removeAssayHome(assay.home);
  }
  return { intake, send, stop };
}

async function waitForLog(total: (status: string) => Promise<number>, expected: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (let n = await total('delivered'); n !== expected; n = await total('delivered')) {
    if (Date.now() > deadline) throw new Error(`log holds ${n} delivered, expected ${expected}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The same number of signed POSTs of a same-sized envelope, with undici at the dispatcher's concurrency (this process's CPU is its side). */
async function runPlainLoop(receiverUrl: string, n = EVENTS): Promise<Side> {
  const meter = startCpuMeter('plain');
  try {
    const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 10_000 });
    const secret = 'bench-secret-0123456789abcdef0123';
    const data = { test_case: { id: randomUUID(), project_id: randomUUID(), name: 'case 1', description: null, status: 'active', priority: 'medium', tags: [], steps: [{ step_id: randomUUID(), action: 'navigate', value: '/item/1' }, { step_id: randomUUID(), action: 'assert_visible', selector: '#title' }] }, source: 'import' };
    let next = 0;
    const started = performance.now();
    const cpuStart = meter.read();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < n) {
          next++;
          const id = randomUUID();
          const body = JSON.stringify({ event: 'test.case.created', timestamp: new Date().toISOString(), organization_id: randomUUID(), webhook_id: randomUUID(), delivery_id: id, data });
          const res = await request(`${receiverUrl}/plain`, {
            method: 'POST',
            dispatcher: agent,
            headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`, 'x-service-delivery': id },
            body,
          });
          await res.body.text();
          if (res.statusCode !== 200) throw new Error(`plain loop got ${res.statusCode}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = meter.read() - cpuStart;
    await agent.close();
    return { seconds, cpu };
  } finally {
    meter.close();
  }
}

export async function benchWebhooks(): Promise<Figure[]> {
  const loadBefore = load();
  console.log(`webhooks: ${EVENTS} events to one local receiver, ${CONCURRENCY} at once, ${ROUNDS} rounds (sides alternate) after an untimed warm-up of ${WARMUP} for each side, rate limits off on the Assay side (WEBHOOK_RATE_LIMITS_ENABLED=false); one dispatcher process for the whole run, paused (SIGSTOP) while each backlog is built`);
  const receiver = await startReceiver();
  const assay = await startAssaySide(receiver.url, receiver.count);
  try {
    // Warm-up, untimed, the same for both sides: the first run pays for JIT and connections.
    await runPlainLoop(receiver.url, WARMUP);
    await assay.intake(WARMUP);
    await assay.send(WARMUP);
    const rounds: Array<{ intake: number; assay: Side; plain: Side }> = [];
    for (let i = 0; i < ROUNDS; i++) {
      // The machine is shared: the sides take turns going first.
      const intake = await assay.intake(EVENTS);
      let plain: Side;
      let sent: Side;
      if (i % 2 === 0) {
        plain = await runPlainLoop(receiver.url);
        sent = await assay.send(EVENTS);
      } else {
        sent = await assay.send(EVENTS);
        plain = await runPlainLoop(receiver.url);
      }
      rounds.push({ intake, assay: sent, plain });
      console.log(
        `  round ${i + 1} (${i % 2 === 0 ? 'plain first' : 'assay first'}, load ${load()}): intake ${(EVENTS / intake).toFixed(0)} events/s; assay ${(EVENTS / sent.seconds).toFixed(0)}/s, ${sent.cpu.toFixed(1)} CPU s (Postgres ${(sent.pgCpu ?? 0).toFixed(1)}, of which ~${(sent.pgIdle ?? 0).toFixed(1)} it spends idle); plain ${(EVENTS / plain.seconds).toFixed(0)}/s, ${plain.cpu.toFixed(1)} CPU s; ratio ${(plain.seconds / sent.seconds).toFixed(2)}x`,
      );
    }
    const m = (f: (r: (typeof rounds)[number]) => number) => median(rounds.map(f));
    const assayRate = EVENTS / m((r) => r.assay.seconds);
    const plainRate = EVENTS / m((r) => r.plain.seconds);
    console.log(`  medians of ${ROUNDS} rounds:`);
    console.log(`  intake (import -> outbox -> bus -> delivery rows): ${(EVENTS / m((r) => r.intake)).toFixed(0)} events/s (target >= 5,000)`);
    console.log(`  assay dispatcher: ${assayRate.toFixed(0)} deliveries/s, ${m((r) => r.assay.cpu).toFixed(1)} CPU s (the dispatcher process + all of Postgres, Postgres ${m((r) => r.assay.pgCpu ?? 0).toFixed(1)}, ~${m((r) => r.assay.pgIdle ?? 0).toFixed(1)} of it what Postgres spends as long with no dispatcher; ${EVENTS} deliveries, every one logged as delivered before the clock stops)`);
    console.log(`  plain undici loop: ${plainRate.toFixed(0)} POSTs/s, ${m((r) => r.plain.cpu).toFixed(1)} CPU s (the bench process)`);
    const ratios = rounds.map((r) => r.plain.seconds / r.assay.seconds);
    console.log(`  ratio: ${spread(ratios)} the plain loop, median of the per-round ratios (${(assayRate / plainRate).toFixed(2)}x of the medians; target >= 0.8x); CPU ${(m((r) => r.assay.cpu) / m((r) => r.plain.cpu)).toFixed(1)}x; the receiver is a separate process on neither side`);
    console.log(`  load before ${loadBefore}, after ${load()}`);
    return [
      { bench: 'webhooks', name: 'webhook intake events/s', value: EVENTS / m((r) => r.intake), better: 'higher' },
      { bench: 'webhooks', name: 'webhook delivery ratio', value: median(ratios), better: 'higher' },
    ];
  } finally {
    await assay.stop();
    receiver.proc.kill('SIGTERM');
  }
}
