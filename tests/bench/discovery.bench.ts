/* eslint-disable no-console -- a benchmark prints its figures */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { Configuration, PlaywrightCrawler } from '@crawlee/playwright';
import { chromium } from '@playwright/test';
import { startSite } from '../fixtures/site/server.js';
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

/** A full discovery session through the API (pages, flows, patterns, API calls stored), timed from start to `completed`. */
async function runAssay(): Promise<{ seconds: number; pages: number; flows: number; endpoints: number }> {
  const assay = await startAssay({ env: { LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false', CRAWLER_PAGES_IN_PARALLEL: String(PARALLEL) } });
  const site = await startSite({ articles: ARTICLES });
  try {
    const api = (p: string, method = 'GET', body?: unknown) => json(`${assay.gatewayUrl}${p}`, assay.serviceKey, method, body);
    const project = await api('/api/v1/projects', 'POST', { name: 'Bench', base_url: site.url });
    const crawl = async (maxPages: number) => {
      const started = performance.now();
      const session = await api('/api/v1/discovery/start', 'POST', { project_id: project.id, target_url: site.url, max_pages: maxPages, max_depth: 20, request_delay_ms: 0 });
      let progress: any;
      do {
        await new Promise((r) => setTimeout(r, 50));
        progress = await api(`/api/v1/discovery/${session.session_id}/progress`);
      } while (progress.status === 'running');
      const seconds = (performance.now() - started) / 1000;
      if (progress.status !== 'completed') throw new Error(`Assay session ended ${progress.status}`);
      return { seconds, pages: progress.progress.pages_crawled, flows: progress.progress.flows_detected, endpoints: progress.progress.api_endpoints };
    };
    await crawl(10); // warm-up: Chromium on disk cache, services warm, as for Crawlee
    return await crawl(PAGES);
  } finally {
    await site.close();
    await assay.stop();
    await removeAssayHome(assay.home);
  }
}

/** Crawlee's PlaywrightCrawler on the same Chromium: same-origin links, titles read, at most PAGES requests. */
async function runCrawlee(): Promise<{ seconds: number; pages: number }> {
  const site = await startSite({ articles: ARTICLES });
  const storage = await mkdtemp(path.join(tmpdir(), 'assay-bench-crawlee-'));
  try {
    const crawl = async (maxPages: number) => {
      let pages = 0;
      const crawler = new PlaywrightCrawler(
        {
          maxRequestsPerCrawl: maxPages,
          maxConcurrency: PARALLEL,
          launchContext: { launcher: chromium, launchOptions: { executablePath: CHROMIUM, args: ARGS, headless: true } },
          // Fingerprints off: they are unrelated work that would only slow Crawlee down.
          browserPoolOptions: { useFingerprints: false },
          async requestHandler({ page, enqueueLinks }) {
            await page.title();
            pages++;
            await enqueueLinks({ strategy: 'same-origin' });
          },
        },
        new Configuration({ persistStorage: false, storageClientOptions: { localDataDirectory: storage }, logLevel: 1 }),
      );
      const started = performance.now();
      await crawler.run([`${site.url}/`]);
      return { seconds: (performance.now() - started) / 1000, pages };
    };
    await crawl(10);
    return await crawl(PAGES);
  } finally {
    await site.close();
    await rm(storage, { recursive: true, force: true });
  }
}

export async function benchDiscovery(): Promise<void> {
  const crawlee = await runCrawlee();
  const assay = await runAssay();
  const rate = (r: { seconds: number; pages: number }) => r.pages / r.seconds;
  console.log(`discovery: crawl the fixture site, ${PAGES} pages, delay 0, ${PARALLEL} pages at once, same Chromium (${CHROMIUM})`);
  console.log(`  crawlee PlaywrightCrawler 3.15.3: ${crawlee.pages} pages in ${crawlee.seconds.toFixed(2)} s = ${rate(crawlee).toFixed(1)} pages/s`);
  console.log(`  assay (API, flows ${assay.flows}, API endpoints ${assay.endpoints}, all stored): ${assay.pages} pages in ${assay.seconds.toFixed(2)} s = ${rate(assay).toFixed(1)} pages/s`);
  console.log(`  ratio assay / crawlee pages per second: ${(rate(assay) / rate(crawlee)).toFixed(2)}x (target >= 2.00x)`);
}
