import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { eventually, freePortForTests } from '@assay/testing';
import { startShop } from '../fixtures/shop/server.js';
import { bearer, call } from './support/http.js';
import { childrenOf, isAlive, launchForFile, repoRoot } from './support/launcher.js';

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

/** One more execution-runner process on the launcher's database and bus, with browser work on. */
async function startWorker(): Promise<{ proc: ChildProcess; output: () => string }> {
  const port = await freePortForTests();
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join('services', 'execution-runner', 'src', 'main.ts')], {
    cwd: repoRoot(),
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: launched.database.url,
      BUS: 'pg',
      INTERNAL_TOKEN_SECRET: launched.assay.internalSecret,
      PUBLIC_BASE_URL: launched.assay.gatewayUrl,
      TEST_CASE_URL: `http://127.0.0.1:${launched.assay.testCasePort}`,
      CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      PORT: String(port),
      HOST: '127.0.0.1',
      RUNNER_ENABLED: 'true',
      RUNNER_CONCURRENCY: '2',
      RUNNER_LEASE_SECONDS: String(LEASE_SECONDS),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  workers.push(proc);
  const chunks: string[] = [];
  proc.stdout!.on('data', (c: Buffer) => chunks.push(c.toString()));
  proc.stderr!.on('data', (c: Buffer) => chunks.push(c.toString()));
  await eventually(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok, 60_000, 200);
  return { proc, output: () => chunks.join('') };
}

/** Every process below `pid`, depth first. */
function descendants(pid: number): number[] {
  return childrenOf(pid).flatMap((c) => [c, ...descendants(c)]);
}

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
    const queued = await gw('POST', '/api/v1/executions/async', { test_plan_id: plan.body.id, project_id: project.body.id });
    expect(queued.status).toBe(202);
    // Mid-run: the first cases are loading /slow (3 s) in the worker's Chromium.
    await eventually(async () => (await gw('GET', queued.body.polling_url)).body.status === 'running', 60_000, 100);
    const tree = descendants(first.proc.pid!);
    expect(tree.length).toBeGreaterThan(0); // its Chromium
    first.proc.kill('SIGKILL');
    await new Promise((r) => first.proc.once('exit', r));
    // Chromium notices its pipe closed and exits with its parent.
    await eventually(async () => tree.every((pid) => !isAlive(pid)), 15_000, 100);
    expect((await gw('GET', queued.body.polling_url)).body.status).toBe('running');

    const second = await startWorker();
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
