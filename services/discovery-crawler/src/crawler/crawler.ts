import type { BrowserContext } from 'playwright-core';
import type { Kysely } from 'kysely';
import { Agent } from 'undici';
import type { BrowserPool } from '@assay/browser';
import { egressConnector } from '@assay/egress';
import { enqueueEvents, type NewEvent } from '@assay/bus';
import { withTransaction } from '@assay/db';
import type { Logger } from '@assay/logger';
import { ACCESSIBILITY_STANDARDS } from '@assay/contracts';
import { firstLine, scanAccessibility } from '@assay/steps';
import type { CrawlConfig, DiscoveryDatabase, PageAnalysis, PageWarning, SessionRow } from '../db/database.js';
import {
  addPages,
  appendStreamEvent,
  countSession,
  crawledPages,
  currentStatus,
  failAbandoned,
  upsertFlow,
  listFlows,
  lockIfHeld,
  pendingPages,
  recordEndpoint,
  renewLease,
  savePage,
  setCurrentPage,
  holdAndCountPage,
  takeUnmeteredPages,
  updateSession,
  claimSession,
  releaseSession,
  setWarnings,
  type FrontierPage,
} from '../sessions/sessions.repository.js';
import type { ClientRoute } from './client-routes.js';
import { DEFAULT_EXPLORE_LIMITS, type ExploreFindings } from './explore.js';
import { detectFlows, type AnalyzedPage, type DetectedFlow } from './flows/index.js';
import { DEFAULT_SETTLE_MS, PageLoader, type LoadedPage, type Pace } from './page-loader.js';
import { detectPatterns } from './patterns.js';
import { fetchRobotsTxt, parseRobots } from './robots.js';
import { makeScope, normaliseUrl, sameOrigin, templateEndpoint } from './urls.js';
import { SessionWarnings } from './warnings.js';

export interface CrawlerOptions {
  db: Kysely<DiscoveryDatabase>;
  schema: string;
  logger: Logger;
  browsers: BrowserPool;
  /** Sessions crawled at once by this process. */
  sessions: number;
  /** Tabs one session loads pages in at once. */
  pagesInParallel: number;
  navigationTimeoutMs: number;
  leaseSeconds: number;
  workerId: string;
  /** How long interactive exploration may act on one page (ms; default DEFAULT_EXPLORE_LIMITS.budgetMs). */
  exploreBudgetMs?: number;
  /**
   * How often the crawler looks for sessions to take (ms; default 2000: a started or resumed session
   * wakes it at once through `onSessionsReady`, so the poll only finds sessions whose crawler died)
   * and, at most every 300 ms, checks its running ones for pause and cancel.
   */
  pollMs?: number;
  /** Tells the crawler a session became ready (started or resumed), so it takes it before the next poll; answers how to stop listening. */
  onSessionsReady?: (wake: () => void) => () => void;
  /** The longest a page is waited on to get still after load (ms; default DEFAULT_SETTLE_MS). */
  settleMs?: number;
}

/** Link-like elements without an href clicked per page to find client-side routes, and the time they may take. */
const ROUTE_PROBE = { max: 8, budgetMs: 4000 };

/** What one crawl of a session keeps in memory besides the frontier. */
interface CrawlState {
  accept: (url: string) => boolean;
  robotsAllowed: (url: string) => boolean;
  config: CrawlConfig;
  analysed: AnalyzedPage[];
  knownFlows: Map<string, string>;
  warnings: SessionWarnings;
  /** Links robots.txt refused so far (each counts once in the warning). */
  refusedLinks: Set<string>;
  /** When the pages crawled were last reported to auth (`discovery.pages.crawled`). */
  meteredAt: number;
  /** When flows and patterns were last judged over every page seen. */
  judgedAt: number;
}

/** One crawl of a session by this process: the frontier and its counters, shared by the session's tabs. */
interface SessionRun {
  state: CrawlState;
  loadOpts: { timeoutMs: number; waitForApi: boolean; pace: Pace; settleMs: number };
  frontier: FrontierPage[];
  crawled: number;
  inFlight: number;
  currentNotedAt: number;
  /** Link-like elements clicked to find client-side routes, across the session's pages: a menu on every page is clicked once. */
  triedRoutes: Set<string>;
  /** Search boxes typed into and chrome buttons clicked while exploring, across the session's pages. */
  triedExplore: Set<string>;
}

type Stop = 'paused' | 'cancelled' | 'lost' | 'shutdown';

interface Control {
  stopped: Stop | null;
  context?: BrowserContext;
  wake: Set<() => void>;
}

const MAX_LINKS_PER_PAGE = 500;
/** Pages crawled are reported to auth in one event every METER_PAGES pages or METER_MS, and when the crawl stops. */
const METER_PAGES = 50;
const METER_MS = 2000;
/** `current_page` is written at most this often (ms). */
const CURRENT_PAGE_MS = 250;
/**
 * Flows and patterns are judged over every page seen: after each of the first
 * JUDGE_EVERY_PAGE pages, then at most every JUDGE_MS (each judgement reads all
 * pages, so judging at every page would cost a crawl the square of its pages),
 * and once more when the crawl completes.
 */
const JUDGE_EVERY_PAGE = 20;
const JUDGE_MS = 1000;

/**
 * The crawl worker: takes running sessions nobody holds (new, resumed, or left
 * by a crawler that died: its lease expired) and crawls them from their
 * frontier in Postgres, so a pause, a resume or a restart loses nothing.
 * Sessions whose crawler died MAX_ATTEMPTS times are failed; a crawler that
 * stops cleanly hands its sessions back at once.
 */
export class Crawler {
  private timer: NodeJS.Timeout | undefined;
  private readonly active = new Map<string, Control>();
  private ticking = false;
  private tickAgain = false;
  private unlisten: (() => void) | undefined;
  private stopping = false;

  /** robots.txt comes through the same egress policy as the browser's connections. */
  private readonly robotsAgent: Agent;

  constructor(private readonly o: CrawlerOptions) {
    this.robotsAgent = new Agent({ connect: egressConnector(o.browsers.egress, { timeout: 5000 }) });
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.o.pollMs ?? 2000);
    this.timer.unref();
    this.unlisten = this.o.onSessionsReady?.(() => void this.tick());
    void this.tick();
  }

  /** Takes sessions while there is room; fails the abandoned ones. */
  async tick(): Promise<void> {
    if (this.stopping) return;
    // Asked again while taking sessions (a session became ready meanwhile): look once more when done.
    if (this.ticking) return void (this.tickAgain = true);
    this.ticking = true;
    this.tickAgain = false;
    try {
      for (const failed of await failAbandoned(this.o.db)) await this.ended(failed, 'failed');
      while (this.active.size < this.o.sessions && !this.stopping) {
        const session = await claimSession(this.o.db, this.o.workerId, this.o.leaseSeconds);
        if (!session) break;
        // Our own lease lapsed while we still crawl it (a stalled event loop, the database away): the claim just renewed it.
        if (this.active.has(session.id)) continue;
        const ctl: Control = { stopped: null, wake: new Set() };
        this.active.set(session.id, ctl);
        void this.run(session, ctl)
          .catch((err) => this.o.logger.error({ err, session: session.id }, 'crawl crashed'))
          .finally(() => this.active.delete(session.id));
      }
    } catch (err) {
      this.o.logger.warn({ err }, 'crawler tick failed');
    } finally {
      this.ticking = false;
    }
    if (this.tickAgain) void this.tick();
  }

  /** Stream and events of a session that ended without its crawler (failed by the reaper). */
  private async ended(row: SessionRow, status: 'failed'): Promise<void> {
    await withTransaction(this.o.db, async (trx) => {
      await appendStreamEvent(trx, row.id, 'completion', { session_id: row.id, status, error: row.error });
      await enqueueEvents(trx, this.o.schema, await this.meter(trx, row));
    });
  }

  /** The `discovery.pages.crawled` event for the session's pages not reported yet (none when there are none), taken under its row lock. */
  private async meter(trx: Kysely<DiscoveryDatabase>, session: SessionRow): Promise<NewEvent[]> {
    const pages = await takeUnmeteredPages(trx, session.id);
    if (pages === 0) return [];
    return [{ event: 'discovery.pages.crawled', organization_id: session.org_id, project_id: session.project_id, key: session.id, data: { session_id: session.id, pages } }];
  }

  private halt(ctl: Control, why: Stop): void {
    if (ctl.stopped) return;
    ctl.stopped = why;
    for (const w of ctl.wake) w();
    void ctl.context?.close().catch(() => undefined);
  }

  /** Sleeps until `ms` passed or the crawl stops. */
  private sleep(ctl: Control, ms: number): Promise<void> {
    if (ms <= 0 || ctl.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        ctl.wake.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      ctl.wake.add(done);
    });
  }

  /** Renews the lease and halts the crawl when the session is paused, cancelled or taken (every 300 ms at most). */
  private watch(session: SessionRow, ctl: Control): NodeJS.Timeout {
    const { db, logger } = this.o;
    let lastRenew = Date.now();
    const stopFor = (status: string | undefined) => this.halt(ctl, status === 'paused' ? 'paused' : status === 'cancelled' ? 'cancelled' : 'lost');
    return setInterval(async () => {
      try {
        if (Date.now() - lastRenew > (this.o.leaseSeconds * 1000) / 3) {
          lastRenew = Date.now();
          if (!(await renewLease(db, session.id, this.o.workerId, this.o.leaseSeconds))) stopFor(await currentStatus(db, session.id));
        } else {
          const status = await currentStatus(db, session.id);
          if (status !== 'running') stopFor(status);
        }
      } catch (err) {
        logger.warn({ err }, 'lease check failed');
      }
    }, Math.min(300, this.o.pollMs ?? 300));
  }

  private async run(session: SessionRow, ctl: Control): Promise<void> {
    const watch = this.watch(session, ctl);
    try {
      const run = await this.prepare(session, ctl);
      ctl.context = (await this.o.browsers.newContext({ viewport: { width: 1280, height: 720 }, ignoreHTTPSErrors: true, acceptDownloads: false })).context;
      ctl.context.setDefaultTimeout(this.o.navigationTimeoutMs);
      // Stopped while the context was made: the stop could not close it.
      if (ctl.stopped) return;
      const tabs = Math.max(1, Math.min(this.o.pagesInParallel, run.state.config.max_pages));
      await Promise.all(Array.from({ length: tabs }, () => this.worker(session, ctl, run)));
      if (ctl.stopped) return;
      await this.complete(session, run.state);
    } finally {
      clearInterval(watch);
      await ctl.context?.close().catch(() => undefined);
      // Paused, cancelled or stopped: the pages crawled since the last report are reported now (a crawler
      // that died leaves them in the session's counter for the next one, or for the reaper).
      await withTransaction(this.o.db, async (trx) => enqueueEvents(trx, this.o.schema, await this.meter(trx, session))).catch((err: unknown) =>
        this.o.logger.warn({ err, session_id: session.id }, 'reporting the pages crawled failed; they are reported when the session next runs or ends'),
      );
    }
  }

  /** What a crawl of the session starts from: robots.txt (read once per session and kept), its scope, the frontier and what was seen before a pause. */
  private async prepare(session: SessionRow, ctl: Control): Promise<SessionRun> {
    const { db } = this.o;
    const config = session.config as CrawlConfig;
    const origin = new URL(session.target_url).origin;
    let robotsTxt = session.robots_txt;
    if (robotsTxt === null) {
      robotsTxt = await fetchRobotsTxt(origin, this.robotsAgent);
      await updateSession(db, session.id, { robots_txt: robotsTxt });
    }
    const robots = parseRobots(origin, robotsTxt);
    const delayMs = Math.max(config.request_delay_ms, robots.delayMs);
    const inScope = makeScope(config.include_patterns, config.exclude_patterns);
    const accept = (url: string) => sameOrigin(url, origin) && robots.allowed(url) && inScope(url);
    await addPages(db, session.id, [{ url: session.target_url, depth: 0 }]);
    const analysed: AnalyzedPage[] = (await crawledPages(db, session.id)).flatMap((p) => (p.analysis ? [{ url: p.url, title: p.title ?? '', analysis: p.analysis }] : []));
    const knownFlows = new Map((await listFlows(db, session.id)).map((f) => [f.flow_key, flowSignature(f)]));
    const state: CrawlState = { accept, robotsAllowed: (url) => robots.allowed(url), config, analysed, knownFlows, warnings: new SessionWarnings(session.warnings), refusedLinks: new Set(), meteredAt: Date.now(), judgedAt: 0 };
    const loadOpts = { timeoutMs: this.o.navigationTimeoutMs, waitForApi: config.wait_for_navigation, pace: this.pacer(ctl, delayMs), settleMs: this.o.settleMs ?? DEFAULT_SETTLE_MS };
    return { state, loadOpts, frontier: await pendingPages(db, session.id), crawled: (await countSession(db, session.id)).crawled, inFlight: 0, currentNotedAt: 0, triedRoutes: new Set(), triedExplore: new Set() };
  }

  /**
   * Never faster than the delay: with one, page requests go one at a time, each
   * leaving delayMs after the previous one's response arrived, so the target
   * sees them at least that far apart whatever the network's jitter.
   */
  private pacer(ctl: Control, delayMs: number): Pace {
    let gate: Promise<void> = Promise.resolve();
    return async () => {
      if (delayMs === 0) return ctl.stopped ? undefined : () => undefined;
      const previous = gate;
      let release: () => void = () => undefined;
      gate = new Promise<void>((resolve) => (release = resolve));
      await previous;
      if (ctl.stopped) return void release();
      return () => {
        const until = Date.now() + delayMs;
        void (async () => {
          // Timers may fire a millisecond early: sleep until the time really came (or the crawl stopped).
          while (!ctl.stopped && Date.now() < until) await this.sleep(ctl, until - Date.now());
          release();
        })();
      };
    };
  }

  /** One tab: takes pages from the frontier until it is empty (and no other tab may add to it), the page budget is spent or the crawl stops. */
  private async worker(session: SessionRow, ctl: Control, run: SessionRun): Promise<void> {
    const loader = await PageLoader.open(ctl.context!, { allowWrites: !!run.state.config.allow_writes });
    const { config } = run.state;
    for (;;) {
      if (ctl.stopped) return;
      if (run.crawled + run.inFlight >= config.max_pages) return;
      const next = run.frontier.shift();
      if (!next) {
        if (run.inFlight === 0) return;
        await this.sleep(ctl, 25); // others may still add links
        continue;
      }
      run.inFlight++;
      try {
        if (ctl.stopped) return void run.frontier.unshift(next);
        // The page being loaded, for progress: noted at most every CURRENT_PAGE_MS (a write per page cost a crawl more than its progress is worth).
        if (Date.now() - run.currentNotedAt >= CURRENT_PAGE_MS) {
          run.currentNotedAt = Date.now();
          await setCurrentPage(this.o.db, session.id, this.o.workerId, next.url);
        }
        const visit = await this.visit(loader, next, ctl, run);
        if (!visit || ctl.stopped) return void run.frontier.unshift(next);
        const added = await this.record(session, next, visit.loaded, visit.findings, visit.how, run.state);
        if (added === undefined) return this.halt(ctl, 'lost');
        run.crawled++;
        run.frontier.push(...added);
        run.frontier.sort((a, b) => a.depth - b.depth || a.id - b.id);
      } finally {
        run.inFlight--;
      }
    }
  }

  /** Loads a page (through the app where its URL does not answer) and acts on it; undefined when the crawl stopped meanwhile. */
  private async visit(loader: PageLoader, next: FrontierPage, ctl: Control, run: SessionRun) {
    let loaded: LoadedPage;
    const how = { reachedBy: 'direct' as 'direct' | 'in_app', unreachable: false };
    try {
      loaded = await loader.load(next.url, run.loadOpts);
      // A client-side route the server does not answer (no history fallback): reached by clicking through the app.
      if (next.via && (!loaded.extract || loaded.status_code >= 400) && !ctl.stopped) {
        const inApp = await loader.loadVia(next.url, next.via, run.loadOpts).catch(() => ({ missed: 'not_reached' as const }));
        if ('page' in inApp) {
          loaded = { ...inApp.page, status_code: loaded.status_code, content_type: loaded.content_type, response_time_ms: loaded.response_time_ms };
          how.reachedBy = 'in_app';
        } else if (inApp.missed === 'not_reached') how.unreachable = true;
      }
    } catch (err) {
      if (ctl.stopped) return undefined;
      this.o.logger.debug({ err, url: next.url }, 'page failed to load');
      loaded = { status_code: 0, content_type: '', response_time_ms: 0, api_calls: [] };
    }
    if (ctl.stopped) return undefined;
    const findings = await this.actOn(loader, next, loaded, run, ctl);
    return { loaded, findings, how };
  }

  /** What the crawler does on a read page besides reading it: clicks link-like elements, explores (interactive), scans (accessibility). */
  private async actOn(loader: PageLoader, next: FrontierPage, loaded: LoadedPage, run: SessionRun, ctl: Control): Promise<ExploreFindings> {
    const { config } = run.state;
    const findings: ExploreFindings = { routes: [], panels: [], typeahead: [] };
    const mayAct = !!loaded.extract && run.state.robotsAllowed(next.url) && (await this.o.browsers.egress.checkUrl(next.url)).allowed;
    // Link-like elements without an href: a client-side router's links, clicked to find where they lead.
    if (mayAct && config.wait_for_navigation && loaded.extract!.handler_links > 0) {
      const probed = await loader.probeRoutes(run.triedRoutes, ROUTE_PROBE).catch(() => ({ routes: [], sections: [] }));
      findings.routes.push(...probed.routes);
      if (probed.sections.length) findings.sections = probed.sections;
    }
    // Interactive sessions exercise the page too: only where robots.txt and the egress policy allow it.
    if (config.interactive && mayAct) {
      const explored = await loader.explore(loaded.extract!.forms, { ...DEFAULT_EXPLORE_LIMITS, budgetMs: this.o.exploreBudgetMs ?? DEFAULT_EXPLORE_LIMITS.budgetMs, allowWrites: !!config.allow_writes }, run.triedExplore).catch((err: unknown) => {
        this.o.logger.debug({ err, url: next.url }, 'exploring the page failed');
        return undefined;
      });
      if (explored) {
        loaded.api_calls.push(...explored.calls);
        findings.routes.push(...explored.found.routes);
        findings.panels.push(...explored.found.panels);
        findings.typeahead.push(...explored.found.typeahead);
        if (explored.found.untried) findings.untried = explored.found.untried;
        if (explored.found.records) findings.records = explored.found.records;
      }
    }
    // The same axe scan as assert_accessible (WCAG 2 A and AA, every impact), on the page as loaded: it reads, never acts.
    if (config.accessibility && loaded.extract && !ctl.stopped) {
      loaded.accessibility = await scanAccessibility(loader.page, { tags: ACCESSIBILITY_STANDARDS.wcag2aa, minImpact: 'minor' }).then(
        (violations) => ({ violations }),
        (err: unknown) => ({ error: `The accessibility scan failed: ${firstLine(err)}` }),
      );
    }
    return findings;
  }

  /**
   * Stores one crawled page with its links (new frontier entries), API calls,
   * stream event, warnings and any flows it completes, in one transaction held
   * under the lease. Returns the frontier entries added; undefined when the
   * session is no longer this crawler's.
   */
  private async record(session: SessionRow, page: FrontierPage, loaded: LoadedPage, found: ExploreFindings, how: { reachedBy: 'direct' | 'in_app'; unreachable: boolean }, s: CrawlState) {
    const { reachedBy, unreachable } = how;
    const { db } = this.o;
    const ex = loaded.extract;
    const links = new Set<string>();
    const via = new Map<string, { from: string; selector: string }>();
    const add = (raw: string | undefined) => {
      const url = raw ? normaliseUrl(raw) : undefined;
      if (url && url !== page.url && links.size < MAX_LINKS_PER_PAGE) links.add(url);
      return url;
    };
    for (const raw of [
      ...(ex?.links ?? []),
      ...(ex?.forms ?? []).filter((f) => f.method === 'get' && f.action).map((f) => f.action),
      loaded.location,
      // Where the page's scripts moved it while it loaded (a client-side redirect), and links in what its buttons opened.
      loaded.final_url,
      ...(loaded.routes ?? []),
      ...found.panels.flatMap((p) => p.links),
      // Links the page showed once it held a record (filters that appear with items).
      ...(found.records?.links ?? []),
    ])
      add(raw);
    // On a page its scripts render, a link may be a client-side router's: where the server does not answer its URL
    // (no history fallback), it is reached by clicking it here.
    if (loaded.dynamic && ex) {
      for (const [href, selector] of Object.entries(ex.link_selectors)) {
        const url = normaliseUrl(href);
        if (url && links.has(url) && !via.has(url)) via.set(url, { from: page.url, selector });
      }
    }
    // Routes a click reached: crawled by their URL, and by the same click where the server does not answer that URL.
    const routes: ClientRoute[] = [];
    for (const r of found.routes) {
      const url = add(r.url);
      if (!url || url === page.url) continue;
      routes.push({ ...r, url });
      if (!via.has(url)) via.set(url, { from: page.url, selector: r.selector });
    }
    // Calls typing into a search box caused carry its term: `/search/acme` is `/search/{query}`.
    const terms = new Map(found.typeahead.map((t) => [`search ${t.selector}`, t.term]));
    const template = (c: { url: string; cause?: string }) => templateEndpoint(c.url, c.cause ? terms.get(c.cause) : undefined);
    // Form posts made while exploring are evidence for flows, not API endpoints.
    // Calls held in the browser (writes a session without allow_writes would have made) never reached the target: evidence, not endpoints.
    const scripted = loaded.api_calls.filter((c) => !c.document && sameOrigin(c.url, session.target_url));
    const apiCalls = scripted.filter((c) => !c.held);
    const observed = loaded.api_calls.filter((c) => c.cause && sameOrigin(c.url, session.target_url)).map((c) => ({ method: c.method, endpoint: template(c), status: c.status, cause: c.cause!, ...(c.held ? { held: true } : {}) }));
    const inScope = [...links].filter((url) => sameOrigin(url, session.target_url));
    const warnings = ex ? pageWarnings(loaded, inScope.length, s.config, found) : [];
    let analysis: PageAnalysis | null = null;
    if (ex) {
      const writes = new Map<string, { method: string; endpoint: string }>();
      for (const c of scripted) if (c.method !== 'GET' && c.method !== 'HEAD') writes.set(`${c.method} ${template(c)}`, { method: c.method, endpoint: template(c) });
      for (const w of ex.script_writes) {
        const url = normaliseUrl(w.path.replace('{id}', '0'), page.url);
        if (url && sameOrigin(url, session.target_url)) {
          const endpoint = templateEndpoint(url);
          writes.set(`${w.method} ${endpoint}`, { method: w.method, endpoint });
        }
      }
      const linkSelectors: Record<string, string> = {};
      for (const [href, sel] of Object.entries(ex.link_selectors)) {
        const url = normaliseUrl(href);
        if (url) linkSelectors[url] = sel;
      }
      for (const r of routes) linkSelectors[r.url] ??= r.selector;
      analysis = {
        links: [...links],
        forms: ex.forms,
        headings: ex.headings,
        lists: ex.lists,
        navs: ex.navs.map((n) => ({ ...n, hrefs: n.hrefs.map((h) => normaliseUrl(h) ?? h) })),
        modals: ex.modals,
        pagination: ex.pagination,
        writes: [...writes.values()],
        reads: apiCalls.filter((c) => c.method === 'GET' && !c.cause).map((c) => ({ endpoint: template(c), url: c.url, status: c.status })),
        ...(observed.length ? { observed } : {}),
        link_selectors: linkSelectors,
        text_chars: ex.text_chars,
        handler_links: ex.handler_links,
        ...(routes.length ? { routes } : {}),
        ...(found.panels.length ? { panels: found.panels.map((p) => ({ ...p, links: p.links.flatMap((l) => normaliseUrl(l) ?? []) })) } : {}),
        ...(found.typeahead.length ? { typeahead: found.typeahead } : {}),
        ...(found.sections?.length ? { sections: found.sections } : {}),
        ...(found.records ? { records: found.records } : {}),
        ...(warnings.length ? { warnings } : {}),
        ...(loaded.accessibility ? { accessibility: loaded.accessibility } : {}),
      };
    }
    const childDepth = page.depth + 1;
    const children = childDepth <= s.config.max_depth ? [...links].filter(s.accept).map((url) => ({ url, depth: childDepth, ...(via.has(url) ? { via: via.get(url)! } : {}) })) : [];
    const refused = inScope.filter((url) => !s.robotsAllowed(url));

    // What the session has seen is updated in place before anything is awaited (as its warnings
    // below): pages are crawled in parallel, and two pages that each judged the flows from a copy
    // without the other's page both missed it (a list of four items was saved as three). A lost
    // lease halts this crawl, so nothing reads the state after a transaction that did not commit.
    if (analysis) s.analysed.push({ url: page.url, title: ex!.title, analysis });
    const judge = !!analysis && (s.analysed.length <= JUDGE_EVERY_PAGE || Date.now() - s.judgedAt >= JUDGE_MS);
    if (judge) s.judgedAt = Date.now();
    const flows = judge ? detectFlows(s.analysed).filter((f) => s.knownFlows.get(f.key) !== flowSignature(f)) : [];
    for (const f of flows) s.knownFlows.set(f.key, flowSignature(f));
    const patterns = judge ? detectPatterns(s.analysed).length : undefined;
    // The session's warnings are changed in place, here, before anything is awaited: pages are
    // crawled in parallel, and a copy taken now and put back after the transaction would drop
    // what another page added meanwhile (a robots_blocked warning went missing that way).
    const sessionWarnings = s.warnings;
    const newKinds = sessionWarnings.addPage(page.url, warnings);
    // Each link refused once, whatever page shows it; the examples are the links themselves.
    const freshRefusals = refused.filter((url) => !s.refusedLinks.has(url));
    for (const url of freshRefusals) s.refusedLinks.add(url);
    for (const url of freshRefusals) if (sessionWarnings.add('robots_blocked', url)) newKinds.push('robots_blocked');
    if (unreachable && sessionWarnings.add('unreachable_routes', page.url)) newKinds.push('unreachable_routes');

    const added = await withTransaction(db, async (trx) => {
      const unmetered = await holdAndCountPage(trx, session.id, this.o.workerId, patterns);
      if (unmetered === undefined) return undefined;
      await savePage(trx, page.id, {
        title: ex?.title ?? '',
        status_code: loaded.status_code,
        content_type: loaded.content_type,
        response_time_ms: loaded.response_time_ms,
        links_found: links.size,
        forms_found: ex?.forms.length ?? 0,
        api_calls: apiCalls.length,
        analysis,
        reached_by: reachedBy,
      });
      for (const c of apiCalls) await recordEndpoint(trx, session.id, { method: c.method, endpoint: template(c), response_time_ms: c.response_time_ms, status_code: c.status });
      const added = await addPages(trx, session.id, children);
      await appendStreamEvent(trx, session.id, 'page_discovered', { url: page.url, title: ex?.title ?? '', status_code: loaded.status_code, depth: page.depth, content_type: loaded.content_type, reached_by: reachedBy });
      if (warnings.length || freshRefusals.length || unreachable) await setWarnings(trx, session.id, sessionWarnings.list());
      for (const code of newKinds) await appendStreamEvent(trx, session.id, 'warning', sessionWarnings.get(code)! as unknown as Record<string, unknown>);
      const events: NewEvent[] = [];
      await this.saveFlows(trx, session, flows, events);
      // Auth meters discovery pages from one internal event per METER_PAGES pages or METER_MS, not one per page.
      if (unmetered >= METER_PAGES || Date.now() - s.meteredAt >= METER_MS) {
        s.meteredAt = Date.now();
        events.push(...(await this.meter(trx, session)));
      }
      await enqueueEvents(trx, this.o.schema, events);
      return added;
    });
    if (added === undefined) return undefined;
    return added;
  }

  /** Stores the flows found or changed; a new one is streamed and its event added to `events`. */
  private async saveFlows(trx: Kysely<DiscoveryDatabase>, session: SessionRow, flows: DetectedFlow[], events: NewEvent[]): Promise<void> {
    for (const f of flows) {
      const isNew = await upsertFlow(trx, {
        session_id: session.id,
        flow_id: f.flow_id,
        flow_key: f.key,
        type: f.type,
        pages: JSON.stringify(f.pages),
        steps: JSON.stringify(f.steps),
        confidence: f.confidence,
        evidence: JSON.stringify(f.evidence),
      });
      if (!isNew) continue;
      await appendStreamEvent(trx, session.id, 'flow_detected', { type: f.type, flow_id: f.flow_id, pages: f.pages });
      events.push(flowEvent(session, f));
    }
  }

  private async complete(session: SessionRow, s: CrawlState): Promise<void> {
    await withTransaction(this.o.db, async (trx) => {
      if (!(await lockIfHeld(trx, session.id, this.o.workerId))) return;
      const completedAt = new Date();
      // Pages commit in parallel transactions, so a flow saved from fewer pages can land after
      // the same flow saved from more: the flows are judged once more on every page seen.
      const stored = new Map((await listFlows(trx, session.id)).map((f) => [f.flow_key, flowSignature(f) + JSON.stringify(f.evidence)]));
      const changed = detectFlows(s.analysed).filter((f) => stored.get(f.key) !== flowSignature(f) + JSON.stringify(f.evidence));
      const flowEvents: NewEvent[] = [];
      await this.saveFlows(trx, session, changed, flowEvents);
      flowEvents.push(...(await this.meter(trx, session)));
      if (flowEvents.length) await enqueueEvents(trx, this.o.schema, flowEvents);
      const counts = await countSession(trx, session.id);
      const flows = await listFlows(trx, session.id);
      // A crawl that found little says why, so "completed, 1 page" never stands alone.
      const warnings = new SessionWarnings(s.warnings.list());
      const fresh: string[] = [];
      if (counts.crawled === 1 && s.config.max_pages > 1 && s.config.max_depth > 0 && warnings.add('single_page', session.target_url)) fresh.push('single_page');
      if (counts.flows === 0 && warnings.add('no_flows')) fresh.push('no_flows');
      for (const code of fresh) await appendStreamEvent(trx, session.id, 'warning', warnings.get(code as never)! as unknown as Record<string, unknown>);
      await updateSession(trx, session.id, {
        status: 'completed',
        completed_at: completedAt,
        current_page: null,
        lease_owner: null,
        lease_expires_at: null,
        patterns_found: detectPatterns(s.analysed).length,
        warnings: JSON.stringify(warnings.list()),
      });
      await appendStreamEvent(trx, session.id, 'completion', { session_id: session.id, status: 'completed', pages_crawled: counts.crawled, flows_detected: counts.flows, warnings: warnings.list().length });
      await enqueueEvents(trx, this.o.schema, [
        {
          event: 'discovery.session.completed',
          organization_id: session.org_id,
          project_id: session.project_id,
          key: session.id,
          data: {
            session_id: session.id,
            target_url: session.target_url,
            pages_found: counts.crawled,
            flows_detected: counts.flows,
            api_endpoints: counts.endpoints,
            completed_at: completedAt.toISOString(),
            flows: flows.map((f) => ({ flow_id: f.flow_id, type: f.type })),
          },
        },
      ]);
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.unlisten?.();
    // Sessions still running keep their frontier and are left to their leases: another crawler (or this one restarted) goes on.
    for (const ctl of this.active.values()) this.halt(ctl, 'shutdown');
    for (const id of this.active.keys()) await releaseSession(this.o.db, id, this.o.workerId).catch(() => undefined);
    await this.o.browsers.close();
    await this.robotsAgent.close().catch(() => undefined);
  }
}

/** What may have kept the crawler from seeing the whole of a page it read. */
function pageWarnings(loaded: LoadedPage, linksInScope: number, config: CrawlConfig, found: ExploreFindings): PageWarning[] {
  const ex = loaded.extract!;
  const out: PageWarning[] = [];
  // A page type the crawler could not explore: behind a sign-in it does not have, drawn in frames or a canvas it does not read, or more than its budget.
  if (loaded.status_code === 401 || loaded.status_code === 403) out.push({ code: 'unexplored_pages', message: `answered ${loaded.status_code}: behind a sign-in the crawler does not have` });
  else if (ex.opaque) out.push({ code: 'unexplored_pages', message: `most of it is ${ex.opaque} the crawler does not read` });
  else if (found.untried) out.push({ code: 'unexplored_pages', message: `the exploration budget ran out with ${found.untried} control(s) untried (CRAWLER_EXPLORE_BUDGET_MS)` });
  if (linksInScope === 0 && ex.text_chars < 20) out.push({ code: 'empty_page', message: `rendered ${ex.text_chars ? `only ${ex.text_chars} characters of` : 'no'} text and no links` });
  if (loaded.script_errors?.length) out.push({ code: 'script_errors', message: loaded.script_errors[0]!.slice(0, 200) });
  if (loaded.still === false) out.push({ code: 'not_still', message: 'kept changing until the wait limit' });
  if (!config.interactive && linksInScope === 0 && ex.handler_links + ex.buttons > 0) out.push({ code: 'handler_links', message: `${ex.handler_links + ex.buttons} buttons or click handlers and no link` });
  return out;
}

/** What makes two detections of one flow differ. */
const flowSignature = (f: { pages: string[]; steps: unknown; confidence: number }) => JSON.stringify([f.pages, f.steps, f.confidence]);

function flowEvent(session: SessionRow, f: DetectedFlow): NewEvent {
  return {
    event: 'discovery.flow.detected',
    organization_id: session.org_id,
    project_id: session.project_id,
    key: session.id,
    data: { session_id: session.id, flow: { flow_id: f.flow_id, type: f.type, pages: f.pages, steps: f.steps, confidence: f.confidence } },
  };
}

