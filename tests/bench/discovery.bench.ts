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
import { startCpuMeter } from './cpu.js';
import { cpuByKind, formatKinds, interleaved, load, median, ROUNDS, spread, type Figure, type ProcessKind } from './rounds.js';

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
  /** CPU seconds of the side over the timed crawl (its cgroup), and by process kind. */
  cpu: number;
  kinds: Map<ProcessKind, number>;
}

/**
 * Times `crawl` with the side's CPU: the bench process joins a cgroup of the
 * side's own before the side starts anything (`metered`), so its browser and
 * services count in it.
 */
async function timed<T extends object>(meter: ReturnType<typeof startCpuMeter>, crawl: () => Promise<T & { seconds: number }>): Promise<T & { seconds: number; cpu: number; kinds: Map<ProcessKind, number> }> {
  const before = meter.read();
  const kinds = cpuByKind();
  const out = await crawl();
  return { ...out, cpu: meter.read() - before, kinds: kinds.stop() };
}

async function metered<T>(name: string, run: (meter: ReturnType<typeof startCpuMeter>) => Promise<T>): Promise<T> {
  const meter = startCpuMeter(name);
  try {
    return await run(meter);
  } finally {
    meter.close();
  }
}

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname.replace(/(.)\/$/, '$1')}${u.search}`;
};

/** A full discovery session through the API (pages, flows, patterns, API calls stored), timed from start to `completed`. */
async function runAssay(startTarget: () => Promise<Target>): Promise<Crawl & { flows: number; endpoints: number }> {
  return metered('assay-discovery', (meter) => runAssayMetered(startTarget, meter));
}

async function runAssayMetered(startTarget: () => Promise<Target>, meter: ReturnType<typeof startCpuMeter>): Promise<Crawl & { flows: number; endpoints: number }> {
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
    return await timed(meter, () => crawl(PAGES));
  } finally {
    await target.close();
    await assay.stop();
    await removeAssayHome(assay.home);
  }
}

/** Crawlee's PlaywrightCrawler on the same Chromium, with its own default waiting: same-origin links, titles read, at most PAGES requests. */
async function runCrawlee(startTarget: () => Promise<Target>): Promise<Crawl> {
  return metered('crawlee', (meter) => runCrawleeMetered(startTarget, meter));
}

async function runCrawleeMetered(startTarget: () => Promise<Target>, meter: ReturnType<typeof startCpuMeter>): Promise<Crawl> {
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
    return await timed(meter, () => crawl(PAGES));
  } finally {
    await target.close();
    await rm(storage, { recursive: true, force: true });
  }
}

const rate = (r: { seconds: number; pages: number }) => r.pages / r.seconds;

/** Both sides, ROUNDS interleaved rounds, each round's figures printed as it ends. */
async function rounds(startTarget: () => Promise<Target>) {
  return interleaved(
    () => runCrawlee(startTarget),
    () => runAssay(startTarget),
    (i, c, a, first) =>
      console.log(
        `  round ${i + 1} (${first === 'baseline' ? 'crawlee' : 'assay'} first, load ${load()}): crawlee ${c.pages} pages ${rate(c).toFixed(1)}/s, ${c.cpu.toFixed(1)} CPU s [${formatKinds(c.kinds)}]; assay ${a.pages} pages ${rate(a).toFixed(1)}/s, ${a.cpu.toFixed(1)} CPU s [${formatKinds(a.kinds)}]; ratio ${(rate(a) / rate(c)).toFixed(2)}x`,
      ),
  );
}

/** `discovery`: the server-rendered fixture site, well over PAGES pages within reach. */
export async function benchDiscovery(): Promise<Figure[]> {
  const site = () => startSite({ articles: ARTICLES });
  const loadBefore = load();
  console.log(`discovery: crawl the fixture site, ${PAGES} pages, delay 0, ${PARALLEL} pages at once, same Chromium (${CHROMIUM}), ${ROUNDS} interleaved rounds, load ${loadBefore}`);
  const all = await rounds(site);
  const m = (f: (r: (typeof all)[number]) => number) => median(all.map(f));
  const ratios = all.map((r) => rate(r.assay) / rate(r.baseline));
  const last = all[all.length - 1]!.assay;
  console.log(`  medians of ${all.length} rounds:`);
  console.log(`  crawlee PlaywrightCrawler 3.15.3: ${m((r) => r.baseline.pages)} pages, ${m((r) => rate(r.baseline)).toFixed(1)} pages/s, ${m((r) => r.baseline.cpu).toFixed(1)} CPU s`);
  console.log(`  assay (API, flows ${last.flows}, API endpoints ${last.endpoints}, all stored): ${m((r) => r.assay.pages)} pages, ${m((r) => rate(r.assay)).toFixed(1)} pages/s, ${m((r) => r.assay.cpu).toFixed(1)} CPU s`);
  console.log(`  ratio assay / crawlee pages per second: ${spread(ratios)} (target >= 2.50x); load before ${loadBefore}, after ${load()}`);
  return [{ bench: 'discovery', name: 'discovery pages/s ratio', value: median(ratios), better: 'higher' }];
}

/**
 * `discovery-spa`: the fixture single-page app (tests/fixtures/spa), whose pages
 * are an empty shell until scripts render them: a product list filled by XHR
 * (PAGES - 3 products), a lazily loaded route, a route behind a role=link.
 * Pages found by each side, the ones only one side found, and pages per second.
 */
export async function benchDiscoverySpa(): Promise<Figure[]> {
  const spa = () => startSpa({ products: Math.max(3, PAGES - 3) });
  const loadBefore = load();
  console.log(`discovery-spa: crawl the fixture single-page app (React Router, ${PAGES} pages), delay 0, ${PARALLEL} pages at once, same Chromium (${CHROMIUM}), ${ROUNDS} interleaved rounds, load ${loadBefore}`);
  const all = await rounds(spa);
  const { baseline: crawlee, assay } = all[all.length - 1]!;
  const ratios = all.map((r) => rate(r.assay) / rate(r.baseline));
  const only = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x));
  const list = (xs: string[]) => (xs.length ? `${xs.slice(0, 5).join(', ')}${xs.length > 5 ? `, ... (${xs.length})` : ''}` : 'none');
  console.log(`  crawlee PlaywrightCrawler 3.15.3 (its default waiting): ${crawlee.pages} pages; assay (API, flows ${assay.flows}, API endpoints ${assay.endpoints}, all stored): ${assay.pages} pages (last round)`);
  console.log(`  pages only crawlee found: ${list(only(crawlee.found, assay.found))}; only assay found: ${list(only(assay.found, crawlee.found))}`);
  console.log(`  ratio assay / crawlee pages found: ${(assay.pages / Math.max(1, crawlee.pages)).toFixed(2)}x; pages per second: ${spread(ratios)} (target: every page crawlee finds and more, >= 2.00x pages/s); load before ${loadBefore}, after ${load()}`);
  return [{ bench: 'discovery-spa', name: 'discovery-spa pages/s ratio', value: median(ratios), better: 'higher' }];
}
