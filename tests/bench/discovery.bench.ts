/* eslint-disable no-console -- a benchmark prints its figures */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { Configuration, PlaywrightCrawler } from '@crawlee/playwright';
import { chromium } from '@playwright/test';
import { startSite } from '../fixtures/site/server.js';
import { startSpa } from '../fixtures/spa/server.js';
import { removeAssayHome, startAssay } from '../e2e/support/launcher.js';

const PAGES = Number(process.env.BENCH_PAGES ?? 200);
/** Pages loaded at once on both sides (Assay's CRAWLER_PAGES_IN_PARALLEL, Crawlee's maxConcurrency). */
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 4);
const CHROMIUM = process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH;
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage'];
// Enough articles that the site has well over PAGES pages within reach.
const ARTICLES = PAGES + 40;

async function json(url: string, key: string, method = 'GET', body?: unknown): Promise<any> {
  const res = await fetch(url, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const parsed = await res.json();
  if (res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

/** What a bench crawls: a started app, its URL, and how to stop it. */
interface Target {
  url: string;
  close(): Promise<void>;
}

interface Crawl {
  seconds: number;
  pages: number;
  /** The paths of the pages crawled. */
  found: Set<string>;
}

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname.replace(/(.)\/$/, '$1')}${u.search}`;
};

/** A full discovery session through the API (pages, flows, patterns, API calls stored), timed from start to `completed`. */
async function runAssay(startTarget: () => Promise<Target>): Promise<Crawl & { flows: number; endpoints: number }> {
  const assay = await startAssay({ env: { LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false', CRAWLER_PAGES_IN_PARALLEL: String(PARALLEL) } });
  const target = await startTarget();
  try {
    const api = (p: string, method = 'GET', body?: unknown) => json(`${assay.gatewayUrl}${p}`, assay.serviceKey, method, body);
    const project = await api('/api/v1/projects', 'POST', { name: 'Bench', base_url: target.url });
    const crawl = async (maxPages: number) => {
      const started = performance.now();
      const session = await api('/api/v1/discovery/start', 'POST', { project_id: project.id, target_url: target.url, max_pages: maxPages, max_depth: 20, request_delay_ms: 0 });
      let progress: any;
      do {
        await new Promise((r) => setTimeout(r, 50));
        progress = await api(`/api/v1/discovery/${session.session_id}/progress`);
      } while (progress.status === 'running');
      const seconds = (performance.now() - started) / 1000;
      if (progress.status !== 'completed') throw new Error(`Assay session ended ${progress.status}`);
      const results = await api(`/api/v1/discovery/${session.session_id}/results`);
      return { seconds, pages: progress.progress.pages_crawled, flows: progress.progress.flows_detected, endpoints: progress.progress.api_endpoints, found: new Set<string>(results.pages.map((p: any) => pathOf(p.url))) };
    };
    await crawl(10); // warm-up: Chromium on disk cache, services warm, as for Crawlee
    return await crawl(PAGES);
  } finally {
    await target.close();
    await assay.stop();
    await removeAssayHome(assay.home);
  }
}

/** Crawlee's PlaywrightCrawler on the same Chromium, with its own default waiting: same-origin links, titles read, at most PAGES requests. */
async function runCrawlee(startTarget: () => Promise<Target>): Promise<Crawl> {
  const target = await startTarget();
  const storage = await mkdtemp(path.join(tmpdir(), 'assay-bench-crawlee-'));
  try {
    const crawl = async (maxPages: number) => {
      const found = new Set<string>();
      const crawler = new PlaywrightCrawler(
        {
          maxRequestsPerCrawl: maxPages,
          maxConcurrency: PARALLEL,
          launchContext: { launcher: chromium, launchOptions: { executablePath: CHROMIUM, args: ARGS, headless: true } },
          // Fingerprints off: they are unrelated work that would only slow Crawlee down.
          browserPoolOptions: { useFingerprints: false },
          async requestHandler({ page, request, enqueueLinks }) {
            await page.title();
            found.add(pathOf(request.loadedUrl ?? request.url));
            await enqueueLinks({ strategy: 'same-origin' });
          },
        },
        new Configuration({ persistStorage: false, storageClientOptions: { localDataDirectory: storage }, logLevel: 1 }),
      );
      const started = performance.now();
      await crawler.run([`${target.url}/`]);
      return { seconds: (performance.now() - started) / 1000, pages: found.size, found };
    };
    await crawl(10);
    return await crawl(PAGES);
  } finally {
    await target.close();
    await rm(storage, { recursive: true, force: true });
  }
}

const rate = (r: { seconds: number; pages: number }) => r.pages / r.seconds;

/** `discovery`: the server-rendered fixture site, well over PAGES pages within reach. */
export async function benchDiscovery(): Promise<void> {
  const site = () => startSite({ articles: ARTICLES });
  const crawlee = await runCrawlee(site);
  const assay = await runAssay(site);
  console.log(`discovery: crawl the fixture site, ${PAGES} pages, delay 0, ${PARALLEL} pages at once, same Chromium (${CHROMIUM})`);
  console.log(`  crawlee PlaywrightCrawler 3.15.3: ${crawlee.pages} pages in ${crawlee.seconds.toFixed(2)} s = ${rate(crawlee).toFixed(1)} pages/s`);
  console.log(`  assay (API, flows ${assay.flows}, API endpoints ${assay.endpoints}, all stored): ${assay.pages} pages in ${assay.seconds.toFixed(2)} s = ${rate(assay).toFixed(1)} pages/s`);
  console.log(`  ratio assay / crawlee pages per second: ${(rate(assay) / rate(crawlee)).toFixed(2)}x (target >= 2.00x)`);
}

/**
 * `discovery-spa`: the fixture single-page app (tests/fixtures/spa), whose pages
 * are an empty shell until scripts render them: a product list filled by XHR
 * (PAGES - 3 products), a lazily loaded route, a route behind a role=link.
 * Pages found by each side, the ones only one side found, and pages per second.
 */
export async function benchDiscoverySpa(): Promise<void> {
  const spa = () => startSpa({ products: Math.max(3, PAGES - 3) });
  const crawlee = await runCrawlee(spa);
  const assay = await runAssay(spa);
  const only = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x));
  const list = (xs: string[]) => (xs.length ? `${xs.slice(0, 5).join(', ')}${xs.length > 5 ? `, ... (${xs.length})` : ''}` : 'none');
  console.log(`discovery-spa: crawl the fixture single-page app (React Router, ${PAGES} pages), delay 0, ${PARALLEL} pages at once, same Chromium (${CHROMIUM})`);
  console.log(`  crawlee PlaywrightCrawler 3.15.3 (its default waiting): ${crawlee.pages} pages in ${crawlee.seconds.toFixed(2)} s = ${rate(crawlee).toFixed(1)} pages/s`);
  console.log(`  assay (API, flows ${assay.flows}, API endpoints ${assay.endpoints}, all stored): ${assay.pages} pages in ${assay.seconds.toFixed(2)} s = ${rate(assay).toFixed(1)} pages/s`);
  console.log(`  pages only crawlee found: ${list(only(crawlee.found, assay.found))}; only assay found: ${list(only(assay.found, crawlee.found))}`);
  console.log(`  ratio assay / crawlee pages found: ${(assay.pages / Math.max(1, crawlee.pages)).toFixed(2)}x; pages per second: ${(rate(assay) / rate(crawlee)).toFixed(2)}x (target: every page crawlee finds and more, >= 2.00x pages/s)`);
}
