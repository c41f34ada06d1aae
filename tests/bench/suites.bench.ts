/* eslint-disable no-console -- a benchmark prints its figures */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '@assay/embedded-pg';
import { createTestDatabase } from '@assay/testing';
import { startShop } from '../fixtures/shop/server.js';
import { removeAssayHome, startAssay, startServiceProcess, type ServiceProcess } from '../e2e/support/launcher.js';
import { load, type Figure } from './rounds.js';

/**
 * `make bench BENCH=suites`: a Playwright suite of BENCH_SUITE_TESTS (100)
 * tests, a tenth of them long (one spec file of 2 s tests, as a slow area of
 * an app would be), run through the API on one runner process and then on
 * two: with the queue (tests handed out longest first by their past
 * durations) and with Playwright's own `--shard` split. Prints each run's
 * wall time and the spread of its shards' end times. Not in `make test`.
 */
const TESTS = Number(process.env.BENCH_SUITE_TESTS ?? 100);
const FILES = 10;
const LONG_MS = Number(process.env.BENCH_SUITE_LONG_MS ?? 2000);
const SHORT_MS = Number(process.env.BENCH_SUITE_SHORT_MS ?? 100);

async function json(url: string, key: string, method = 'GET', body?: unknown): Promise<any> {
  const res = await fetch(url, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const parsed = await res.json();
  if (res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

/** The bench's suite as a .tar.gz: FILES spec files, the first one all long tests. */
async function benchSuite(): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'suite-bench-'));
  try {
    await mkdir(path.join(dir, 'tests'));
    await writeFile(path.join(dir, 'playwright.config.ts'), `import { defineConfig } from '@playwright/test';\nexport default defineConfig({ testDir: './tests', fullyParallel: true, retries: 0, use: { baseURL: 'http://localhost:3000' } });\n`);
    const perFile = Math.ceil(TESTS / FILES);
    for (let f = 0; f < FILES; f++) {
      const tests = Array.from({ length: Math.min(perFile, TESTS - f * perFile) }, (_, i) => {
        const ms = f === 0 ? LONG_MS : SHORT_MS;
        return `test('area ${f} test ${i}', async ({ page }) => {\n  await page.goto('/');\n  await expect(page.locator('#title')).toHaveText('Assay Shop');\n  await page.waitForTimeout(${ms});\n});\n`;
      });
      await writeFile(path.join(dir, 'tests', `area-${String(f).padStart(2, '0')}.spec.ts`), `import { test, expect } from '@playwright/test';\n\n${tests.join('\n')}`);
    }
    return execFileSync('tar', ['czf', '-', '-C', dir, '.'], { maxBuffer: 64 * 1024 * 1024 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface SuiteRun {
  label: string;
  seconds: number;
  /** Seconds between the first and the last shard's end. */
  endSpread: number;
  shardSeconds: number[];
}

async function runOnce(api: (p: string, m?: string, b?: unknown) => Promise<any>, db: pg.Client, body: Record<string, unknown>, label: string): Promise<SuiteRun> {
  const started = performance.now();
  const queued = await api('/api/v1/executions/async', 'POST', body);
  let status: any;
  do {
    await new Promise((r) => setTimeout(r, 250));
    status = await api(`/api/v1/executions/${queued.id}/status`);
  } while (!['completed', 'failed', 'cancelled'].includes(status.status));
  const seconds = (performance.now() - started) / 1000;
  if (status.status !== 'completed' || status.passed_tests !== TESTS) throw new Error(`${label}: ${JSON.stringify(status)}`);
  const shards = (await db.query<{ started_at: Date; completed_at: Date }>('select started_at, completed_at from execution.suite_shards where execution_id = $1 order by shard', [queued.id])).rows;
  const ends = shards.map((s) => s.completed_at.getTime());
  return { label, seconds, endSpread: (Math.max(...ends) - Math.min(...ends)) / 1000, shardSeconds: shards.map((s) => (s.completed_at.getTime() - s.started_at.getTime()) / 1000) };
}

export async function benchSuites(): Promise<Figure[]> {
  const pgHome = await mkdtemp(path.join(tmpdir(), 'suite-bench-pg-'));
  const embedded = await startEmbeddedPostgres({ dataDir: pgHome, ephemeral: true });
  process.env.TEST_DATABASE_URL = embedded.url;
  const database = await createTestDatabase();
  const shop = await startShop();
  const env = { LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false', SUITE_SHARDS_PER_RUNNER: '1', SUITE_WORKERS: '1' };
  const assay = await startAssay({ databaseUrl: database.url, env });
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  let second: ServiceProcess | undefined;
  console.log(`suites: ${TESTS} tests in ${FILES} files (one file of ${LONG_MS} ms tests, the rest ${SHORT_MS} ms), load ${load()} before`);
  try {
    const api = (p: string, method = 'GET', body?: unknown) => json(`${assay.gatewayUrl}${p}`, assay.serviceKey, method, body);
    const project = await api('/api/v1/projects', 'POST', { name: 'Bench', base_url: shop.url });
    const form = new FormData();
    form.append('project_id', project.id);
    form.append('name', 'bench');
    form.append('archive', new Blob([new Uint8Array(await benchSuite())]), 'bench.tar.gz');
    const suite: any = await (await fetch(`${assay.gatewayUrl}/api/v1/suites`, { method: 'POST', headers: { authorization: `Bearer ${assay.serviceKey}` }, body: form })).json();
    if (suite.version?.total_tests !== TESTS) throw new Error(`upload: ${JSON.stringify(suite).slice(0, 500)}`);
    const body = (shards: number, split: 'queue' | 'shard') => ({ suite_id: suite.id, project_id: project.id, shards, split, trace: 'off', timeout_seconds: 1800 });
    // The first run is the history the queue orders by (and warms the disk cache).
    const warm = await runOnce(api, db, body(1, 'queue'), 'warm-up (1 runner)');
    console.log(`  ${warm.label}: ${warm.seconds.toFixed(1)} s`);
    const runs: SuiteRun[] = [await runOnce(api, db, body(1, 'queue'), '1 runner, 1 shard')];
    second = await startServiceProcess({ assay, database }, 'execution-runner', { ...env, SCHEDULER_ENABLED: 'false' });
    runs.push(await runOnce(api, db, body(2, 'queue'), '2 runners, queue by past durations'));
    runs.push(await runOnce(api, db, body(2, 'shard'), '2 runners, naive --shard'));
    for (const r of runs) console.log(`  ${r.label}: wall ${r.seconds.toFixed(1)} s, shards ran ${r.shardSeconds.map((s) => `${s.toFixed(1)} s`).join(' and ')}, end spread ${r.endSpread.toFixed(1)} s`);
    console.log(`  load ${load()} after`);
    return [];
  } finally {
    second?.proc.kill('SIGTERM');
    await db.end();
    await assay.stop();
    await removeAssayHome(assay.home);
    await shop.close();
    await database.drop();
    await embedded.stop();
    await rm(pgHome, { recursive: true, force: true });
  }
}
