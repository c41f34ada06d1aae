/* eslint-disable no-console -- a benchmark prints its figures */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import path from 'node:path';
import { Agent, request } from 'undici';
import { readFile } from 'node:fs/promises';
import { ensureDatabase, freePort, startEmbeddedPostgres } from '@assay/embedded-pg';
import { makeAssayHome, removeAssayHome, repoRoot, startAssay } from '../e2e/support/launcher.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 64);

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
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join('services', 'webhook-dispatcher', 'src', 'main.ts')], {
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

/**
 * 10,000 `test.case.created` events (one JSON import) go through the
 * test-case outbox, the bus and the dispatcher's intake into delivery rows
 * while no process sends (WEBHOOK_DISPATCHER_ENABLED=false); then a
 * dispatcher process starts and sends the backlog. Both phases are timed.
 */
async function runAssay(receiverUrl: string, count: () => Promise<number>): Promise<{ intakeSeconds: number; sendSeconds: number }> {
  const home = await makeAssayHome();
  const pg = await startEmbeddedPostgres({ dataDir: path.join(home, 'pg'), ephemeral: true });
  // Rate limits off: 10,000 deliveries to one webhook are 100 times its per-minute limit.
  const env = { LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false', WEBHOOK_RATE_LIMITS_ENABLED: 'false', WEBHOOK_CONCURRENCY: String(CONCURRENCY) };
  const databaseUrl = await ensureDatabase(pg.url, 'assay');
  const assay = await startAssay({ databaseUrl, env: { ...env, WEBHOOK_DISPATCHER_ENABLED: 'false' } });
  let dispatcher: ChildProcess | undefined;
  try {
    const api = (p: string, method = 'GET', body?: unknown) => json(`${assay.gatewayUrl}${p}`, assay.serviceKey, method, body);
    const hook = await api('/api/v1/webhooks', 'POST', { name: 'bench', url: `${receiverUrl}/hook`, events: ['test.case.created'] });
    const project = await api('/api/v1/projects', 'POST', { name: 'Bench', base_url: 'http://localhost:3000' });
    const form = new FormData();
    form.append('project_id', project.id);
    const cases = Array.from({ length: EVENTS }, (_, i) => ({ name: `case ${i}`, steps: [{ action: 'navigate', value: `/item/${i}` }, { action: 'assert_visible', selector: '#title' }] }));
    form.append('file', new Blob([JSON.stringify(cases)], { type: 'application/json' }), 'cases.json');
    const started = performance.now();
    const res = await fetch(`${assay.gatewayUrl}/api/v1/test-cases/import`, { method: 'POST', headers: { authorization: `Bearer ${assay.serviceKey}` }, body: form });
    if (!res.ok) throw new Error(`import: ${res.status} ${await res.text()}`);
    const queued = () => api(`/api/v1/webhooks/${hook.id}/deliveries?status=pending&limit=1`).then((r) => r.pagination.total as number);
    for (let n = await queued(); n < EVENTS + 1; n = await queued()) {
      if (performance.now() - started > 600_000) throw new Error(`only ${n} deliveries queued`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const intakeSeconds = (performance.now() - started) / 1000;

    const secrets = await readFile(path.join(assay.home, 'secrets.env'), 'utf8');
    const secret = (name: string) => new RegExp(`^${name}=(.+)$`, 'm').exec(secrets)![1]!;
    const base = await count();
    dispatcher = await startDispatcher({ ...env, DATABASE_URL: databaseUrl, INTERNAL_TOKEN_SECRET: secret('INTERNAL_TOKEN_SECRET'), WEBHOOK_SECRET_KEY: secret('WEBHOOK_SECRET_KEY') });
    // Timed from the first delivery, so the process start does not count.
    await waitForCount(count, base + 1, 60_000);
    const sendStart = performance.now();
    await waitForCount(count, base + EVENTS + 1, 600_000);
    const sendSeconds = (performance.now() - sendStart) / 1000;
    // Every delivery is in the log, delivered (a batch's results commit just after its last answer).
    const delivered = () => api(`/api/v1/webhooks/${hook.id}/deliveries?status=delivered&limit=1`).then((r) => r.pagination.total as number);
    const logDeadline = Date.now() + 30_000;
    for (let n = await delivered(); n !== EVENTS + 1; n = await delivered()) {
      if (Date.now() > logDeadline) throw new Error(`log holds ${n} delivered, expected ${EVENTS + 1}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return { intakeSeconds, sendSeconds };
  } finally {
    dispatcher?.kill('SIGTERM');
    if (dispatcher) await new Promise((r) => (dispatcher!.exitCode !== null ? r(null) : dispatcher!.once('exit', r)));
    await assay.stop();
    await pg.stop();
    await removeAssayHome(assay.home);
  }
}

/** The same number of signed POSTs of a same-sized envelope, with undici at the dispatcher's concurrency. */
async function runPlainLoop(receiverUrl: string): Promise<number> {
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 10_000 });
  const secret = 'bench-secret-0123456789abcdef0123';
  const data = { test_case: { id: randomUUID(), project_id: randomUUID(), name: 'case 1', description: null, status: 'active', priority: 'medium', tags: [], steps: [{ step_id: randomUUID(), action: 'navigate', value: '/item/1' }, { step_id: randomUUID(), action: 'assert_visible', selector: '#title' }] }, source: 'import' };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < EVENTS) {
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
  await agent.close();
  return seconds;
}

export async function benchWebhooks(): Promise<void> {
  console.log(`webhooks: ${EVENTS} events to one local receiver, ${CONCURRENCY} at once`);
  const receiver = await startReceiver();
  try {
    // The machine is shared: the plain loop runs before and after Assay, and the faster run counts.
    const before = await runPlainLoop(receiver.url);
    const assay = await runAssay(receiver.url, receiver.count);
    const after = await runPlainLoop(receiver.url);
    const plain = Math.min(before, after);
    const assayRate = EVENTS / assay.sendSeconds;
    const plainRate = EVENTS / plain;
    console.log(`  intake (import -> outbox -> bus -> delivery rows): ${(EVENTS / assay.intakeSeconds).toFixed(0)} events/s (${assay.intakeSeconds.toFixed(2)} s)`);
    console.log(`  assay dispatcher: ${assayRate.toFixed(0)} deliveries/s (${assay.sendSeconds.toFixed(2)} s for the backlog); every delivery logged`);
    console.log(`  plain undici loop: ${plainRate.toFixed(0)} POSTs/s (best of ${before.toFixed(2)} s before and ${after.toFixed(2)} s after)`);
    console.log(`  ratio: ${(assayRate / plainRate).toFixed(2)}x the plain loop (target >= 0.5x)`);
  } finally {
    receiver.proc.kill('SIGTERM');
  }
}
