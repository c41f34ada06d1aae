import type { AccessibilityViolation } from '@assay/steps';
import type { BrowserContext, CDPSession, Page, Request } from 'playwright-core';
import type { FormInfo } from '../db/database.js';
import { probeClientRoutes, type ClientRoute, type SectionMove } from './client-routes.js';
import { explorePage, type ExploreFindings, type ExploreLimits } from './explore.js';
import { EXTRACT_BODY, extractPage, type PageExtract } from './extract.js';
import type { ApiCall, PageState } from './page-state.js';
import { normaliseUrl } from './urls.js';

export interface LoadedPage {
  status_code: number;
  content_type: string;
  response_time_ms: number;
  /** Set when the response was a redirect: where it points. */
  location?: string;
  /** Only for HTML pages that rendered. */
  extract?: PageExtract;
  api_calls: ApiCall[];
  /** Where the page was when read (a client-side redirect moves it). */
  final_url?: string;
  /** URLs the page's scripts moved to while it loaded (pushState, replaceState, hash). */
  routes?: string[];
  /** Uncaught script errors while it loaded. */
  script_errors?: string[];
  /** `accessibility: true` sessions: the axe scan of the page as loaded. */
  accessibility?: { violations: AccessibilityViolation[] } | { error: string };
  /** False when it kept changing until the settle cap. */
  still?: boolean;
  /** Its scripts fetched or changed the DOM after it was parsed: its links may be a client-side router's. */
  dynamic?: boolean;
}

/**
 * Waits for a page request's turn; resolves to the function to call once its
 * response arrived, or undefined when the crawl stopped meanwhile.
 */
export type Pace = () => Promise<(() => void) | undefined>;

export interface Visit {
  main?: { status: number; contentType: string; ms: number; location?: string; rendered: boolean };
  calls: ApiCall[];
}

/** How long the network must stay quiet on a page that no script touched since it was parsed (ms). */
const QUIET_MS = 30;
/**
 * How long a page whose scripts fetch or change the DOM must stay still (no request in
 * flight and no DOM change) to count as rendered (ms): long enough for a framework to
 * render what a response brought, which happens a task or a few after it arrived.
 */
const STILL_MS = 80;
/** How long a page's scheduler must have posted no work to count as idle (ms): React yields every 5 ms while it renders. */
const SCHEDULER_QUIET_MS = 30;

// Runs in every page before its scripts. Counts the fetch/XHR calls they start
// and the short timers they set; watches the DOM after it was parsed (a still, server-rendered page records
// nothing, so it is never waited on); records client-side route changes
// (pushState, replaceState, hash changes) and uncaught script errors.
const INSTRUMENT = `(() => {
  let started = 0, lastStart = 0, mutations = 0, lastMutation = 0, parsed = false;
  const routes = [], errors = [];
  const fetch = window.fetch;
  window.fetch = function (...args) { started++; lastStart = performance.now(); return fetch.apply(this, args); };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) { started++; lastStart = performance.now(); return send.apply(this, args); };
  // Timers due within a second that the page's scripts set (a framework throttling a render, a debounce) mean
  // more is coming. A timer set by a timer's callback three deep is a loop (polling, a carousel): not waited on.
  const timers = new Map();
  let generation = 0;
  const setT = window.setTimeout, clearT = window.clearTimeout;
  window.setTimeout = function (fn, delay, ...args) {
    if (typeof fn !== 'function') return setT.call(this, fn, delay, ...args);
    const mine = generation + 1;
    let id;
    const run = function (...a) { timers.delete(id); const was = generation; generation = mine; try { return fn.apply(this, a); } finally { generation = was; } };
    id = setT.call(this, run, delay, ...args);
    const ms = Number(delay) || 0;
    if (ms <= 1000 && mine <= 3) timers.set(id, performance.now() + ms);
    return id;
  };
  window.clearTimeout = function (id) { timers.delete(id); return clearT.call(this, id); };
  // A framework's scheduler (React's) posts itself a message per slice of work: rendering is under way.
  let lastPost = -1;
  const post = MessagePort.prototype.postMessage;
  MessagePort.prototype.postMessage = function (...args) { lastPost = performance.now(); return post.apply(this, args); };
  const observer = new MutationObserver(() => { if (parsed) { mutations++; lastMutation = performance.now(); } });
  observer.observe(document, { subtree: true, childList: true, characterData: true });
  document.addEventListener('DOMContentLoaded', () => { parsed = true; }, { once: true });
  const route = () => { if (routes.length < 200) routes.push(location.href); };
  for (const name of ['pushState', 'replaceState']) {
    const original = history[name];
    history[name] = function (...args) { const r = original.apply(this, args); route(); return r; };
  }
  addEventListener('hashchange', route);
  addEventListener('error', (e) => { if (errors.length < 20) errors.push(String(e.message || e.error || 'error').slice(0, 300)); });
  addEventListener('unhandledrejection', (e) => { if (errors.length < 20) errors.push(String((e.reason && e.reason.message) || e.reason).slice(0, 300)); });
  Object.defineProperty(window, '__assayState', { value: () => ({ scripts: document.scripts.length, started, sinceStart: started ? performance.now() - lastStart : -1, mutations, sinceMutation: mutations ? performance.now() - lastMutation : -1, sinceTask: lastPost < 0 ? -1 : performance.now() - lastPost, timers: timers.size, routes: routes.slice(), errors: errors.slice(), href: location.href }) });
})();`;

/** The state of a page whose instrumentation did not run (or that could not be read): nothing seen. */
const EMPTY_STATE: Omit<PageState, 'href'> = { scripts: 0, started: 0, sinceStart: -1, mutations: 0, sinceMutation: -1, sinceTask: -1, timers: 0, routes: [], errors: [] };
const STATE_EXPRESSION = `(window.__assayState ? window.__assayState() : { ...${JSON.stringify(EMPTY_STATE)}, scripts: document.scripts.length, href: location.href })`;
/** The state and the page's extract in one call: a page still at the first look is read with one round trip. */
const STATE_AND_EXTRACT_EXPRESSION = `(() => { const state = ${STATE_EXPRESSION}; return { state, extract: (function () { ${EXTRACT_BODY} })() }; })()`;

/** Fetch.requestPaused, the fields read here. */
interface PausedRequest {
  requestId: string;
  frameId: string;
  resourceType?: string;
  request: { url: string; method: string };
  responseStatusCode?: number;
  responseErrorReason?: string;
  responseHeaders?: Array<{ name: string; value: string }>;
}

/** A document request let through, until its response is read. */
interface DocumentInFlight {
  visit: Visit;
  t0: number;
  /** Set while exploring: the action that sent it (its answer is a call, not a page). */
  cause?: string;
  /** Ends its turn (pacing). */
  done?: () => void;
  timer?: NodeJS.Timeout;
}

/** Methods that read: the only calls sent while exploring a session that does not allow writes. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
const DOCUMENTS_ONLY: Array<{ resourceType: 'Document' | 'XHR' | 'Fetch' | 'Ping'; requestStage: 'Request' }> = [{ resourceType: 'Document', requestStage: 'Request' }];
/** While exploring without writes: calls too (XHR, fetch, beacons), so one that would write is held in the browser. */
const DOCUMENTS_AND_CALLS: typeof DOCUMENTS_ONLY = [...DOCUMENTS_ONLY, ...(['XHR', 'Fetch', 'Ping'] as const).map((resourceType) => ({ resourceType, requestStage: 'Request' as const }))];

/** The longest a document's request holds the session's pacing turn (ms). */
const MAX_TURN_MS = 60_000;

/** Requests a page waits on before it counts as loaded: its calls and the scripts (chunks) it loads. */
const PENDING_TYPES = new Set(['xhr', 'fetch', 'script']);

const isApi = (r: Request) => r.resourceType() === 'xhr' || r.resourceType() === 'fetch';

/**
 * One reused browser tab. The main document of each visit is held at its
 * response (see `paused`), so its status and content type are known before
 * rendering: HTML renders, anything else (a PDF, JSON, a redirect) is
 * recorded and not rendered. The page's own XHR/fetch calls are recorded with their timings.
 * A rendered page is read once it is still (see `settle`), so what scripts
 * render after load (single-page apps) is what is read.
 */
export class PageLoader {
  private visit: Visit = { calls: [] };
  private pace: Pace = async () => () => undefined;
  /** The turn `load` took before navigating, for its document's first request. */
  private takenTurn: (() => void) | undefined;
  /** Set while exploring: navigations do not leave the page, calls are tagged with this cause. */
  private cause: string | undefined;
  private exploring = false;
  /** Set when a document navigation was held while exploring or navigating in the app. */
  private heldDocument = false;
  /** Calls and scripts in flight (not the main document), and when the last one started or ended. */
  private readonly pending = new Set<Request>();
  private lastNetworkAt = 0;

  /** The DevTools id of the tab's main frame (its documents are the crawl's). */
  private mainFrameId = '';
  /** Documents between their request and response stages, by Fetch request id. */
  private readonly documents = new Map<string, DocumentInFlight>();

  private constructor(
    readonly page: Page,
    private readonly cdp: CDPSession,
    /** Calls and form posts that write may reach the target while exploring (the session's allow_writes). */
    private readonly allowWrites: boolean,
  ) {}

  /**
   * A tab of `context`. Without `allowWrites`, exploring holds in the browser every call and
   * form post that would write (any method but GET, HEAD and OPTIONS): it never reaches the
   * target, and is recorded as `held` with the action that tried it.
   */
  static async open(context: BrowserContext, opts: { allowWrites?: boolean } = {}): Promise<PageLoader> {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const loader = new PageLoader(page, cdp, opts.allowWrites ?? true);
    await loader.page.addInitScript(INSTRUMENT);
    // A click that opens a new tab or window: nothing of the crawl happens there.
    loader.page.on('popup', (p) => void p.close().catch(() => undefined));
    // Documents only are intercepted, through the DevTools protocol (Fetch): Playwright's page.route would pause
    // every request, turn the HTTP cache off (every page of an app would fetch its scripts again) and, with
    // route.fetch, carry each document through this process twice. Measured on the discovery bench: a tenth of a
    // crawl's CPU. Subresources, calls and frames go straight through the context's egress proxy.
    const tree = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
    loader.mainFrameId = tree.frameTree.frame.id;
    cdp.on('Fetch.requestPaused', (e) => void loader.paused(e));
    await cdp.send('Fetch.enable', { patterns: DOCUMENTS_ONLY });
    const visits = new WeakMap<Request, { visit: Visit; cause: string | undefined }>();
    loader.page.on('request', (r) => {
      if (PENDING_TYPES.has(r.resourceType())) {
        loader.pending.add(r);
        loader.lastNetworkAt = Date.now();
      }
      if (!isApi(r)) return;
      visits.set(r, { visit: loader.visit, cause: loader.cause });
    });
    const done = async (r: Request, failed: boolean) => {
      if (loader.pending.delete(r)) loader.lastNetworkAt = Date.now();
      if (!isApi(r)) return;
      const { visit: v, cause } = visits.get(r) ?? { visit: loader.visit, cause: loader.cause };
      const res = failed ? null : await r.response().catch(() => null);
      const t = r.timing();
      const held = failed && /BLOCKED_BY_CLIENT/.test(r.failure()?.errorText ?? '') && !READS.has(r.method());
      v.calls.push({
        method: r.method(),
        url: r.url(),
        status: res?.status() ?? 0,
        response_time_ms: Math.max(0, Math.round(t.responseEnd > 0 ? t.responseEnd : 0)),
        ...(cause ? { cause } : {}),
        ...(held ? { held: true } : {}),
      });
    };
    loader.page.on('requestfinished', (r) => void done(r, false));
    loader.page.on('requestfailed', (r) => void done(r, true));
    return loader;
  }

  /**
   * A document request paused by Fetch: at its request stage it waits for its
   * turn (pacing) and goes on with its response intercepted too; at its
   * response stage its status and content type are recorded, and only HTML
   * renders: anything else (a PDF, JSON, a redirect) is recorded and not
   * rendered. While exploring, the page stays where it is: a GET navigation (a
   * button or link leading away) is not sent at all; a form post is sent, its
   * answer recorded as a call of the action that submitted it, and not rendered.
   * Documents of frames go on untouched.
   */
  private async paused(e: PausedRequest): Promise<void> {
    const send = (method: 'Fetch.continueRequest' | 'Fetch.failRequest', params: Record<string, unknown>) => this.cdp.send(method, { requestId: e.requestId, ...params }).catch(() => undefined);
    const fail = () => send('Fetch.failRequest', { errorReason: 'Aborted' });
    const atResponse = e.responseStatusCode !== undefined || e.responseErrorReason !== undefined;
    if (!atResponse) {
      // A call (only intercepted while exploring without writes): one that would write is held.
      if (e.resourceType && e.resourceType !== 'Document') {
        if (READS.has(e.request.method)) return void (await send('Fetch.continueRequest', {}));
        return void (await send('Fetch.failRequest', { errorReason: 'BlockedByClient' }));
      }
      if (e.frameId !== this.mainFrameId) return void (await send('Fetch.continueRequest', {}));
      const exploring = this.exploring;
      if (exploring) this.heldDocument = true;
      if (exploring && (e.request.method === 'GET' || !this.cause)) return void (await fail());
      // A form post while exploring a session that does not allow writes: recorded as the call it would make, never sent.
      if (exploring && !this.allowWrites) {
        this.visit.calls.push({ method: e.request.method, url: e.request.url, status: 0, response_time_ms: 0, cause: this.cause!, document: true, held: true });
        return void (await fail());
      }
      const inFlight: DocumentInFlight = { visit: this.visit, t0: 0, ...(exploring ? { cause: this.cause! } : {}) };
      // A tab asks for one document at a time: one still waiting for its answer was given up (superseded).
      this.releaseTurns();
      // Pacing happens here, right before the request leaves, so the target never sees two closer than the delay
      // (a load's own document comes with the turn the load took before navigating).
      const taken = exploring ? undefined : this.takenTurn;
      this.takenTurn = undefined;
      const done = taken ?? (await this.pace().catch(() => undefined));
      if (!done) return void (await fail());
      inFlight.done = done;
      inFlight.t0 = Date.now();
      // The last resort: a turn is never held longer than this, and a request never answered by then is forgotten.
      inFlight.timer = setTimeout(() => this.finishDocument(e.requestId), MAX_TURN_MS).unref();
      this.documents.set(e.requestId, inFlight);
      const sent = await this.cdp.send('Fetch.continueRequest', { requestId: e.requestId, interceptResponse: true }).then(
        () => true,
        () => false,
      );
      if (!sent) this.finishDocument(e.requestId);
      return;
    }
    const inFlight = this.finishDocument(e.requestId);
    if (!inFlight || e.responseErrorReason !== undefined) return void (await (inFlight ? fail() : send('Fetch.continueRequest', {})));
    const status = e.responseStatusCode!;
    const headers = new Map((e.responseHeaders ?? []).map((h) => [h.name.toLowerCase(), h.value]));
    const ms = Date.now() - inFlight.t0;
    if (inFlight.cause !== undefined) {
      inFlight.visit.calls.push({ method: e.request.method, url: e.request.url, status, response_time_ms: ms, cause: inFlight.cause, document: true });
      return void (await fail());
    }
    const contentType = (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const html = status < 300 || status >= 400 ? contentType === 'text/html' || contentType === 'application/xhtml+xml' : false;
    const location = headers.get('location');
    inFlight.visit.main = { status, contentType, ms, rendered: html, ...(location ? { location } : {}) };
    if (html) await send('Fetch.continueRequest', {});
    else await fail();
  }

  /** Ends a document's turn (pacing) once; answers what was kept of it. */
  private finishDocument(requestId: string): DocumentInFlight | undefined {
    const inFlight = this.documents.get(requestId);
    this.documents.delete(requestId);
    if (inFlight) this.endTurn(inFlight);
    return inFlight;
  }

  private endTurn(inFlight: DocumentInFlight): void {
    clearTimeout(inFlight.timer);
    inFlight.done?.();
    inFlight.done = undefined;
  }

  /**
   * Ends the turn of every document of this tab still waiting for its answer:
   * the navigation that asked for it ended (loaded, failed or timed out) or was
   * superseded, and a request the browser dropped is never answered. Without
   * this, with a request delay, such a request held every tab's next request
   * for ever. A late answer is still read (a form post's is still not rendered).
   */
  private releaseTurns(): void {
    for (const inFlight of this.documents.values()) this.endTurn(inFlight);
  }

  /** The page's instrumentation, read now (a closed or navigating page reads as empty). */
  async state(): Promise<PageState> {
    return (await this.evaluate<PageState>(STATE_EXPRESSION)) ?? { ...EMPTY_STATE, routes: [], errors: [], href: this.page.url() };
  }

  /**
   * Evaluates an expression in the page's main world straight through the
   * DevTools protocol: read several times a page, page.evaluate's own work (its
   * helper script injected into each new document, the call's validation and
   * stack capture) cost more than the reading. Undefined when it threw or the
   * page was between documents.
   */
  private async evaluate<T>(expression: string): Promise<T | undefined> {
    const out = (await this.cdp.send('Runtime.evaluate', { expression, returnByValue: true }).catch(() => undefined)) as { result?: { value?: T }; exceptionDetails?: unknown } | undefined;
    return out && !out.exceptionDetails ? out.result?.value : undefined;
  }

  /**
   * Waits until the page is still, at most `capMs`: every fetch/XHR call its
   * scripts started has finished, no call or script (a lazily loaded chunk) is
   * in flight, no short timer its scripts set is pending (React throttles a
   * Suspense reveal by 300 ms this way), no scheduler is slicing a render
   * (a message posted to a port lately), and the DOM stopped changing. A page no script touched since it
   * was parsed is still once its network is quiet for QUIET_MS; a page whose
   * scripts fetch or render must stay still for STILL_MS, since a framework
   * renders what a response brought a few tasks after it arrived. Answers
   * whether it got still within the cap, and the page's state then.
   */
  async settle(visit: Visit, capMs: number, extractFirst = false): Promise<{ still: boolean; state: PageState; extract?: PageExtract }> {
    const deadline = Date.now() + capMs;
    const firstLook = Date.now();
    for (let look = 0; ; look++) {
      // The first look of a page about to be read reads it too, kept if the page is still then.
      const both = extractFirst && look === 0 ? await this.evaluate<{ state: PageState; extract: PageExtract }>(STATE_AND_EXTRACT_EXPRESSION) : undefined;
      const state = both?.state ?? (await this.state());
      const now = Date.now();
      // Quiet is counted from the network's clock (a call or script started or ended) and the page's (its last
      // call started). A page with scripts is also watched for the window itself (a script may start a call from
      // a callback nothing here counts); a page without any is still at the first look, with no wait.
      const calls = visit.calls.filter((c) => !c.document).length;
      const watched = state.scripts > 0 ? now - firstLook : Infinity;
      const netQuietFor = Math.min(watched, state.sinceStart < 0 ? Infinity : state.sinceStart, now - this.lastNetworkAt);
      const dynamic = state.started > 0 || state.mutations > 0 || state.timers > 0;
      const window = dynamic ? STILL_MS : QUIET_MS;
      const domStill = state.mutations === 0 || state.sinceMutation >= window;
      const idle = state.sinceTask < 0 || state.sinceTask >= SCHEDULER_QUIET_MS;
      if (this.pending.size === 0 && calls >= state.started && state.timers === 0 && idle && netQuietFor >= window && domStill) return { still: true, state, ...(both ? { extract: both.extract } : {}) };
      if (now >= deadline) return { still: false, state };
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
  }

  /**
   * Runs `act` with navigations held on the page (as while exploring), calls tagged with `cause`.
   * Calls that would write are held too once `act` arms the hold (`arm()`, before its first
   * click): intercepting every call costs a round trip to the browser each way, which a probe
   * that finds nothing to click should not pay on every page.
   */
  async holding<T>(cause: string | undefined, act: (arm: () => Promise<void>) => Promise<T>): Promise<T> {
    const was = { exploring: this.exploring, cause: this.cause };
    this.exploring = true;
    this.cause = cause;
    let armed = false;
    // Clicks made to find routes may fire calls too: those that would write are held as while exploring.
    const arm = async () => {
      if (armed || this.allowWrites || was.exploring) return;
      armed = true;
      await this.cdp.send('Fetch.enable', { patterns: DOCUMENTS_AND_CALLS }).catch(() => undefined);
    };
    try {
      return await act(arm);
    } finally {
      this.exploring = was.exploring;
      this.cause = was.cause;
      this.releaseTurns();
      if (armed) await this.cdp.send('Fetch.enable', { patterns: DOCUMENTS_ONLY }).catch(() => undefined);
    }
  }

  /**
   * Explores the page loaded last (see explore.ts): fills and submits `forms`,
   * clicks in-page buttons, opens what they open, types into search boxes.
   * Answers what it found and the calls those actions caused, each with its cause.
   */
  async explore(forms: FormInfo[], limits: ExploreLimits, sessionTried: Set<string>): Promise<{ calls: ApiCall[]; found: ExploreFindings }> {
    const visit = this.visit;
    const before = visit.calls.length;
    this.exploring = true;
    if (!this.allowWrites) await this.cdp.send('Fetch.enable', { patterns: DOCUMENTS_AND_CALLS });
    let found: ExploreFindings;
    try {
      found = await explorePage(this.page, forms, limits, sessionTried, {
        mark: (a) => (this.cause = `${a.kind} ${a.selector}`),
        settle: async () => (await this.settle(visit, 1500)).state,
        state: () => this.state(),
        callsSince: (n) => visit.calls.slice(n),
        callCount: () => visit.calls.length,
      });
    } finally {
      this.exploring = false;
      this.cause = undefined;
      this.releaseTurns();
      if (!this.allowWrites) await this.cdp.send('Fetch.enable', { patterns: DOCUMENTS_ONLY }).catch(() => undefined);
    }
    return { calls: visit.calls.slice(before).filter((c) => c.cause), found };
  }

  /**
   * Clicks the page's link-like elements that have no href (`role=link`, an `<a>` without
   * href): a client-side router moves with pushState, and the URL it moves to is a page.
   * Navigations that would leave the document are held. Answers the routes found, each
   * with the selector that reaches it, and goes back after each.
   */
  async probeRoutes(tried: Set<string>, limits: { max: number; budgetMs: number }): Promise<{ routes: ClientRoute[]; sections: SectionMove[] }> {
    return this.holding(undefined, (arm) => probeClientRoutes(this.page, tried, limits, { settle: async () => (await this.settle(this.visit, 1500)).state, state: () => this.state(), beforeClick: arm }));
  }

  /**
   * Loads `url`; waits for the page to be still when `waitForApi` (at most
   * `settleMs`), then reads the page.
   */
  async load(url: string, opts: { timeoutMs: number; waitForApi: boolean; settleMs?: number; pace?: Pace; followed?: boolean }): Promise<LoadedPage> {
    const visit: Visit = { calls: [] };
    this.visit = visit;
    this.pace = opts.pace ?? (async () => () => undefined);
    // A URL that differs from the tab's only in its hash would be a same-document move, with no response to read.
    if (new URL(url).hash && stripHash(this.page.url()) === stripHash(url)) await this.page.goto('about:blank').catch(() => undefined);
    // The turn is taken before the navigation starts, so the wait for it (behind another tab's slow page) does not
    // count against this navigation's timeout; the document's request uses it (see paused).
    const turn = await this.pace().catch(() => undefined);
    if (!turn) throw new Error(`The crawl stopped before ${url} was requested`);
    this.takenTurn = turn;
    let navError: unknown;
    await this.page.goto(url, { waitUntil: 'load', timeout: opts.timeoutMs }).catch((err: unknown) => (navError = err));
    // A navigation that sent no document (refused before it left) leaves its turn unused: it ends now.
    this.takenTurn?.();
    this.takenTurn = undefined;
    this.releaseTurns();
    const main = visit.main;
    if (!main) throw navError ?? new Error(`No response for ${url}`);
    // A folder's URL without its trailing slash, redirected to the same URL with it (static hosts do so): that is this
    // page, so the redirect is followed once (normalised, both are one URL and the Location would lead nowhere new).
    // A browser keeps the hash across a redirect (a hash route stays the page asked for).
    const moved = main.location ? withHash(new URL(main.location, url).href, new URL(url).hash) : undefined;
    if (!main.rendered && moved && moved !== url && normaliseUrl(moved) === normaliseUrl(url) && !opts.followed) return this.load(moved, { ...opts, followed: true });
    if (!main.rendered) {
      return { status_code: main.status, content_type: main.contentType, response_time_ms: main.ms, api_calls: [], ...(main.location ? { location: new URL(main.location, url).href } : {}) };
    }
    if (navError) throw navError;
    return this.read(visit, main, opts);
  }

  /**
   * Reaches `url` by navigating inside the app: loads `from`, clicks `selector`
   * (navigations held), and reads the page if the app moved to `url` without
   * loading a document. For a client-side route whose direct load the server
   * does not answer (no history fallback). Answers why not otherwise: the
   * click asked the server for a document (a server-side link, not a route),
   * or it did not lead there.
   */
  async loadVia(
    url: string,
    via: { from: string; selector: string },
    opts: { timeoutMs: number; waitForApi: boolean; settleMs?: number; pace?: Pace },
  ): Promise<{ page: LoadedPage } | { missed: 'server_link' | 'not_reached' }> {
    const start = await this.load(via.from, opts);
    if (!start.extract) return { missed: 'not_reached' };
    const visit = this.visit;
    const main = visit.main!;
    // The page clicked from made calls of its own: they are its, not the route's.
    visit.calls.length = 0;
    this.heldDocument = false;
    const clicked = await this.holding(undefined, async (arm) => {
      await arm();
      try {
        await this.page.locator(via.selector).first().click({ timeout: opts.timeoutMs });
        return true;
      } catch {
        return false;
      }
    });
    if (!clicked) return { missed: 'not_reached' };
    const read = await this.read(visit, main, opts);
    if (read.final_url && normaliseUrl(read.final_url) === normaliseUrl(url)) return { page: read };
    return { missed: this.heldDocument ? 'server_link' : 'not_reached' };
  }

  private async read(visit: Visit, main: NonNullable<Visit['main']>, opts: { waitForApi: boolean; settleMs?: number }): Promise<LoadedPage> {
    const settled: { still: boolean; state: PageState; extract?: PageExtract } = opts.waitForApi ? await this.settle(visit, opts.settleMs ?? DEFAULT_SETTLE_MS, true) : { still: true, state: await this.state() };
    const extract = settled.extract ?? (await extractPage(this.page));
    // Calls made while the page was read belong to this visit too.
    return {
      status_code: main.status,
      content_type: main.contentType,
      response_time_ms: main.ms,
      extract,
      api_calls: [...visit.calls],
      final_url: settled.state.href,
      routes: settled.state.routes,
      script_errors: settled.state.errors,
      still: settled.still,
      dynamic: settled.state.started > 0 || settled.state.mutations > 0 || settled.state.timers > 0,
    };
  }
}

/** The longest a page is waited on to get still after load (ms). */
export const DEFAULT_SETTLE_MS = 5000;

const stripHash = (url: string) => url.replace(/#.*$/, '');
const withHash = (url: string, hash: string) => (hash && !new URL(url).hash ? `${url}${hash}` : url);
