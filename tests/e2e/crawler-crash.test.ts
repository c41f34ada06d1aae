import type { ChildProcess } from 'node:child_process';
import { eventually } from '@assay/testing';
import { startSite, type Site } from '../fixtures/site/server.js';
import { bearer, call } from './support/http.js';
import { killHard, launchForFile, startServiceProcess } from './support/launcher.js';

// A crawler is a separate process (a pod in a cluster). The launcher's
// discovery-crawler serves only the API (CRAWLER_ENABLED=false) and the test
// starts crawler processes itself, so it can kill -9 one mid-crawl.
jest.setTimeout(180_000);

const launched = launchForFile({ env: { CRAWLER_ENABLED: 'false' } });
let site: Site;
const crawlers: ChildProcess[] = [];

const gw = (method: string, p: string, body?: unknown) =>
  call(launched.assay.gatewayUrl, method, p, { headers: bearer(launched.assay.serviceKey), ...(body !== undefined ? { body } : {}) });

async function startCrawler() {
  const crawler = await startServiceProcess(launched, 'discovery-crawler', { CRAWLER_ENABLED: 'true', CRAWLER_LEASE_SECONDS: '3' });
  crawlers.push(crawler.proc);
  return crawler;
}

beforeAll(async () => {
  site = await startSite();
});

afterAll(async () => {
  for (const c of crawlers) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await site?.close();
});

describe('a crawler process killed mid-crawl', () => {
  it('leaves its session running only until the lease lapses; another crawler finishes it with every page stored once', async () => {
    const project = await gw('POST', '/api/v1/projects', { name: 'Market', base_url: site.url });
    const first = await startCrawler();
    const started = await gw('POST', '/api/v1/discovery/start', { project_id: project.body.id, target_url: site.url, max_pages: 30, max_depth: 3, request_delay_ms: 150 });
    expect(started.status).toBe(201);
    const id = started.body.session_id;
    const progress = () => gw('GET', `/api/v1/discovery/${id}/progress`);

    await eventually(async () => (await progress()).body.progress.pages_crawled >= 5, 60_000, 100);
    await killHard(first.proc);
    const atKill = (await progress()).body;
    expect(atKill.status).toBe('running');

    const second = await startCrawler();
    const done = await eventually(async () => {
      const p = (await progress()).body;
      return p.status === 'completed' ? p : undefined;
    }, 120_000, 250);
    expect(done.progress.pages_crawled).toBe(30);
    const results = await gw('GET', `/api/v1/discovery/${id}/results`);
    const urls: string[] = results.body.pages.map((p: { url: string }) => p.url);
    expect(urls).toHaveLength(30);
    expect(new Set(urls).size).toBe(30);
    // What the first crawler stored before it died is kept, not crawled again.
    expect(results.body.summary.total_pages).toBe(30);
    expect(second.output()).not.toMatch(/"level":(50|60)/);
  });
});
