import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { eventually, listen, type TestServer } from '@assay/testing';
import { validateJUnit } from '../../apps/cli/test/junit-schema/validate.js';
import { startShop } from '../fixtures/shop/server.js';
import { bearer, call } from './support/http.js';
import { launchForFile, repoRoot } from './support/launcher.js';

// A Playwright suite through the whole stack, as a team's CI would use it:
// `assay suite push` and `assay suite run --shards 2 --junit` against the
// gateway, the runner's boxes, the analysis of its failing test, webhooks.
// The runner answers uploads 202 `listing` and lists them after, as under the
// chart (where the pods that take uploads cannot make the box): push waits.
jest.setTimeout(300_000);

const launched = launchForFile({ env: { SUITE_LIST_ON_UPLOAD: 'false' } });
let shop: Awaited<ReturnType<typeof startShop>>;
let receiver: TestServer;
const received: any[] = [];
let work: string;

const gw = (method: string, p: string, body?: unknown) => call(launched.assay.gatewayUrl, method, p, { headers: bearer(launched.assay.serviceKey), ...(body !== undefined ? { body } : {}) });

function assay(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot(), 'apps', 'cli', 'bin', 'assay.js'), ...args], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', CI: 'true', ASSAY_URL: launched.assay.gatewayUrl, ASSAY_API_KEY: launched.assay.serviceKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  shop = await startShop();
  receiver = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200).end();
    });
  });
  await mkdir(path.join(repoRoot(), 'tests', '.tmp'), { recursive: true });
  work = await mkdtemp(path.join(repoRoot(), 'tests', '.tmp', 'suites-'));
});

afterAll(async () => {
  await shop?.close();
  await receiver?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('a Playwright suite through the gateway and the CLI', () => {
  it('pushes, runs in two shards, exits 1 with valid JUnit, analyses the failing test and sends the webhooks', async () => {
    const project = await gw('POST', '/api/v1/projects', { name: 'Shop suites', base_url: shop.url });
    expect(project.status).toBe(201);
    const hook = await gw('POST', '/api/v1/webhooks', { name: 'CI', url: `${receiver.url}/hook`, events: ['test.execution.failed', 'test.execution.passed', 'test.plan.completed'] });
    expect(hook.status).toBe(201);

    const push = await assay(['suite', 'push', path.join(repoRoot(), 'tests/fixtures/suites/shop'), '--project', project.body.id, '--name', 'shop']);
    expect(push.stderr).toBe('Suite "shop" version 1 stored; waiting for a suite runner to list its tests...\n');
    expect(push.code).toBe(0);
    expect(push.stdout).toContain('Suite "shop"');
    expect(push.stdout).toContain('version 1: 6 tests');
    expect(push.stdout).toContain('[chromium] shop.spec.ts:12 › the shop › signs a user in');

    const run = await assay(['suite', 'run', 'shop', '--project', project.body.id, '--shards', '2', '--retries', '1', '--junit', 'suite.xml']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('4 passed, 1 failed, 1 skipped');
    const xml = await readFile(path.join(work, 'suite.xml'), 'utf8');
    expect(await validateJUnit(xml, 'jenkins-junit.xsd')).toEqual({ valid: true, errors: [] });
    expect(xml).toContain('tests="6"');
    expect(xml).toMatch(/<testcase name="the shop › finds a heading that is not there"[^>]*>\s*<failure message="[^"]*Another Shop/);

    const executionId = /execution ([0-9a-f-]{36})/.exec(run.stdout)![1]!;
    const execution = await gw('GET', `/api/v1/executions/${executionId}`);
    expect(execution.body).toMatchObject({ kind: 'suite', status: 'completed', passed_tests: 4, failed_tests: 1, skipped_tests: 1 });
    const failed = execution.body.results.test_results.find((r: any) => r.status === 'failed');

    // Failure analysis reads the suite's failing test like a case's.
    let lastAnswer: unknown;
    const analysis = await eventually(async () => {
      const r = await gw('GET', `/api/v1/executions/${executionId}/failure-analysis`);
      lastAnswer = [r.status, r.body];
      return r.status === 200 ? r.body : undefined;
    }, 90_000).catch((err: Error) => {
      throw new Error(`${err.message}; the last answer: ${JSON.stringify(lastAnswer)}`);
    });
    expect(analysis.analysis).toHaveLength(1);
    expect(analysis.analysis[0]).toMatchObject({ test_id: failed.test_id, failure_category: 'assertion_mismatch', evidence: { expected: 'Another Shop', found: 'Assay Shop' } });

    // The webhooks: a failed test, a flaky one passed, the run's summary.
    const plan = await eventually(async () => received.find((b) => b.event === 'test.plan.completed' && b.data?.execution_id === executionId), 60_000);
    expect(plan.data.test_plan).toMatchObject({ id: execution.body.test_plan_id, name: 'shop', summary: { total: 6, passed: 4, failed: 1, skipped: 1 } });
    const failedHook = await eventually(async () => received.find((b) => b.event === 'test.execution.failed' && b.data.execution?.id === executionId), 60_000);
    expect(failedHook.data.execution).toMatchObject({ test_case_id: failed.test_id, test_case_name: 'the shop › finds a heading that is not there', error: { type: 'assertion_failed' } });
    const flaky = await eventually(async () => received.find((b) => b.event === 'test.execution.passed' && b.data.execution?.id === executionId && b.data.execution.flaky), 60_000);
    expect(flaky.data.execution.test_case_name).toBe('the shop › passes on its second attempt');
  });

  it('says a version is still being listed when its listing outlasts --list-timeout, and exits 1', async () => {
    const project = await gw('POST', '/api/v1/projects', { name: 'Slow listing', base_url: shop.url });
    const push = await assay(['suite', 'push', path.join(repoRoot(), 'tests/fixtures/suites/slow-listing'), '--project', project.body.id, '--list-timeout', '2']);
    expect(push.code).toBe(1);
    expect(push.stdout).toBe('');
    expect(push.stderr).toMatch(/^Suite "slow-listing" version 1 stored; waiting for a suite runner to list its tests\.\.\.\nSuite "slow-listing" version 1 is still being listed after 2 s .*GET \/api\/v1\/suites\/[0-9a-f-]{36}\/versions\/1\n$/);
    // It was slow, not lost: the runner lists it.
    const suiteId = /suites\/([0-9a-f-]{36})\/versions/.exec(push.stderr)![1]!;
    const listed = await eventually(async () => {
      const v = await gw('GET', `/api/v1/suites/${suiteId}/versions/1`);
      return v.body.status === 'listing' ? undefined : v.body;
    }, 90_000, 500);
    expect(listed).toMatchObject({ status: 'ready', total_tests: 1 });
  });
});
