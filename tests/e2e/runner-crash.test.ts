import type { ChildProcess } from 'node:child_process';
import { eventually } from '@assay/testing';
import { startShop } from '../fixtures/shop/server.js';
import { bearer, call } from './support/http.js';
import { killHard, launchForFile, startServiceProcess } from './support/launcher.js';

// A runner worker is a separate process (a pod in a cluster). Here the
// launcher's execution-runner serves only the API (RUNNER_ENABLED=false) and
// the test starts worker processes itself, so it can kill -9 one mid-run
// without the launcher stopping everything.
jest.setTimeout(180_000);

const LEASE_SECONDS = 3;
const launched = launchForFile({ env: { RUNNER_ENABLED: 'false' } });
let shop: Awaited<ReturnType<typeof startShop>>;
const workers: ChildProcess[] = [];

const gw = (method: string, p: string, body?: unknown) =>
  call(launched.assay.gatewayUrl, method, p, { headers: bearer(launched.assay.serviceKey), ...(body !== undefined ? { body } : {}) });

const startWorker = () => startServiceProcess(launched, 'execution-runner', { RUNNER_ENABLED: 'true', RUNNER_CONCURRENCY: '2', RUNNER_LEASE_SECONDS: String(LEASE_SECONDS) });

beforeAll(async () => {
  shop = await startShop();
});

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await shop?.close();
});

describe('a runner worker killed mid-run', () => {
  it('leaves no execution running: another worker retries it once and completes it', async () => {
    const project = await gw('POST', '/api/v1/projects', { name: 'Shop', base_url: shop.url });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const steps = [{ action: 'navigate', value: '/slow' }, { action: 'assert_text', selector: '#slow-title', value: 'Slow page' }];
      ids.push((await gw('POST', '/api/v1/test-cases', { project_id: project.body.id, name: `slow ${i}`, steps })).body.id);
    }
    const plan = await gw('POST', '/api/v1/test-plans', { project_id: project.body.id, name: 'Crash', test_case_ids: ids });

    const first = await startWorker();
    workers.push(first.proc);
    const queued = await gw('POST', '/api/v1/executions/async', { test_plan_id: plan.body.id, project_id: project.body.id });
    expect(queued.status).toBe(202);
    // Mid-run: the first cases are loading /slow (3 s) in the worker's Chromium.
    await eventually(async () => (await gw('GET', queued.body.polling_url)).body.status === 'running', 60_000, 100);
    await killHard(first.proc);
    expect((await gw('GET', queued.body.polling_url)).body.status).toBe('running');

    const second = await startWorker();
    workers.push(second.proc);
    const done = await eventually(
      async () => {
        const s = await gw('GET', queued.body.polling_url);
        return ['completed', 'failed', 'cancelled'].includes(s.body.status) ? s.body : undefined;
      },
      90_000,
      250,
    );
    expect(done).toMatchObject({ status: 'completed', passed_tests: 4, failed_tests: 0, total_tests: 4 });
    const results = await gw('GET', `/api/v1/executions/${queued.body.id}/results`);
    expect(results.body.test_results.map((r: { status: string }) => r.status)).toEqual(['passed', 'passed', 'passed', 'passed']);

    // The stream tells the story: running, requeued with the reason, running again, completed.
    const stream = await fetch(`${launched.assay.gatewayUrl}/api/v1/executions/${queued.body.id}/stream`, { headers: bearer(launched.assay.serviceKey) });
    const text = await stream.text();
    const statuses = [...text.matchAll(/event: status\ndata: (.*)/g)].map((m) => JSON.parse(m[1]!));
    expect(statuses.map((s) => s.status)).toEqual(['queued', 'running', 'queued', 'running']);
    expect(statuses[2].reason).toBe('the worker running it stopped; retrying once');
    expect(text).toMatch(/event: completed\n/);
    expect(second.output()).not.toMatch(/"level":(50|60)/);
  });
});
