/* eslint-disable no-console -- a benchmark prints its figures */
import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrowserPool, CHROMIUM_ARGS, chromiumArgs, DEFAULT_CHROMIUM_PATH, FULL_CHROMIUM_PATH, type FreshPage } from '@assay/browser';
import { DEFAULT_EGRESS, EgressPolicy } from '@assay/egress';
import { createSilentLogger } from '@assay/logger';
import { runStep, type Step } from '@assay/steps';
import { startShop } from '../fixtures/shop/server.js';
import { removeAssayHome, repoRoot, startAssay } from '../e2e/support/launcher.js';
import { startCpuMeter, type CpuMeter } from './cpu.js';
import { cpuByKind, formatKinds, interleaved, load, median, ROUNDS, spread, type Figure, type ProcessKind } from './rounds.js';

const CASES = Number(process.env.BENCH_CASES ?? 100);
/**
 * Both sides run the same browser: Debian's headless shell (what Playwright
 * Test itself runs headless, Assay's default) unless BENCH_BROWSER=full (the
 * full browser in new headless mode) or both (one comparison each, printed
 * together). CHROMIUM_PATH overrides the headless shell's path.
 */
const BROWSERS: Record<string, { label: string; path: string }> = {
  shell: { label: 'headless shell', path: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH },
  full: { label: 'full browser', path: FULL_CHROMIUM_PATH },
};
const WANTED_BROWSERS = (process.env.BENCH_BROWSER ?? 'shell') === 'both' ? ['shell', 'full'] : [process.env.BENCH_BROWSER ?? 'shell'];
// Playwright Test runs with DESIGN's Chromium flags on top of its own defaults, as
// a team would configure it; BENCH_BASELINE_ARGS=assay gives it Assay's tuned
// flags too (see the execution-runner README, Performance).
const BASELINE_TUNED = process.env.BENCH_BASELINE_ARGS === 'assay';
const ARGS = BASELINE_TUNED ? chromiumArgs() : CHROMIUM_ARGS;
/**
 * BENCH_FLOOR=1: each round also runs the same cases through Assay's step
 * engine and browser pool alone (`@assay/steps` on recycled contexts behind
 * the egress proxy, two lanes, as the runner does), with no API, database,
 * bus or other service: the browser work Assay cannot avoid, so the figures
 * show how much of Assay's time is its services and how much is Chromium.
 */
const FLOOR = process.env.BENCH_FLOOR === '1';
const STEPS = [
  { action: 'navigate', value: '/products' },
  { action: 'fill', selector: '#q', value: 'shoes' },
  { action: 'click', selector: '#search-button' },
  { action: 'assert_text', selector: '#product-list', value: 'Red Shoes' },
];

async function json(url: string, key: string, method = 'GET', body?: unknown): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const parsed = await res.json();
  if (res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

interface Run {
  seconds: number;
  /** CPU seconds of the side's whole process tree over the timed run. */
  cpu: number;
  /** Where that CPU went, by process kind (sampled; see rounds.ts). */
  kinds: Map<ProcessKind, number>;
}

/** 100 cases run through the API: async create, then polling the status resource. */
async function runAssay(shopUrl: string, meter: CpuMeter, chromium: string): Promise<Run> {
  // BENCH_PROFILE=1: the runner writes each execution's per-phase timings to this file.
  const profileFile = process.env.BENCH_PROFILE ? path.join(repoRoot(), 'tests', 'bench', '.tmp', `runner-profile-${process.pid}.json`) : undefined;
  if (profileFile) await mkdir(path.dirname(profileFile), { recursive: true });
  // Rate limits off: the benchmark polls the status resource every 200 ms.
  const assay = await startAssay({
    env: {
      RUNNER_CONCURRENCY: process.env.BENCH_RUNNER_CONCURRENCY ?? '2',
      LOG_LEVEL: 'warn',
      RATE_LIMITS_ENABLED: 'false',
      CHROMIUM_PATH: chromium,
      ...(profileFile ? { RUNNER_PROFILE_FILE: profileFile } : {}),
    },
  });
  try {
    const api = (p: string, method = 'GET', body?: unknown) => json(`${assay.gatewayUrl}${p}`, assay.serviceKey, method, body);
    const project = await api('/api/v1/projects', 'POST', { name: 'Bench', base_url: shopUrl });
    // One import creates the cases, as a user would.
    const form = new FormData();
    form.append('project_id', project.id);
    form.append('file', new Blob([JSON.stringify(Array.from({ length: CASES }, (_, i) => ({ name: `search ${i}`, steps: STEPS })))], { type: 'application/json' }), 'cases.json');
    const imported: any = await (await fetch(`${assay.gatewayUrl}/api/v1/test-cases/import`, { method: 'POST', headers: { authorization: `Bearer ${assay.serviceKey}` }, body: form })).json();
    const ids: string[] = imported.results.map((r: { id: string }) => r.id);
    if (imported.imported !== CASES) throw new Error(`import failed: ${JSON.stringify(imported).slice(0, 500)}`);
    const plan = await api('/api/v1/test-plans', 'POST', { project_id: project.id, name: 'Bench', test_case_ids: ids });
    // Warm-up: one run so both sides start with Chromium on disk cache and services warm.
    const warm = await api('/api/v1/test-plans', 'POST', { project_id: project.id, name: 'Warm', test_case_ids: ids.slice(0, 2) });
    await api('/api/v1/executions', 'POST', { test_plan_id: warm.id, project_id: project.id });

    const started = performance.now();
    const cpuBefore = meter.read();
    const kinds = cpuByKind();
    const queued = await api('/api/v1/executions/async', 'POST', { test_plan_id: plan.id, project_id: project.id, timeout_seconds: 600 });
    let status: any;
    do {
      await new Promise((r) => setTimeout(r, 200));
      status = await api(queued.polling_url);
    } while (!['completed', 'failed', 'cancelled'].includes(status.status));
    const seconds = (performance.now() - started) / 1000;
    const cpu = meter.read() - cpuBefore;
    const byKind = kinds.stop();
    if (process.env.BENCH_PROFILE) console.log(`  assay CPU by process: ${[...kinds.byLabel()].filter(([, s]) => s >= 0.05).sort((a, b) => b[1] - a[1]).map(([n, s]) => `${n} ${s.toFixed(1)} s`).join(', ')}`);
    const results = await api(`/api/v1/executions/${queued.id}/results`);
    const passed = results.test_results.filter((r: { status: string }) => r.status === 'passed').length;
    if (status.status !== 'completed' || passed !== CASES) {
      const errors = results.test_results.filter((r: { status: string }) => r.status !== 'passed').map((r: { error: string | null }) => r.error);
      throw new Error(`Assay run ended ${status.status} with ${passed}/${CASES} passed; first errors: ${JSON.stringify(errors.slice(0, 3))}`);
    }
    const byAction = new Map<string, number[]>();
    for (const r of results.test_results) for (const [i, st] of r.steps.entries()) byAction.set(STEPS[i]!.action, [...(byAction.get(STEPS[i]!.action) ?? []), st.duration_ms]);
    const caseMs = results.test_results.map((r: { duration_ms: number }) => r.duration_ms);
    const avg = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
    console.log(`  assay per case: ${avg(caseMs)} ms; per step: ${[...byAction].map(([a, xs]) => `${a} ${avg(xs)} ms`).join(', ')}`);
    if (profileFile) {
      // The last execution written is the timed one (the warm-up wrote first).
      const phases = JSON.parse(await readFile(profileFile, 'utf8')) as Record<string, number[]>;
      console.log(`  assay per-phase medians (ms, n): ${Object.entries(phases).map(([p, xs]) => `${p} ${median(xs).toFixed(1)} (${xs.length})`).join(', ')}`);
    }
    return { seconds, cpu, kinds: byKind };
  } finally {
    await assay.stop();
    await removeAssayHome(assay.home);
    if (profileFile) await rm(profileFile, { force: true });
  }
}

/** The floor: the cases through the step engine and browser pool directly, in this process (see FLOOR). */
async function runFloor(shopUrl: string, meter: CpuMeter, chromium: string): Promise<Run> {
  const logger = createSilentLogger();
  const pool = new BrowserPool(chromium, logger, new EgressPolicy({ ...DEFAULT_EGRESS, allowLoopback: true }), { maxCases: 50 });
  const steps = STEPS.map((s, i) => ({ ...s, step_id: `s${i}` })) as Step[];
  const lanes = Number(process.env.BENCH_RUNNER_CONCURRENCY ?? 2);
  try {
    await pool.get();
    const fingerprints = new Map();
    const started = performance.now();
    const cpuBefore = meter.read();
    const kinds = cpuByKind();
    let next = 0;
    const lane = async () => {
      let fresh: FreshPage | undefined;
      while (next < CASES) {
        next += 1;
        fresh = (fresh && (await pool.recycle(fresh))) || (await pool.freshPage(0));
        for (const step of steps) await runStep({ page: fresh.page, baseUrl: shopUrl, variables: {}, stepTimeoutMs: 5000, navigationTimeoutMs: 15_000, fingerprints, egress: { policy: pool.egress, proxy: fresh.egress } }, step);
      }
      await fresh?.context.close();
    };
    await Promise.all(Array.from({ length: lanes }, lane));
    return { seconds: (performance.now() - started) / 1000, cpu: meter.read() - cpuBefore, kinds: kinds.stop() };
  } finally {
    await pool.close();
  }
}

/** The same 100 cases as a Playwright Test suite with 2 workers on the same Chromium. */
async function runPlaywrightTest(shopUrl: string, meter: CpuMeter, chromium: string): Promise<Run> {
  const dir = path.join(repoRoot(), 'tests', 'bench', '.tmp', 'pwt');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, 'playwright.config.mjs'),
    `export default { testDir: '.', outputDir: './results', workers: 2, fullyParallel: true, reporter: 'dot', retries: 0,
  use: { baseURL: ${JSON.stringify(shopUrl)}, browserName: 'chromium', viewport: { width: 1280, height: 720 }, screenshot: 'only-on-failure',
    launchOptions: { executablePath: ${JSON.stringify(chromium)}, args: ${JSON.stringify(ARGS)} } } };\n`,
  );
  await writeFile(
    path.join(dir, 'search.spec.mjs'),
    `import { test, expect } from '@playwright/test';
for (let i = 0; i < ${CASES}; i++) {
  test('search ' + i, async ({ page }) => {
    await page.goto('/products');
    await page.fill('#q', 'shoes');
    await page.click('#search-button');
    await expect(page.locator('#product-list')).toContainText('Red Shoes');
  });
}\n`,
  );
  const run = () =>
    new Promise<Run>((resolve, reject) => {
      const started = performance.now();
      const cpuBefore = meter.read();
      const kinds = cpuByKind();
      const cli = path.join(repoRoot(), 'tests', 'node_modules', '@playwright', 'test', 'cli.js');
      const child = spawn(process.execPath, [cli, 'test', '--config', path.join(dir, 'playwright.config.mjs')], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (out += c));
      child.on('exit', (code) =>
        code === 0
          ? resolve({ seconds: (performance.now() - started) / 1000, cpu: meter.read() - cpuBefore, kinds: kinds.stop() })
          : reject(new Error(`playwright test failed (${code}):\n${out.slice(-3000)}`)),
      );
    });
  await run(); // warm-up, same as Assay's
  return run();
}

interface Comparison {
  browser: string;
  rounds: Array<{ baseline: Run; assay: Run & { floor?: Run } }>;
  cpuMethod: string;
}

/** One side in a cgroup of its own, joined before it starts anything; the shop's state reset after. */
async function side(shop: Awaited<ReturnType<typeof startShop>>, name: string, run: (meter: CpuMeter) => Promise<Run>): Promise<Run & { method: string }> {
  const meter = startCpuMeter(name);
  try {
    return { ...(await run(meter)), method: meter.method };
  } finally {
    meter.close();
    shop.reset();
  }
}

async function compare(shop: Awaited<ReturnType<typeof startShop>>, browser: { label: string; path: string }): Promise<Comparison> {
  let cpuMethod = '';
  const rounds = await interleaved(
    () => side(shop, 'playwright', (m) => runPlaywrightTest(shop.url, m, browser.path)),
    async (): Promise<Run & { floor?: Run }> => {
      const r = await side(shop, 'assay', (m) => runAssay(shop.url, m, browser.path));
      cpuMethod = r.method;
      return FLOOR ? { ...r, floor: await side(shop, 'floor', (m) => runFloor(shop.url, m, browser.path)) } : r;
    },
    (i, b, a, first) =>
      console.log(
        `  round ${i + 1} (${first} first, load ${load()}): playwright test ${b.seconds.toFixed(2)} s, ${b.cpu.toFixed(1)} CPU s [${formatKinds(b.kinds)}]; assay ${a.seconds.toFixed(2)} s, ${a.cpu.toFixed(1)} CPU s [${formatKinds(a.kinds)}]; ratio ${(a.seconds / b.seconds).toFixed(2)}x wall` +
          (a.floor ? `; floor (step engine + browser pool alone) ${a.floor.seconds.toFixed(2)} s, ${a.floor.cpu.toFixed(1)} CPU s [${formatKinds(a.floor.kinds)}], ${(a.floor.seconds / b.seconds).toFixed(2)}x wall` : ''),
      ),
  );
  return { browser: `${browser.label} (${browser.path})`, rounds, cpuMethod };
}

export async function benchExecutions(): Promise<Figure[]> {
  const unknown = WANTED_BROWSERS.filter((b) => !BROWSERS[b]);
  if (unknown.length) throw new Error(`BENCH_BROWSER must be shell, full or both, not ${unknown.join(', ')}`);
  const shop = await startShop();
  const loadBefore = load();
  console.log(`executions: ${CASES} cases (navigate, fill, click, assert_text), results stored, ${ROUNDS} interleaved rounds, ${new Date().toISOString()}, load ${loadBefore}`);
  const figures: Figure[] = [];
  try {
    for (const b of WANTED_BROWSERS) {
      console.log(`  on the ${BROWSERS[b]!.label}:`);
      const { browser, rounds, cpuMethod } = await compare(shop, BROWSERS[b]!);
      const m = (f: (r: (typeof rounds)[number]) => number) => median(rounds.map(f));
      const wall = rounds.map((r) => r.assay.seconds / r.baseline.seconds);
      console.log(`  on the ${browser}, medians of ${rounds.length} rounds:`);
      console.log(`    playwright test (2 workers, ${BASELINE_TUNED ? "Assay's tuned Chromium flags" : 'its default Chromium flags + DESIGN flags'}): ${m((r) => r.baseline.seconds).toFixed(2)} s, ${m((r) => r.baseline.cpu).toFixed(1)} CPU s`);
      console.log(`    assay (API, async + polling, RUNNER_CONCURRENCY=${process.env.BENCH_RUNNER_CONCURRENCY ?? '2'}): ${m((r) => r.assay.seconds).toFixed(2)} s, ${m((r) => r.assay.cpu).toFixed(1)} CPU s`);
      console.log(
        `    ratio assay / playwright test: ${spread(wall)} wall (target <= 0.70x), ${(m((r) => r.assay.cpu) / m((r) => r.baseline.cpu)).toFixed(2)}x CPU (${cpuMethod}; the fixture server counts on both sides)`,
      );
      const floors = rounds.flatMap((r) => (r.assay.floor ? [{ floor: r.assay.floor, baseline: r.baseline }] : []));
      if (floors.length) {
        const f = (g: (r: (typeof floors)[number]) => number) => median(floors.map(g));
        console.log(
          `    floor (the same cases through @assay/steps and @assay/browser alone, no services): ${f((r) => r.floor.seconds).toFixed(2)} s, ${f((r) => r.floor.cpu).toFixed(1)} CPU s; ${spread(floors.map((r) => r.floor.seconds / r.baseline.seconds))} wall of playwright test's; Assay's services, database and API cost ${(m((r) => r.assay.cpu) - f((r) => r.floor.cpu)).toFixed(1)} CPU s above it`,
        );
      }
      figures.push({ bench: 'executions', name: `executions wall ratio (${b})`, value: median(wall), better: 'lower' });
    }
    console.log(`  load before ${loadBefore}, after ${load()}`);
    return figures;
  } finally {
    await shop.close();
  }
}
