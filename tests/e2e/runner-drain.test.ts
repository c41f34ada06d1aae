import type { ChildProcess } from 'node:child_process';
import { eventually } from '@assay/testing';
import { startShop } from '../fixtures/shop/server.js';
import { bearer, call } from './support/http.js';
import { launchForFile, startServiceProcess } from './support/launcher.js';

// A Kubernetes pod gets SIGTERM on scale-down and upgrades. The runner worker is
// a real process here (the launcher's execution-runner only serves the API), so
// the test can send it SIGTERM mid-run and watch what it does with its work.
jest.setTimeout(480_000);

const launched = launchForFile({ env: { RUNNER_ENABLED: 'false' } });
let shop: Awaited<ReturnType<typeof startShop>>;
const workers: ChildProcess[] = [];

const gw = (method: string, p: string, body?: unknown) =>
  call(launched.assay.gatewayUrl, method, p, { headers: bearer(launched.assay.serviceKey), ...(body !== undefined ? { body } : {}) });

async function startWorker(env: Record<string, string>) {
  const worker = await startServiceProcess(launched, 'execution-runner', { RUNNER_ENABLED: 'true', RUNNER_LEASE_SECONDS: '5', LOG_LEVEL: 'info', ...env });
  workers.push(worker.proc);
  return worker;
}

function exited(proc: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve({ code: proc.exitCode, signal: proc.signalCode, at: Date.now() });
  return new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
}

/** A plan of `n` cases, each loading the shop's /slow page (3 s). */
async function slowPlan(name: string, n: number): Promise<{ projectId: string; planId: string }> {
  const project = await gw('POST', '/api/v1/projects', { name, base_url: shop.url });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const steps = [{ action: 'navigate', value: '/slow' }, { action: 'assert_text', selector: '#slow-title', value: 'Slow page' }];
    ids.push((await gw('POST', '/api/v1/test-cases', { project_id: project.body.id, name: `${name} ${i}`, steps })).body.id);
  }
  const plan = await gw('POST', '/api/v1/test-plans', { project_id: project.body.id, name, test_case_ids: ids });
  return { projectId: project.body.id, planId: plan.body.id };
}

async function statusesOf(executionId: string): Promise<Array<{ status: string; reason?: string }>> {
  const stream = await fetch(`${launched.assay.gatewayUrl}/api/v1/executions/${executionId}/stream`, { headers: bearer(launched.assay.serviceKey) });
  const text = await stream.text();
  return [...text.matchAll(/event: status\ndata: (.*)/g)].map((m) => JSON.parse(m[1]!));
}

const settled = (id: string, timeoutMs: number) =>
  eventually(
    async () => {
      const s = await gw('GET', `/api/v1/executions/${id}`);
      return ['completed', 'failed', 'cancelled'].includes(s.body.status) ? s.body : undefined;
    },
    timeoutMs,
    250,
  );

beforeAll(async () => {
  shop = await startShop();
});

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await shop?.close();
});

describe('a runner worker on SIGTERM', () => {
  it('takes no new work, finishes the run it has, then exits 0', async () => {
    const { projectId, planId } = await slowPlan('drain', 3);
    // One case at a time: the run lasts about 9 s, long enough to SIGTERM it in the middle.
    const first = await startWorker({ RUNNER_CONCURRENCY: '1', SHUTDOWN_GRACE_SECONDS: '120' });
    const running = await gw('POST', '/api/v1/executions/async', { test_plan_id: planId, project_id: projectId });
    expect(running.status).toBe(202);
    await eventually(async () => (await gw('GET', running.body.polling_url)).body.status === 'running', 120_000, 100);

    const exit = exited(first.proc);
    const termAt = Date.now();
    first.proc.kill('SIGTERM');
    // Queued after the SIGTERM: a draining worker must leave it to another one.
    const later = await gw('POST', '/api/v1/executions/async', { test_plan_id: planId, project_id: projectId });
    expect(later.status).toBe(202);

    const { code, signal, at } = await exit;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    // It waited for the run: three 3 s pages cannot all have loaded at once.
    const done = await settled(running.body.id, 5_000);
    expect(done).toMatchObject({ status: 'completed', passed_tests: 3, failed_tests: 0, total_tests: 3 });
    expect(new Date(done.completed_at).getTime()).toBeLessThanOrEqual(at);
    expect(at - termAt).toBeGreaterThan(1000);
    expect((await statusesOf(running.body.id)).map((s) => s.status)).toEqual(['queued', 'running']);
    expect(first.output()).toMatch(/drained: every running execution finished/);
    expect(first.output()).not.toMatch(/"level":(50|60)/);

    // The execution queued during the drain was not taken (nor lost): the next worker runs it.
    expect((await gw('GET', `/api/v1/executions/${later.body.id}`)).body.status).toBe('queued');
    const second = await startWorker({ RUNNER_CONCURRENCY: '2' });
    expect(await settled(later.body.id, 90_000)).toMatchObject({ status: 'completed', passed_tests: 3, total_tests: 3 });
    second.proc.kill('SIGTERM');
    expect(await exited(second.proc)).toMatchObject({ code: 0 });
  });

  it('puts a run still going after SHUTDOWN_GRACE_SECONDS back in the queue, where another worker completes it', async () => {
    const { projectId, planId } = await slowPlan('requeue', 4);
    const first = await startWorker({ RUNNER_CONCURRENCY: '1', SHUTDOWN_GRACE_SECONDS: '1' });
    const queued = await gw('POST', '/api/v1/executions/async', { test_plan_id: planId, project_id: projectId });
    await eventually(async () => (await gw('GET', queued.body.polling_url)).body.status === 'running', 120_000, 100);

    first.proc.kill('SIGTERM');
    const { code } = await exited(first.proc);
    expect(code).toBe(0);
    // Back in the queue at once (not after a lease expiry), partial results discarded, the attempt not counted as a crash.
    const back = await gw('GET', `/api/v1/executions/${queued.body.id}`);
    expect(back.body).toMatchObject({ status: 'queued', passed_tests: 0, failed_tests: 0 });
    expect(first.output()).toMatch(/shutdown grace period over: execution requeued/);

    const second = await startWorker({ RUNNER_CONCURRENCY: '2' });
    const done = await settled(queued.body.id, 90_000);
    expect(done).toMatchObject({ status: 'completed', passed_tests: 4, failed_tests: 0, total_tests: 4 });
    const results = await gw('GET', `/api/v1/executions/${queued.body.id}/results`);
    expect(results.body.test_results.map((r: { status: string }) => r.status)).toEqual(['passed', 'passed', 'passed', 'passed']);
    const statuses = await statusesOf(queued.body.id);
    expect(statuses.map((s) => s.status)).toEqual(['queued', 'running', 'queued', 'running']);
    expect(statuses[2]!.reason).toBe('the worker running it shut down; requeued');
    second.proc.kill('SIGTERM');
    expect(await exited(second.proc)).toMatchObject({ code: 0 });
  });
});
