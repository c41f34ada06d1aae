import { randomBytes, randomUUID } from 'node:crypto';
import { BrowserPool, DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { DEFAULT_EGRESS, EgressPolicy } from '@assay/egress';
import { createDatabase, migrateToLatest, PgNotifier, type Database } from '@assay/db';
import { PRINCIPAL_HEADER, signPrincipal, type Principal } from '@assay/principal';
import { call, createTestDatabase, eventually, listen, type Reply, TEST_INTERNAL_SECRET, type TestDatabase, testLogger } from '@assay/testing';
import { startTestCaseServer } from '../../test-case/test/server.js';
import { startSite, type Site, type SiteOptions } from '../../../tests/fixtures/site/server.js';
import { buildApp } from '../src/app.js';
import { TestCaseClient } from '../src/clients/test-case.client.js';
import { Crawler } from '../src/crawler/crawler.js';
import type { DiscoveryDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { DISCOVERY_CHANNEL, SESSIONS_READY } from '../src/sessions/sessions.repository.js';

// The discovery-crawler with its real neighbours: the test-case service (its
// app on a real port), Postgres, Chromium, and the fixture site as the target.
const logger = testLogger();

export interface DiscoveryHarness {
  site: Site;
  database: Database<DiscoveryDatabase>;
  tcDb: Database<any>;
  url: string;
  /** The same service refusing loopback targets, as a default deployment does. */
  strictUrl: string;
  tenant(): Promise<Tenant>;
  crawler: Crawler;
  startCrawler(opts?: { leaseSeconds?: number; pollMs?: number; navigationTimeoutMs?: number; pagesInParallel?: number }): Crawler;
  /** Stops every crawler started so far (as if their processes went away cleanly). */
  stopCrawlers(): Promise<void>;
  events(type?: string): Promise<any[]>;
  close(): Promise<void>;
}

export interface Tenant {
  orgId: string;
  projectId: string;
  dc(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  tc(method: string, path: string, body?: unknown): Promise<Reply>;
  headers(): Promise<Record<string, string>>;
  start(body: Record<string, unknown>): Promise<string>;
  waitFor(sessionId: string, status: string, timeoutMs?: number): Promise<any>;
}

export async function startDiscoveryHarness(siteOptions: SiteOptions = {}): Promise<DiscoveryHarness> {
  const testDb: TestDatabase = await createTestDatabase();
  const site = await startSite(siteOptions);
  const tcServer = await startTestCaseServer(testDb.url, logger);
  const database = createDatabase<DiscoveryDatabase>({ connectionString: testDb.url, schema: 'discovery' });
  await migrateToLatest(database, migrations);
  const notifier = new PgNotifier(database.pool, DISCOVERY_CHANNEL);
  await notifier.start();

  const crawlers: Crawler[] = [];
  const startCrawler: DiscoveryHarness['startCrawler'] = (o = {}) => {
    const crawler = new Crawler({
      db: database.db,
      schema: 'discovery',
      logger,
      browsers: new BrowserPool(process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH, logger, new EgressPolicy({ ...DEFAULT_EGRESS, allowLoopback: true })),
      sessions: 2,
      pagesInParallel: o.pagesInParallel ?? 3,
      navigationTimeoutMs: o.navigationTimeoutMs ?? 20_000,
      leaseSeconds: o.leaseSeconds ?? 30,
      workerId: `test-${randomBytes(3).toString('hex')}`,
      pollMs: o.pollMs ?? 100,
      onSessionsReady: (wake) => notifier.on(SESSIONS_READY, wake),
      // Generous: a loaded test machine must not cut a page's exploration short (the default is 8 s).
      exploreBudgetMs: 30_000,
    });
    crawler.start();
    crawlers.push(crawler);
    return crawler;
  };
  const crawler = startCrawler();
  const app = (loopback: boolean) =>
    listen(
      buildApp({
        db: database.db,
        schema: 'discovery',
        logger,
        testCases: new TestCaseClient(tcServer.url, TEST_INTERNAL_SECRET),
        notifier,
        egress: new EgressPolicy({ ...DEFAULT_EGRESS, allowLoopback: loopback }),
        pagesInParallel: 3,
        keepAliveMs: 200,
        internalTokenSecret: TEST_INTERNAL_SECRET,
      }),
    );
  const server = await app(true);
  const strict = await app(false);

  return {
    site,
    database,
    tcDb: tcServer.db,
    url: server.url,
    strictUrl: strict.url,
    crawler,
    startCrawler,
    async stopCrawlers() {
      for (const c of crawlers) await c.stop();
    },
    async tenant() {
      const orgId = randomUUID();
      const principal: Principal = { org_id: orgId, sub: randomUUID(), kind: 'service_key', role: 'admin', scopes: [], plan: 'pro' };
      const headers = async () => ({ [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, principal) });
      const req = async (base: string, method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
        call(base, method, path, { headers: { ...(await headers()), ...extra }, ...(body !== undefined ? { body } : {}) });
      const project = await req(tcServer.url, 'POST', '/api/v1/projects', { name: 'Market', base_url: site.url });
      if (project.status !== 201) throw new Error(JSON.stringify(project.body));
      const dc: Tenant['dc'] = (m, p, b, h) => req(server.url, m, p, b, h);
      return {
        orgId,
        projectId: project.body.id,
        dc,
        tc: (m, p, b) => req(tcServer.url, m, p, b),
        headers,
        async start(body) {
          const res = await dc('POST', '/api/v1/discovery/start', { project_id: project.body.id, target_url: site.url, request_delay_ms: 0, ...body });
          if (res.status !== 201) throw new Error(JSON.stringify(res.body));
          return res.body.session_id as string;
        },
        async waitFor(sessionId, status, timeoutMs = 60_000) {
          return eventually(async () => {
            const res = await dc('GET', `/api/v1/discovery/${sessionId}/progress`);
            return res.body.status === status ? res.body : undefined;
          }, timeoutMs, 100);
        },
      };
    },
    async events(type) {
      const rows = await database.db.selectFrom('outbox').select('envelope').orderBy('seq').execute();
      const all = rows.map((r) => r.envelope as any);
      return type ? all.filter((e) => e.event === type) : all;
    },
    async close() {
      for (const c of crawlers) await c.stop().catch(() => undefined);
      await server.close();
      await strict.close();
      await notifier.stop();
      await tcServer.close();
      await site.close();
      await database.close();
      await testDb.drop();
    },
  };
}

/** Reads a Server-Sent Events stream until `until` says stop (or it ends); each event with its id. */
export async function readStream(
  url: string,
  headers: Record<string, string>,
  until: (events: Array<{ id: string; event: string; data: any }>) => boolean = () => false,
): Promise<{ events: Array<{ id: string; event: string; data: any }>; comments: string[] }> {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  if (res.status !== 200) throw new Error(`stream answered ${res.status}`);
  const events: Array<{ id: string; event: string; data: any }> = [];
  const comments: string[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const e: Record<string, string> = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) comments.push(line);
          const m = /^(\w+): ?(.*)$/.exec(line);
          if (m) e[m[1]!] = m[2]!;
        }
        if (e.event) events.push({ id: e.id ?? '', event: e.event, data: e.data ? JSON.parse(e.data) : null });
        if (until(events)) {
          controller.abort();
          return { events, comments };
        }
      }
    }
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  }
  return { events, comments };
}
