// One app of the panel through the real product, as a user would: a project
// whose base URL is the app, a discovery session through the gateway, its
// flows turned into test cases, and those cases run by the execution runner
// in Chromium against the unchanged app. Then the results are scored against
// the app's feature list (features.ts).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { bearer, call } from '@assay/testing';
import { startDokuwiki } from './apps/dokuwiki/app.js';
import { startMkdocs } from './apps/mkdocs/app.js';
import { startRedoc } from './apps/redoc/app.js';
import { startSphinx } from './apps/sphinx/app.js';
import { startSwaggerUi } from './apps/swagger-ui/app.js';
import { startTodomvc } from './apps/todomvc/app.js';
import { startVerdaccio } from './apps/verdaccio/app.js';
import { startVitepress } from './apps/vitepress/app.js';
import { scoreCrawl, type CrawlResults, type FeatureList, type Score } from './features.js';
import type { RunningApp } from './support.js';

/** Each app's starter, by the name its folder and feature list carry. */
export const PANEL_APPS: Record<string, () => Promise<RunningApp>> = {
  dokuwiki: startDokuwiki,
  mkdocs: startMkdocs,
  redoc: startRedoc,
  sphinx: startSphinx,
  'swagger-ui': startSwaggerUi,
  todomvc: startTodomvc,
  verdaccio: startVerdaccio,
  vitepress: startVitepress,
};

/** Where the product answers and the key it takes (a launched stack's gateway). */
export interface Product {
  gatewayUrl: string;
  serviceKey: string;
}

export interface AppRun {
  app: string;
  url: string;
  results: CrawlResults & { summary?: { discovery_confidence: number } };
  crawlSeconds: number;
  cases: { passed: number; total: number; failures: string[] };
  /** Why the crawl or the run could not be done (the app then scores what it got). */
  error?: string;
  score: Score;
}

function api(product: Product, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return call(product.gatewayUrl, method, path, { headers: bearer(product.serviceKey), ...(body !== undefined ? { body } : {}) });
}

async function must(product: Product, method: string, path: string, body?: unknown): Promise<any> {
  const res = await api(product, method, path, body);
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  return res.body;
}

/** Crawls the running app with the list's settings; answers the results and how long the crawl took. */
export async function crawlApp(product: Product, list: FeatureList, url: string, timeoutMs = 600_000): Promise<{ project: string; session: string; results: AppRun['results']; seconds: number }> {
  const project = await must(product, 'POST', '/api/v1/projects', { name: `Panel ${list.app}`, base_url: url });
  const started = performance.now();
  const { crawl } = list;
  const session = await must(product, 'POST', '/api/v1/discovery/start', {
    project_id: project.id,
    target_url: url,
    max_pages: crawl.max_pages,
    max_depth: crawl.max_depth,
    request_delay_ms: 0,
    interactive: crawl.interactive ?? false,
    ...(crawl.allow_writes ? { allow_writes: true } : {}),
  });
  const deadline = Date.now() + timeoutMs;
  let progress: any;
  do {
    await new Promise((r) => setTimeout(r, 250));
    progress = await must(product, 'GET', `/api/v1/discovery/${session.session_id}/progress`);
    if (Date.now() > deadline) throw new Error(`the crawl of ${list.app} was still ${progress.status} after ${timeoutMs / 1000} s`);
  } while (progress.status === 'running');
  const seconds = (performance.now() - started) / 1000;
  if (progress.status !== 'completed') throw new Error(`the crawl of ${list.app} ended ${progress.status}: ${progress.error ?? ''}`);
  const results = await must(product, 'GET', `/api/v1/discovery/${session.session_id}/results`);
  return { project: project.id, session: session.session_id, results, seconds };
}

/** Generates the session's cases into a plan and runs it; answers passed, total and why each failure failed. */
export async function runGeneratedCases(product: Product, project: string, session: string): Promise<AppRun['cases']> {
  const plan = await must(product, 'POST', '/api/v1/test-plans', { project_id: project, name: 'Discovered' });
  const generated = await api(product, 'POST', `/api/v1/discovery/${session}/generate-test-cases`, { test_plan_id: plan.id });
  if (generated.status === 409) return { passed: 0, total: 0, failures: ['no flows: generate-test-cases answered 409'] };
  if (generated.status >= 400) throw new Error(`generate-test-cases: ${generated.status} ${JSON.stringify(generated.body)}`);
  const run = await must(product, 'POST', '/api/v1/executions', { project_id: project, test_plan_id: plan.id, timeout_seconds: 600 });
  const results: Array<{ name: string; status: string; error?: string }> = run.results?.test_results ?? [];
  return {
    passed: results.filter((r) => r.status === 'passed').length,
    total: generated.body.test_cases.length,
    failures: results.filter((r) => r.status !== 'passed').map((r) => `${r.name}: ${r.error ?? r.status}`),
  };
}

/** Starts the app, crawls it, runs its generated cases, stops it; scores what it got. */
export async function runApp(product: Product, list: FeatureList): Promise<AppRun> {
  const start = PANEL_APPS[list.app];
  if (!start) throw new Error(`No starter for the panel app "${list.app}"`);
  const app = await start();
  const empty: AppRun['results'] = { pages: [], flows: [] };
  let results = empty;
  let seconds = 0;
  let cases: AppRun['cases'] = { passed: 0, total: 0, failures: [] };
  let error: string | undefined;
  try {
    const crawled = await crawlApp(product, list, app.url);
    results = crawled.results;
    // PANEL_DUMP=<dir>: each app's results as JSON, to read what the crawl saw.
    if (process.env.PANEL_DUMP) writeFileSync(path.join(process.env.PANEL_DUMP, `${list.app}.json`), JSON.stringify(results, null, 2));
    seconds = crawled.seconds;
    cases = await runGeneratedCases(product, crawled.project, crawled.session);
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  } finally {
    await app.close();
  }
  return { app: list.app, url: app.url, results, crawlSeconds: seconds, cases, ...(error ? { error } : {}), score: scoreCrawl(list, app.url, results, cases) };
}
