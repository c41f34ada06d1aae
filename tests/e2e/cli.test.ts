import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ok, type AssayClient } from '@assay/client';
import { validateJUnit } from '../../apps/cli/test/junit-schema/validate.js';
import { startShop } from '../fixtures/shop/server.js';
import { clientFor, FAILING_CASE, PASSING_CASES, seed } from './support/clients.js';
import { launchForFile, repoRoot } from './support/launcher.js';
import { runPlaywrightTest } from './support/playwright-test.js';

// The `assay` command as a real process against the launcher's real stack and
// the fixture shop: runs with exit codes and JUnit, import, export (run by
// Playwright Test), discovery. Setup goes through the SDK.
jest.setTimeout(240_000);

const launched = launchForFile();
let shop: Awaited<ReturnType<typeof startShop>>;
let client: AssayClient;
let key: string;
let projectId: string;
let planIds: Record<string, string>;
let work: string;

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `assay <args>` (apps/cli/bin/assay.js, or another build of it) with the gateway and key in its environment. */
function assay(args: string[], env: Record<string, string> = {}, bin = path.join(repoRoot(), 'apps', 'cli', 'bin', 'assay.js')): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', CI: 'true', ASSAY_URL: launched.assay.gatewayUrl, ASSAY_API_KEY: key, ...env },
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

/** Each test's outcome in a Playwright JSON report: title → passed/failed. */
function outcomes(report: any): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (suite: any) => {
    for (const spec of suite.specs ?? []) out[spec.title] = spec.tests[0].results[0].status;
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report.suites) walk(suite);
  return out;
}

beforeAll(async () => {
  shop = await startShop();
  ({ client, key } = await clientFor(launched.assay.gatewayUrl, launched.assay.serviceKey));
  ({ projectId, planIds } = await seed(client, shop.url, { 'Shop smoke': PASSING_CASES, 'Shop with a failure': { ...FAILING_CASE, 'Menu opens on hover': PASSING_CASES['Menu opens on hover']! } }));
  // Under tests/ so that the exported spec finds @playwright/test in tests/node_modules.
  await mkdir(path.join(repoRoot(), 'tests', '.tmp'), { recursive: true });
  work = await mkdtemp(path.join(repoRoot(), 'tests', '.tmp', 'cli-'));
});

afterAll(async () => {
  await shop?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('assay run', () => {
  it('exits 0 when every test passed and writes a JUnit report valid against both JUnit schemas', async () => {
    const run = await assay(['run', '--plan', planIds['Shop smoke']!, '--wait', '--junit', 'smoke.xml']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    for (const name of Object.keys(PASSING_CASES)) expect(run.stdout).toContain(`PASS ${name} (`);
    expect(run.stdout).toContain('4 passed, 0 failed in ');
    const xml = await readFile(path.join(work, 'smoke.xml'), 'utf8');
    expect(await validateJUnit(xml, 'jenkins-junit.xsd')).toEqual({ valid: true, errors: [] });
    expect(await validateJUnit(xml, 'ant-junit.xsd')).toEqual({ valid: true, errors: [] });
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml).toContain('tests="4" failures="0" errors="0"');
  });

  it('exits 1 when a test failed, naming the step, the error and the screenshot in JSON and JUnit', async () => {
    const run = await assay(['run', '--plan', planIds['Shop with a failure']!, '--junit', 'failure.xml', '--json']);
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({ status: 'completed', passed: 1, failed: 1, skipped: 0, total: 2 });
    const failed = summary.tests.find((t: { status: string }) => t.status === 'failed');
    expect(failed).toMatchObject({ name: 'Wrong price', error: 'step 2 "assert_text #price": Expected text "$99.00" but found "$20.00"' });
    expect(failed.screenshot).toMatch(new RegExp(`^${launched.assay.gatewayUrl}/api/v1/artifacts/`));
    // Progress went to stderr, as plain lines (CI is set).
    expect(run.stderr).toContain('FAIL Wrong price (');
    expect(run.stderr).toContain('PASS Menu opens on hover (');
    const xml = await readFile(path.join(work, 'failure.xml'), 'utf8');
    expect(await validateJUnit(xml, 'jenkins-junit.xsd')).toEqual({ valid: true, errors: [] });
    expect(await validateJUnit(xml, 'ant-junit.xsd')).toEqual({ valid: true, errors: [] });
    expect(xml).toContain('<failure message="step 2 &quot;assert_text #price&quot;: Expected text &quot;$99.00&quot; but found &quot;$20.00&quot;" type="step_failed">');
    expect(xml).toContain(`Screenshot: ${failed.screenshot}`);
    // The execution the CLI ran is the one the API reports.
    const execution = ok(await client.api.GET('/api/v1/executions/{execution_id}', { params: { path: { execution_id: summary.execution_id } } }));
    expect(execution).toMatchObject({ status: 'completed', passed_tests: 1, failed_tests: 1 });
  });

  it('queues without waiting, passing environment variables through', async () => {
    const run = await assay(['run', '--plan', planIds['Shop smoke']!, '--var', 'user=jane', '--json']);
    expect(run.code).toBe(0);
    const queued = JSON.parse(run.stdout);
    expect(queued).toMatchObject({ execution_id: expect.any(String), status: 'queued', polling_url: `/api/v1/executions/${queued.execution_id}/status` });
    const done = await client.followExecution(queued.execution_id);
    expect(done.finished && done.execution.passed_tests).toBe(4);
  });

  it('runs the same way from the packed npm package, installed offline as npx would', async () => {
    const run = promisify(execFile);
    const pkg = path.join(work, 'package');
    await run(process.execPath, ['--import', 'tsx', path.join(repoRoot(), 'apps', 'cli', 'scripts', 'bundle.ts'), pkg], { cwd: repoRoot() });
    const { stdout } = await run('npm', ['pack', pkg, '--pack-destination', work], { cwd: work });
    const tarball = path.join(work, stdout.trim().split('\n').pop()!);
    const prefix = path.join(work, 'installed');
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, tarball], { cwd: work });
    // The installed package carries only the bundle: no workspace source, no dependency.
    expect((await readdir(path.join(prefix, 'node_modules'))).filter((d) => !d.startsWith('.'))).toEqual(['@assay']);
    const packed = await assay(['run', '--plan', planIds['Shop smoke']!, '--wait', '--junit', 'packed.xml'], {}, path.join(prefix, 'node_modules', '@assay', 'cli', 'assay.mjs'));
    expect({ code: packed.code, stdout: packed.stdout }).toEqual({ code: 0, stdout: expect.stringContaining('4 passed, 0 failed in ') });
    expect(packed.stdout).toContain('4 passed, 0 failed in ');
    expect(await validateJUnit(await readFile(path.join(work, 'packed.xml'), 'utf8'), 'ant-junit.xsd')).toEqual({ valid: true, errors: [] });
  });

  it('exits 2 on usage and API errors, and never prints the key', async () => {
    const missing = await assay(['run']);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toContain('--plan is required');
    const unknown = await assay(['run', '--plan', '00000000-0000-4000-8000-000000000000', '--wait']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/404 not_found: .*\[request [\w-]+\]/);
    const badKey = 'service_sk_prod_thisKeyDoesNotExist1234567890';
    const refused = await assay(['run', '--plan', planIds['Shop smoke']!, '--wait'], { ASSAY_API_KEY: badKey });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('401 invalid_api_key');
    for (const r of [missing, unknown, refused]) {
      expect(r.stdout + r.stderr).not.toContain(key);
      expect(r.stdout + r.stderr).not.toContain(badKey);
    }
    const noKey = await assay(['import', 'x.csv', '--project', projectId], { ASSAY_API_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('No API key');
  });
});

describe('assay import, export and discover', () => {
  it('imports CSV (exit 0) and a .side project with an unmapped command (exit 1, the row listed)', async () => {
    await writeFile(path.join(work, 'cases.csv'), 'Name,Description,Step 1,Step 2\nHome title,,navigate:/,assert_text:#title:Assay Shop\n');
    const csv = await assay(['import', 'cases.csv', '--project', projectId]);
    expect(csv.code).toBe(0);
    expect(csv.stdout).toContain('Imported 1, failed 0 (cases.csv)');
    const side = {
      id: 'p',
      version: '2.0',
      name: 'Shop',
      url: shop.url,
      tests: [
        { id: 't1', name: 'About page', commands: [{ id: 'c1', command: 'open', target: '/about', targets: [], value: '' }, { id: 'c2', command: 'assertText', target: 'id=about-text', targets: [], value: 'We sell things.' }] },
        { id: 't2', name: 'Scripted', commands: [{ id: 'c1', command: 'runScript', target: 'window.x = 1', targets: [], value: '' }] },
      ],
      suites: [],
      urls: [],
      plugins: [],
    };
    await writeFile(path.join(work, 'shop.side'), JSON.stringify(side));
    const imported = await assay(['import', 'shop.side', '--project', projectId]);
    expect(imported.code).toBe(1);
    expect(imported.stdout).toContain('Imported 1, failed 1 (shop.side)');
    expect(imported.stdout).toContain('FAIL row 2: command 1 "runScript" has no Assay action');
    const about = ok(await client.api.GET('/api/v1/test-cases', { params: { query: { project_id: projectId, search: 'About page' } } })).data[0]!;
    expect(about.steps.map(({ action, selector, value }) => ({ action, selector, value }))).toEqual([
      { action: 'navigate', selector: undefined, value: '/about' },
      { action: 'assert_text', selector: '#about-text', value: 'We sell things.' },
    ]);
  });

  it('exports plans as Playwright Test files that Playwright runs with the same outcomes as Assay', async () => {
    const dir = path.join(work, 'playwright');
    await mkdir(dir);
    await writeFile(
      path.join(dir, 'playwright.config.ts'),
      `import { defineConfig } from '@playwright/test';
export default defineConfig({ testDir: '.', outputDir: './results', workers: 1, retries: 0,
  use: { launchOptions: { executablePath: '/usr/lib/chromium/chromium-headless-shell', args: ['--no-sandbox', '--disable-gpu'] } } });\n`,
    );
    const smoke = await assay(['export', '--plan', planIds['Shop smoke']!, '--out', `${dir}/`]);
    expect(smoke.code).toBe(0);
    expect(smoke.stderr).toBe(`Wrote ${path.join(dir, 'shop-smoke.spec.ts')}\n`);
    const spec = await readFile(path.join(dir, 'shop-smoke.spec.ts'), 'utf8');
    expect(spec).toContain("page.getByTestId('product-1').first()");
    expect(spec).toContain("page.getByRole('link', { name: 'Manual (PDF)' }).first()");
    expect(spec).toContain(`process.env.BASE_URL ?? '${shop.url}'`);

    const passing = await runPlaywrightTest(dir, { env: { BASE_URL: shop.url } });
    expect({ code: passing.code, outcomes: outcomes(passing.report) }).toEqual({
      code: 0,
      outcomes: Object.fromEntries(Object.keys(PASSING_CASES).map((n) => [n, 'passed'])),
    });

    // The plan with a failing case fails in Playwright on the same test, at the same assertion.
    await rm(path.join(dir, 'shop-smoke.spec.ts'));
    const failure = await assay(['export', '--plan', planIds['Shop with a failure']!, '--out', path.join(dir, 'failure.spec.ts')]);
    expect(failure.code).toBe(0);
    const failing = await runPlaywrightTest(dir, { env: { BASE_URL: shop.url } });
    expect(failing.code).toBe(1);
    expect(outcomes(failing.report)).toEqual({ 'Wrong price': 'failed', 'Menu opens on hover': 'passed' });
    expect(JSON.stringify(failing.report)).toContain('$99.00');
    expect((await readdir(dir)).sort()).toEqual(expect.arrayContaining(['failure.spec.ts', 'playwright.config.ts']));
  });

  it('prints an export to stdout in the import JSON format', async () => {
    const plan = ok(await client.api.GET('/api/v1/test-plans/{test_plan_id}', { params: { path: { test_plan_id: planIds['Shop smoke']! } } }));
    const run = await assay(['export', '--test-case', plan.test_case_ids[0]!, '--format', 'json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([{ name: 'Search finds shoes', steps: PASSING_CASES['Search finds shoes'] }]);
  });

  it('crawls the shop and turns the flows it found into test cases', async () => {
    const plan = ok(await client.api.POST('/api/v1/test-plans', { body: { project_id: projectId, name: 'Discovered' } }));
    const run = await assay(['discover', shop.url, '--project', projectId, '--max-pages', '6', '--max-depth', '1', '--generate', '--plan', plan.id, '--json']);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.results.status).toBe('completed');
    expect(out.results.summary.total_pages).toBeGreaterThan(1);
    expect(run.stderr).toContain(`page 200 ${shop.url}/`);
    expect(out.results.flows.length).toBeGreaterThan(0);
    expect(out.generated.test_cases.length).toBeGreaterThan(0);
    const after = ok(await client.api.GET('/api/v1/test-plans/{test_plan_id}', { params: { path: { test_plan_id: plan.id } } }));
    expect(after.test_case_ids).toEqual(out.generated.test_cases.map((c: { id: string }) => c.id));
  });
});
