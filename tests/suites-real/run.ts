/* eslint-disable no-console -- a panel prints its figures */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { startEmbeddedPostgres } from '@assay/embedded-pg';
import { DEFAULT_EGRESS, EgressPolicy } from '@assay/egress';
import { startSuitesHarness } from '../../services/execution-runner/test/suites-harness.js';
import { buildDocsifySuite, startDocsifyApp } from './docsify-app.js';

/**
 * `make suites-real`: Playwright suites written by others, from the npm
 * registry, run through Assay's API unchanged but for their base URL, against
 * the app they were written for (installed from the registry), and by `npx
 * playwright test` on the same machine against the same app: both pass/fail
 * counts are printed and must be equal, test by test. Not in `make test`.
 *
 * 1. `create-playwright` 1.17.132's demo-todo-app.spec.ts (24 tests, written
 *    for the TodoMVC React app of demo.playwright.dev) with its
 *    playwright.config.ts (its `{{testDir}}` filled as create-playwright
 *    fills it), against the `todomvc` package's React example on loopback.
 *    The spec's one hard-coded URL (https://demo.playwright.dev/todomvc) is
 *    its base URL: it is rewritten to the local app, nothing else.
 * 3. docsify 4.13.1's own Playwright tests (its test/e2e, copied from its
 *    repository at that tag into tests/suites-real/docsify), against the
 *    `docsify` package's lib at that version served as its test server
 *    served it (docsify-app.ts). Its base URL (`TEST_HOST`, which its test
 *    server set) is the local app's: the one thing rewritten.
 * 2. `tiddlywiki` 5.4.1's own Playwright test: its playwright.config.js and
 *    editions/test/playwright.spec.js, which open the package's test edition
 *    (rendered from the installed package to editions/test/output/test.html,
 *    as its `build index` does, without the Node test run) as a file and
 *    wait for its Jasmine suite to pass in the browser. Nothing is rewritten:
 *    the spec has no URL but that file's path, beside it in the archive.
 */
const require = createRequire(import.meta.url);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium-headless-shell';

/** `[m:ss]` since `since`. */
const elapsed = (since: number) => {
  const s = Math.round((Date.now() - since) / 1000);
  return `[${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}]`;
};


function buildTodoSuite(appUrl: string): string {
  const assets = path.join(path.dirname(require.resolve('create-playwright/package.json')), 'assets');
  const dir = mkdtempSync(path.join(tmpdir(), 'todomvc-suite-'));
  mkdirSync(path.join(dir, 'tests'));
  writeFileSync(path.join(dir, 'playwright.config.ts'), readFileSync(path.join(assets, 'playwright.config.ts'), 'utf8').replace('{{testDir}}', 'tests'));
  const spec = readFileSync(path.join(assets, 'demo-todo-app.spec.ts'), 'utf8');
  if (!spec.includes("'https://demo.playwright.dev/todomvc'")) throw new Error('the spec no longer holds its base URL where this panel looks for it');
  writeFileSync(path.join(dir, 'tests', 'demo-todo-app.spec.ts'), spec.replace("'https://demo.playwright.dev/todomvc'", JSON.stringify(appUrl)));
  return dir;
}

/**
 * TiddlyWiki's Playwright project as the package ships it (config and spec
 * copied byte for byte), with the test edition rendered by the package's own
 * command line where the spec looks for it. Not its package.json: its
 * devDependencies are linters the suite does not load.
 */
function buildTiddlyWikiSuite(): string {
  const pkg = path.dirname(require.resolve('tiddlywiki/package.json'));
  const dir = mkdtempSync(path.join(tmpdir(), 'tiddlywiki-suite-'));
  mkdirSync(path.join(dir, 'editions', 'test', 'output'), { recursive: true });
  writeFileSync(path.join(dir, 'playwright.config.js'), readFileSync(path.join(pkg, 'playwright.config.js')));
  writeFileSync(path.join(dir, 'editions', 'test', 'playwright.spec.js'), readFileSync(path.join(pkg, 'editions', 'test', 'playwright.spec.js')));
  execFileSync(process.execPath, [path.join(pkg, 'tiddlywiki.js'), path.join(pkg, 'editions', 'test'), '--output', path.join(dir, 'editions', 'test', 'output'), '--rendertiddler', '$:/core/save/all', 'test.html', 'text/plain'], { stdio: 'ignore' });
  return dir;
}

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  byTitle: Record<string, string>;
}

/**
 * `npx playwright test` on the suite (Chromium project, no retries), only the browser's path set as this
 * machine needs, and a resolver that knows 127.0.0.1 only: a page's link to the internet (docsify renders
 * `:heart:` as an image on github.githubassets.com) fails there, sending no packet off loopback, as in the box.
 */
function runPlaywright(dir: string): Promise<Counts> {
  writeFileSync(
    path.join(dir, 'baseline.config.ts'),
    `import base from './playwright.config';\nexport default { ...base, reporter: [['list'], ['json', { outputFile: 'baseline.json' }]], retries: 0, projects: base.projects.map((p) => ({ ...p, use: { ...p.use, launchOptions: { executablePath: ${JSON.stringify(CHROMIUM)}, args: ['--no-sandbox', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'] } } })) };\n`,
  );
  // As a team's checkout after `npm install`: @playwright/test in the suite's node_modules.
  const pkg = path.dirname(require.resolve('@playwright/test/package.json'));
  mkdirSync(path.join(dir, 'node_modules', '@playwright'), { recursive: true });
  symlinkSync(pkg, path.join(dir, 'node_modules', '@playwright', 'test'));
  const cli = path.join(pkg, 'cli.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'test', '--config', 'baseline.config.ts', '--project', 'chromium'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir }, stdio: ['ignore', 'pipe', 'ignore'] });
    const started = Date.now();
    // Its list reporter's lines (one a finished test, numbered) as progress.
    createInterface({ input: child.stdout! }).on('line', (l) => {
      if (/^\s+[✓✘-]\s+\d+ /.test(l)) console.log(`  ${elapsed(started)} playwright: ${l.trim().slice(0, 160)}`);
    });
    child.on('error', reject);
    child.on('exit', () => {
      const report = JSON.parse(readFileSync(path.join(dir, 'baseline.json'), 'utf8'));
      const byTitle: Record<string, string> = {};
      const walk = (s: any, prefix: string[]) => {
        for (const spec of s.specs ?? []) byTitle[[...prefix, spec.title].join(' › ')] = spec.tests[0].status === 'expected' ? 'passed' : spec.tests[0].status === 'skipped' ? 'skipped' : 'failed';
        for (const c of s.suites ?? []) walk(c, c.title && !/\.[cm]?[jt]sx?$/.test(c.title) ? [...prefix, c.title] : prefix);
      };
      for (const s of report.suites) walk(s, []);
      const values = Object.values(byTitle);
      resolve({ passed: values.filter((v) => v === 'passed').length, failed: values.filter((v) => v === 'failed').length, skipped: values.filter((v) => v === 'skipped').length, byTitle });
    });
  });
}

/** `<status>, 5/24 tests done; shard 0: 3/12 done, 1 running; shard 1: …`, from the run's results and its queue's units. */
async function progress(h: Awaited<ReturnType<typeof startSuitesHarness>>, executionId: string, run: any): Promise<string> {
  const results: any[] = run.results?.test_results ?? [];
  const done = (s: string) => ['passed', 'failed', 'skipped'].includes(s);
  const status = new Map<string, string>();
  const rows = await h.database.db.selectFrom('test_results').select(['id', 'status']).where('execution_id', '=', executionId).execute();
  for (const r of rows) status.set(r.id, r.status);
  const units = await h.database.db.selectFrom('suite_units').select(['shard', 'result_ids']).where('execution_id', '=', executionId).execute();
  const shards = await h.database.db.selectFrom('suite_shards').select(['shard', 'status']).where('execution_id', '=', executionId).orderBy('shard').execute();
  const perShard = shards.map((s) => {
    const ids = units.filter((u) => u.shard === s.shard).flatMap((u) => u.result_ids);
    const finished = ids.filter((id) => done(status.get(id) ?? '')).length;
    const running = ids.filter((id) => status.get(id) === 'running').length;
    return `shard ${s.shard} (${s.status}): ${finished}/${ids.length} taken done${running ? `, ${running} running` : ''}`;
  });
  const total = Math.max(results.length, rows.length);
  return `${run.status}, ${[...status.values()].filter(done).length}/${total} tests done; ${perShard.join('; ')}`;
}

interface RealSuite {
  title: string;
  dir: string;
  /** What the archive holds, relative to dir. */
  entries: string[];
  /** The project's base URL (the run's baseURL). */
  baseUrl: string;
  shards: number;
}

/** What a result lacks of its steps and trace. */
const x = (r: any) => [r.steps.length > 0 ? '' : 'steps', r.trace ? '' : 'a trace'].filter(Boolean).join(' or ');

/** Uploads and runs one suite through the API, then by npx playwright test; false when the counts differ. */
async function compare(h: Awaited<ReturnType<typeof startSuitesHarness>>, suite: RealSuite): Promise<boolean> {
  const t = h.tenant();
  const projectId = await t.project(suite.baseUrl);
  const archive = execFileSync('tar', ['czf', '-', '-C', suite.dir, ...suite.entries], { maxBuffer: 256 * 1024 * 1024 });
  // The Chromium project only, as npx playwright test --project chromium below (TiddlyWiki's config has an Edge one too, which the runner would run on Chromium).
  const up = await t.upload({ project_id: projectId, name: suite.title, projects: 'chromium' }, archive);
  if (up.status !== 201) throw new Error(`upload of ${suite.title}: ${up.status} ${JSON.stringify(up.body)}`);
  const queued = await t.ex('POST', '/api/v1/executions/async', { project_id: projectId, suite_id: up.body.id, retries: 0, shards: suite.shards, timeout_seconds: 1800 });
  const started = Date.now();
  console.log(`${suite.title}: queued ${queued.body.id} (${new Date().toISOString()}, load average ${loadavg()[0]!.toFixed(1)})`);
  let run: any;
  let last = '';
  do {
    await new Promise((r) => setTimeout(r, 2000));
    run = (await t.ex('GET', `/api/v1/executions/${queued.body.id}`)).body;
    // Progress as it moves: a run of failing tests at Playwright's own timeouts takes minutes.
    const line = await progress(h, queued.body.id, run);
    if (line !== last) console.log(`  ${elapsed(started)} Assay: ${line}`);
    last = line;
  } while (!['completed', 'failed', 'cancelled'].includes(run.status));
  const assayMs = Date.now() - started;
  const results: any[] = run.results.test_results;
  const ours: Counts = { passed: 0, failed: 0, skipped: 0, byTitle: {} };
  for (const r of results) {
    ours.byTitle[r.name] = r.status;
    ours[r.status as 'passed' | 'failed' | 'skipped'] += 1;
  }
  const withSteps = results.filter((r) => r.status !== 'skipped' && r.steps.length > 0 && r.trace).length;
  console.log(`  Assay took ${(assayMs / 1000).toFixed(0)} s; now npx playwright test (one line a test)`);
  const baselineStarted = Date.now();
  const baseline = await runPlaywright(suite.dir);
  const baselineMs = Date.now() - baselineStarted;
  console.log(`${suite.title}: ${results.length} tests (${new Date().toISOString()}, load average ${loadavg()[0]!.toFixed(1)})`);
  console.log(`  Assay (${suite.shards} shard${suite.shards > 1 ? 's' : ''}):${suite.shards > 1 ? '' : ' '}     ${ours.passed} passed, ${ours.failed} failed, ${ours.skipped} skipped; ${withSteps} with steps and a trace; ${(assayMs / 1000).toFixed(0)} s`);
  console.log(`  npx playwright test:  ${baseline.passed} passed, ${baseline.failed} failed, ${baseline.skipped} skipped; ${(baselineMs / 1000).toFixed(0)} s`);
  for (const r of results.filter((x) => x.status !== 'skipped' && !(x.steps.length > 0 && x.trace))) console.log(`  Assay without ${x(r)}: ${r.name}`);
  for (const r of results.filter((x) => x.status === 'failed')) console.log(`  Assay failed: ${r.name}: ${String(r.error ?? run.error ?? '').split('\n')[0]!.slice(0, 200)}`);
  const differ = Object.keys({ ...ours.byTitle, ...baseline.byTitle }).filter((k) => ours.byTitle[k] !== baseline.byTitle[k]);
  for (const k of differ) console.log(`  differs: ${k}: Assay ${ours.byTitle[k]}, Playwright ${baseline.byTitle[k]}`);
  if (results.length === 0 || ours.passed !== baseline.passed || ours.failed !== baseline.failed || differ.length) return false;
  console.log('  the counts are equal, test by test');
  return true;
}

async function main(): Promise<void> {
  const only = process.env.SUITES_REAL ? process.env.SUITES_REAL.split(',') : ['todomvc', 'tiddlywiki', 'docsify'];
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
  // The boxes' egress proxy reaches loopback and resolves no name: no packet leaves the machine (the DNS lookup neither).
  h.settings.policy = new EgressPolicy({ ...DEFAULT_EGRESS, allowLoopback: true }, { resolve: async (host) => (host === 'localhost' ? ['127.0.0.1'] : []) });
  const docsify = only.includes('docsify') ? await startDocsifyApp() : undefined;
  const suites: RealSuite[] = [];
  try {
    if (only.includes('todomvc')) suites.push({ title: 'create-playwright 1.17.132 demo-todo-app.spec.ts against todomvc 0.1.1 (React)', dir: buildTodoSuite(appUrl), entries: ['playwright.config.ts', 'tests'], baseUrl: appUrl, shards: 2 });
    // Its spec opens a file, not a URL: the project's base URL is the local app's, unused.
    if (only.includes('tiddlywiki')) suites.push({ title: 'tiddlywiki 5.4.1 editions/test/playwright.spec.js (its test edition in the browser)', dir: buildTiddlyWikiSuite(), entries: ['playwright.config.js', 'editions'], baseUrl: appUrl, shards: 1 });
    if (docsify) suites.push({ title: 'docsify 4.13.1 test/e2e (its own Playwright tests) against the docsify 4.13.1 package', ...buildDocsifySuite(docsify.url), baseUrl: docsify.url, shards: 2 });
    let equal = true;
    for (const suite of suites) equal = (await compare(h, suite)) && equal;
    if (!equal) process.exitCode = 1;
  } finally {
    await h.close();
    app.close();
    await docsify?.close();
    for (const s of suites) rmSync(s.dir, { recursive: true, force: true });
    await embedded.stop();
    rmSync(pgHome, { recursive: true, force: true });
  }
}

void main();
