import type { BrowserContext, Page, Request, Route } from 'playwright-core';
import type { FormInfo } from '../db/database.js';
import { explorePage, type ExploreLimits } from './explore.js';
import { extractPage, type PageExtract } from './extract.js';

export interface ApiCall {
  method: string;
  url: string;
  status: number;
  response_time_ms: number;
  /** While exploring: the action that caused it (`form <selector>`, `button <text>`). */
  cause?: string;
  /** A form post (a document request), not an XHR/fetch call. */
  document?: boolean;
}

export interface LoadedPage {
  status_code: number;
  content_type: string;
  response_time_ms: number;
  /** Set when the response was a redirect: where it points. */
  location?: string;
  /** Only for HTML pages that rendered. */
  extract?: PageExtract;
  api_calls: ApiCall[];
}

/**
 * Waits for a page request's turn; resolves to the function to call once its
 * response arrived, or undefined when the crawl stopped meanwhile.
 */
export type Pace = () => Promise<(() => void) | undefined>;

interface Visit {
  main?: { status: number; contentType: string; ms: number; location?: string; rendered: boolean };
  calls: ApiCall[];
}

/** How long a page must start no new API call to count as settled (ms). */
const QUIET_MS = 30;

// Runs in every page before its scripts: counts the fetch/XHR calls they start.
const COUNT_CALLS = `(() => {
  let started = 0;
  const fetch = window.fetch;
  window.fetch = function (...args) { started++; return fetch.apply(this, args); };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) { started++; return send.apply(this, args); };
  Object.defineProperty(window, '__assayCallsStarted', { get: () => started });
})();`;
const READ_CALLS = new Function('return window.__assayCallsStarted || 0') as () => number;

const isApi = (r: Request) => r.resourceType() === 'xhr' || r.resourceType() === 'fetch';

/**
 * One reused browser tab. The main document of each visit is fetched through
 * a route, so its status and content type are known before rendering: HTML
 * renders, anything else (a PDF, JSON, a redirect) is recorded and not
 * rendered. The page's own XHR/fetch calls are recorded with their timings.
 */
export class PageLoader {
  private visit: Visit = { calls: [] };
  private pace: Pace = async () => () => undefined;
  /** Set while exploring: navigations do not leave the page, calls are tagged with this cause. */
  private cause: string | undefined;
  private exploring = false;

  private constructor(readonly page: Page) {}

  static async open(context: BrowserContext): Promise<PageLoader> {
    const loader = new PageLoader(await context.newPage());
    await loader.page.addInitScript(COUNT_CALLS);
    await loader.page.route('**/*', (route) => loader.handle(route));
    const visits = new WeakMap<Request, { visit: Visit; cause: string | undefined }>();
    loader.page.on('request', (r) => {
      if (!isApi(r)) return;
      visits.set(r, { visit: loader.visit, cause: loader.cause });
    });
    const done = async (r: Request, failed: boolean) => {
      if (!isApi(r)) return;
      const { visit: v, cause } = visits.get(r) ?? { visit: loader.visit, cause: loader.cause };
      const res = failed ? null : await r.response().catch(() => null);
      const t = r.timing();
      v.calls.push({
        method: r.method(),
        url: r.url(),
        status: res?.status() ?? 0,
        response_time_ms: Math.max(0, Math.round(t.responseEnd > 0 ? t.responseEnd : 0)),
        ...(cause ? { cause } : {}),
      });
    };
    loader.page.on('requestfinished', (r) => void done(r, false));
    loader.page.on('requestfailed', (r) => void done(r, true));
    return loader;
  }

  private async handle(route: Route): Promise<void> {
    const req = route.request();
    if (!req.isNavigationRequest() || req.frame() !== this.page.mainFrame()) return route.continue().catch(() => undefined);
    if (this.exploring) return this.handleWhileExploring(route);
    const visit = this.visit;
    try {
      // Pacing happens here, right before the request leaves, so the target never sees two closer than the delay.
      const done = await this.pace();
      if (!done) return void (await route.abort('aborted'));
      const t0 = Date.now();
      const res = await route.fetch({ maxRedirects: 0 }).finally(done);
      const contentType = (res.headers()['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const status = res.status();
      const html = status < 300 || status >= 400 ? contentType === 'text/html' || contentType === 'application/xhtml+xml' : false;
      visit.main = { status, contentType, ms: Date.now() - t0, rendered: html, ...(res.headers().location ? { location: res.headers().location } : {}) };
      if (html) await route.fulfill({ response: res });
      else await route.abort('aborted');
    } catch {
      // Refused, failed, or the context closed under it (pause, cancel, shutdown): the
      // navigation fails with it, and the caller records that. Nothing is rethrown here,
      // since Playwright would surface it as an unhandled rejection of the process.
      await route.abort('failed').catch(() => undefined);
    }
  }

  /**
   * While exploring, the page stays where it is: a GET navigation (a button
   * or link leading away) is not sent at all; a form post is sent, its answer
   * recorded as a call of the action that submitted it, and not rendered.
   */
  private async handleWhileExploring(route: Route): Promise<void> {
    const req = route.request();
    if (req.method() === 'GET' || !this.cause) return route.abort('aborted').catch(() => undefined);
    const visit = this.visit;
    const cause = this.cause;
    try {
      const done = await this.pace();
      if (!done) return void (await route.abort('aborted'));
      const t0 = Date.now();
      const res = await route.fetch({ maxRedirects: 0 }).finally(done);
      visit.calls.push({ method: req.method(), url: req.url(), status: res.status(), response_time_ms: Date.now() - t0, cause, document: true });
    } catch {
      // Refused by the egress proxy or failed: nothing was answered.
    }
    await route.abort('aborted').catch(() => undefined);
  }

  /** Waits until every API call the page started is recorded and it stayed quiet a moment, at most `ms`. */
  private async settle(visit: Visit, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    let quietSince = Date.now();
    let seen = -1;
    while (Date.now() < deadline) {
      const started = await this.page.evaluate(READ_CALLS).catch(() => 0);
      if (started !== seen) {
        seen = started;
        quietSince = Date.now();
      } else if (visit.calls.filter((c) => !c.document).length >= started && Date.now() - quietSince >= QUIET_MS) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /**
   * Explores the page loaded last (see explore.ts): fills and submits `forms`,
   * clicks in-page buttons. Answers the calls those actions caused, each with
   * its cause.
   */
  async explore(forms: FormInfo[], limits: ExploreLimits): Promise<ApiCall[]> {
    const visit = this.visit;
    const before = visit.calls.length;
    this.exploring = true;
    try {
      await explorePage(this.page, forms, limits, {
        mark: (a) => (this.cause = `${a.kind} ${a.selector}`),
        settle: () => this.settle(visit, 1500),
      });
    } finally {
      this.exploring = false;
      this.cause = undefined;
    }
    return visit.calls.slice(before).filter((c) => c.cause);
  }

  /**
   * Loads `url`; waits for the page's own API calls to settle when
   * `waitForApi` (at most `settleMs`), then reads the page.
   */
  async load(url: string, opts: { timeoutMs: number; waitForApi: boolean; settleMs?: number; pace?: Pace }): Promise<LoadedPage> {
    const visit: Visit = { calls: [] };
    this.visit = visit;
    this.pace = opts.pace ?? (async () => () => undefined);
    let navError: unknown;
    await this.page.goto(url, { waitUntil: 'load', timeout: opts.timeoutMs }).catch((err: unknown) => (navError = err));
    const main = visit.main;
    if (!main) throw navError ?? new Error(`No response for ${url}`);
    if (!main.rendered) {
      return { status_code: main.status, content_type: main.contentType, response_time_ms: main.ms, api_calls: [], ...(main.location ? { location: new URL(main.location, url).href } : {}) };
    }
    if (navError) throw navError;
    // The page counts the API calls its scripts start (COUNT_CALLS); wait until
    // each one started is recorded here as finished, and the page stayed quiet
    // for a moment, so late-starting calls are not missed.
    if (opts.waitForApi) await this.settle(visit, opts.settleMs ?? 3000);
    const extract = await extractPage(this.page);
    // Calls made while the page was read belong to this visit too.
    return { status_code: main.status, content_type: main.contentType, response_time_ms: main.ms, extract, api_calls: [...visit.calls] };
  }
}
