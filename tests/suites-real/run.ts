/* eslint-disable no-console -- a panel prints its figures */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '@assay/embedded-pg';
import { startSuitesHarness } from '../../services/execution-runner/test/suites-harness.js';

/**
 * `make suites-real`: Playwright suites written by others, from the npm
 * registry, run through Assay's API unchanged but for their base URL, against
 * the app they were written for (installed from the registry, on loopback),
 * and by `npx playwright test` on the same machine against the same app: both
 * pass/fail counts are printed and must be equal. Not in `make test`.
 *
 * The suite: `create-playwright` 1.17.132's demo-todo-app.spec.ts (24 tests,
 * written for the TodoMVC React app) with its playwright.config.ts (its
 * `{{testDir}}` filled as create-playwright fills it); the app: the `todomvc`
 * package's React example. The spec's one hard-coded URL
 * (https://demo.playwright.dev/todomvc) is its base URL: it is rewritten to
 * the local app, nothing else.
 */
const require = createRequire(import.meta.url);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium-headless-shell';

function buildSuite(appUrl: string): string {
  const assets = path.join(path.dirname(require.resolve('create-playwright/package.json')), 'assets');
  const dir = mkdtempSync(path.join(tmpdir(), 'todomvc-suite-'));
  mkdirSync(path.join(dir, 'tests'));
  writeFileSync(path.join(dir, 'playwright.config.ts'), readFileSync(path.join(assets, 'playwright.config.ts'), 'utf8').replace('{{testDir}}', 'tests'));
  const spec = readFileSync(path.join(assets, 'demo-todo-app.spec.ts'), 'utf8');
  if (!spec.includes("'https://demo.playwright.dev/todomvc'")) throw new Error('the spec no longer holds its base URL where this panel looks for it');
  writeFileSync(path.join(dir, 'tests', 'demo-todo-app.spec.ts'), spec.replace("'https://demo.playwright.dev/todomvc'", JSON.stringify(appUrl)));
  return dir;
}

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  byTitle: Record<string, string>;
}

/** `npx playwright test` on the suite (Chromium project, no retries), only the browser's path set as this machine needs. */
function runPlaywright(dir: string): Promise<Counts> {
  writeFileSync(
    path.join(dir, 'baseline.config.ts'),
    `import base from './playwright.config';\nexport default { ...base, reporter: [['json', { outputFile: 'baseline.json' }]], retries: 0, projects: base.projects.map((p) => ({ ...p, use: { ...p.use, launchOptions: { executablePath: ${JSON.stringify(CHROMIUM)}, args: ['--no-sandbox'] } } })) };\n`,
  );
  // As a team's checkout after `npm install`: @playwright/test in the suite's node_modules.
  const pkg = path.dirname(require.resolve('@playwright/test/package.json'));
  mkdirSync(path.join(dir, 'node_modules', '@playwright'), { recursive: true });
  symlinkSync(pkg, path.join(dir, 'node_modules', '@playwright', 'test'));
  const cli = path.join(pkg, 'cli.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'test', '--config', 'baseline.config.ts', '--project', 'chromium'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir }, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => {
      const report = JSON.parse(readFileSync(path.join(dir, 'baseline.json'), 'utf8'));
      const byTitle: Record<string, string> = {};
      const walk = (s: any, prefix: string[]) => {
        for (const spec of s.specs ?? []) byTitle[[...prefix, spec.title].join(' › ')] = spec.tests[0].status === 'expected' ? 'passed' : spec.tests[0].status === 'skipped' ? 'skipped' : 'failed';
        for (const c of s.suites ?? []) walk(c, c.title && !c.title.endsWith('.ts') ? [...prefix, c.title] : prefix);
      };
      for (const s of report.suites) walk(s, []);
      const values = Object.values(byTitle);
      resolve({ passed: values.filter((v) => v === 'passed').length, failed: values.filter((v) => v === 'failed').length, skipped: values.filter((v) => v === 'skipped').length, byTitle });
    });
  });
}

async function main(): Promise<void> {
  const pgHome = mkdtempSync(path.join(tmpdir(), 'suites-real-pg-'));
  const embedded = await startEmbeddedPostgres({ dataDir: pgHome, ephemeral: true });
  process.env.TEST_DATABASE_URL = embedded.url;
  const todomvc = require('todomvc') as { listen(port: number, host: string, cb: () => void): Server };
  const app = await new Promise<Server>((resolve) => {
    const s = todomvc.listen(0, '127.0.0.1', () => resolve(s));
  });
  const appUrl = `http://127.0.0.1:${(app.address() as { port: number }).port}/examples/react/`;
  const h = await startSuitesHarness({ shardRunners: 2 });
  // As the runner's default: a shard takes at least 15 s of expected work from the queue at once.
  h.settings.batchMinMs = 15_000;
  const dir = buildSuite(appUrl);
  try {
    const t = h.tenant();
    const projectId = await t.project(appUrl);
    const archive = execFileSync('tar', ['czf', '-', '-C', dir, 'playwright.config.ts', 'tests']);
    const up = await t.upload({ project_id: projectId, name: 'create-playwright demo-todo-app' }, archive);
    if (up.status !== 201) throw new Error(`upload: ${up.status} ${JSON.stringify(up.body)}`);
    const queued = await t.ex('POST', '/api/v1/executions/async', { project_id: projectId, suite_id: up.body.id, retries: 0, shards: 2, timeout_seconds: 1800 });
    let run: any;
    do {
      await new Promise((r) => setTimeout(r, 2000));
      run = (await t.ex('GET', `/api/v1/executions/${queued.body.id}`)).body;
    } while (!['completed', 'failed', 'cancelled'].includes(run.status));
    const results: any[] = run.results.test_results;
    const ours: Counts = { passed: 0, failed: 0, skipped: 0, byTitle: {} };
    for (const r of results) {
      ours.byTitle[r.name] = r.status;
      ours[r.status as 'passed' | 'failed' | 'skipped'] += 1;
    }
    const withSteps = results.filter((r) => r.status !== 'skipped' && r.steps.length > 0 && r.trace).length;
    const baseline = await runPlaywright(dir);
    console.log(`create-playwright 1.17.132 demo-todo-app.spec.ts against todomvc 0.1.1 (React), ${results.length} tests (${new Date().toISOString()})`);
    console.log(`  Assay (2 shards):     ${ours.passed} passed, ${ours.failed} failed, ${ours.skipped} skipped; ${withSteps} with steps and a trace`);
    console.log(`  npx playwright test:  ${baseline.passed} passed, ${baseline.failed} failed, ${baseline.skipped} skipped`);
    const differ = Object.keys({ ...ours.byTitle, ...baseline.byTitle }).filter((k) => ours.byTitle[k] !== baseline.byTitle[k]);
    for (const k of differ) console.log(`  differs: ${k}: Assay ${ours.byTitle[k]}, Playwright ${baseline.byTitle[k]}`);
    if (ours.passed !== baseline.passed || ours.failed !== baseline.failed || differ.length) process.exitCode = 1;
    else console.log('  the counts are equal, test by test');
  } finally {
    await h.close();
    app.close();
    rmSync(dir, { recursive: true, force: true });
    await embedded.stop();
    rmSync(pgHome, { recursive: true, force: true });
  }
}

void main();
