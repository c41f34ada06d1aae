/**
 * Chromium for the services that drive it (execution-runner, discovery-crawler):
 * the flags of DESIGN.md, tuned, and a pool that keeps one browser per process.
 */
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { EgressProxy, type EgressPolicy } from '@assay/egress';
import type { Logger } from '@assay/logger';

/**
 * The default browser (CHROMIUM_PATH): Debian's `chromium-headless-shell`, the
 * same Chromium build as `chromium` without the browser UI, which is what
 * Playwright itself runs headless. The full browser (`FULL_CHROMIUM_PATH`, new
 * headless mode) stays an option for headed runs or extensions; it costs about
 * 1.8x the wall time per case (see the execution-runner README, Performance).
 */
export const DEFAULT_CHROMIUM_PATH = '/usr/lib/chromium/chromium-headless-shell';
/** Debian's full `chromium` (CHROMIUM_PATH=/usr/bin/chromium). */
export const FULL_CHROMIUM_PATH = '/usr/bin/chromium';

/** Chromium flags of DESIGN.md, Browsers. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
  // Every connection of a context goes through its egress proxy (see BrowserPool.newContext);
  // WebRTC may not open UDP around it.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/**
 * Playwright's own `--disable-features` list (playwright-core 1.65). Chromium
 * honours only the last `--disable-features` switch and Playwright puts its
 * list first, so ours must repeat it. `test/browser.test.ts` reads the live
 * command line and fails when Playwright's list grows beyond this copy.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Features Assay turns off on top of Playwright's. For the full browser
 * (`FULL_CHROMIUM_PATH`, new headless mode; the headless shell has no window
 * and ignores them): every browser context opens a window
 * whose omnibox preloads two WebUI popups, each in a renderer process of its
 * own. Nothing headless ever shows them; they cost more CPU than the page under
 * test (see the execution-runner README, Performance).
 */
export const ASSAY_DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'WebUIOmniboxFullPopup'];

/** The launch arguments: DESIGN's flags and one merged `--disable-features`. */
export function chromiumArgs(extra: string[] = []): string[] {
  const features = [...new Set([...PLAYWRIGHT_DISABLED_FEATURES, ...ASSAY_DISABLED_FEATURES])];
  return [...CHROMIUM_ARGS, `--disable-features=${features.join(',')}`, ...extra];
}

export interface LaunchOptions {
  /** CHROMIUM_PATH. */
  executablePath: string;
  /** Default true. */
  headless?: boolean;
  /** Switches after Assay's own. */
  extraArgs?: string[];
}

/**
 * Launches Chromium with Assay's flags through playwright-core.
 * @throws when the executable is missing or the browser does not start.
 */
export function launchChromium(options: LaunchOptions): Promise<Browser> {
  // The service closes its browser when it stops: Playwright must not close it on the service's SIGTERM,
  // or a runner draining on SIGTERM would lose the browser its running executions use.
  return chromium.launch({
    executablePath: options.executablePath,
    headless: options.headless ?? true,
    args: chromiumArgs(options.extraArgs),
    handleSIGTERM: false,
    handleSIGINT: false,
    handleSIGHUP: false,
  });
}

/** A page for one test case, in a context of its own or in one recycled from an earlier case of the same run. */
export interface FreshPage {
  context: BrowserContext;
  page: Page;
  /** The context's egress proxy: what it refused, for diagnostics. */
  egress: EgressProxy;
  /** How long making the context (or recycling it), its proxy and its page took (ms). */
  createMs: number;
  /** What a recycle must undo, gathered while the context is used. */
  readonly usage: ContextUsage;
}

/** What a context has been used for since it was made. */
export interface ContextUsage {
  /** Origins that answered anything in this context since its last reset: whose storage a recycle clears. */
  readonly origins: Set<string>;
  /** An origin asked for HTTP authentication (401/407): the network session may hold credentials no reset can clear. */
  authChallenged: boolean;
  /** Test cases this context has been handed out for, the current one included. */
  cases: number;
}

/**
 * Recycling a context for the next test case of the same run instead of
 * making a new one: with `--renderer-process-limit=1` the next case's new page
 * reuses the context's renderer process, which saves most of a case's browser
 * CPU (a new renderer costs about 400 CPU ms on the bench's page; see the
 * execution-runner README, Performance).
 */
export interface RecycleOptions {
  /** Cases one context serves before it is closed for a new one (bounds what a long run accumulates). */
  maxCases: number;
}

/** The switch that lets a context's next page reuse its renderer process (Chromium never shares one between contexts). */
export const RECYCLE_ARGS = ['--renderer-process-limit=1'];

/** How long a recycle may take before the context is given up. */
const RECYCLE_TIMEOUT_MS = 10_000;

const originOf = (url: string): string | undefined => {
  try {
    const o = new URL(url).origin;
    return o === 'null' ? undefined : o;
  } catch {
    return undefined;
  }
};

/** A context whose every connection passes the egress policy. */
export interface GuardedContext {
  context: BrowserContext;
  egress: EgressProxy;
}

export const VIEWPORT = { width: 1280, height: 720 };

/**
 * One Chromium per worker process, launched on first use and again if it
 * crashes; every test case gets a page in a context no other run has used.
 */
export class BrowserPool {
  private browser: Promise<Browser> | undefined;
  private versionText: string | undefined;
  /** Fresh contexts made ahead of need, so page creation overlaps test work. */
  private readonly warm: Array<Promise<FreshPage>> = [];

  constructor(
    private readonly executablePath: string,
    private readonly logger: Logger,
    /** Decides what every context may connect to (DESIGN.md, Egress). */
    readonly egress: EgressPolicy,
    /** Set when the pool's user recycles contexts (`recycle`). */
    private readonly recycling?: RecycleOptions,
  ) {}

  get(): Promise<Browser> {
    if (!this.browser) {
      const launching = launchChromium({ executablePath: this.executablePath, ...(this.recycling ? { extraArgs: RECYCLE_ARGS } : {}) });
      this.browser = launching;
      launching.then(
        (b) =>
          b.on('disconnected', () => {
            this.logger.warn('chromium disconnected; the next test launches a new one');
            if (this.browser === launching) this.browser = undefined;
          }),
        () => {
          if (this.browser === launching) this.browser = undefined;
        },
      );
    }
    return this.browser;
  }

  async version(): Promise<string> {
    this.versionText ??= (await this.get()).version();
    return this.versionText;
  }

  /**
   * A new context routed through an egress proxy of its own: documents,
   * redirects, subresources, fetch/XHR, iframes, WebSockets and Playwright's
   * own `route.fetch` all connect through it, so none reaches an address the
   * policy refuses. The proxy closes with the context.
   */
  async newContext(options: BrowserContextOptions = {}): Promise<GuardedContext> {
    const egress = await EgressProxy.start(this.egress, { logger: this.logger });
    try {
      const context = await (await this.get()).newContext({ ...options, proxy: { server: egress.url } });
      context.once('close', () => void egress.close());
      return { context, egress };
    } catch (err) {
      await egress.close();
      throw err;
    }
  }

  private async create(): Promise<FreshPage> {
    const t0 = performance.now();
    const { context, egress } = await this.newContext({ viewport: VIEWPORT, ignoreHTTPSErrors: true });
    const usage: ContextUsage = { origins: new Set(), authChallenged: false, cases: 1 };
    context.on('response', (r) => {
      const origin = originOf(r.url());
      if (origin) usage.origins.add(origin);
      if (r.status() === 401 || r.status() === 407) usage.authChallenged = true;
    });
    const page = await context.newPage();
    return { context, egress, page, createMs: performance.now() - t0, usage };
  }

  /**
   * The context of a finished test case, made ready for the next case of the
   * same run as if it were new: a new page (fresh history, window name,
   * session storage, pointer and listeners) opened before the old pages
   * close, so it keeps their renderer process; then cookies, permissions, the
   * HTTP cache and every storage of each origin it reached (local storage,
   * IndexedDB, Cache Storage, service workers, ...) cleared, and the egress
   * proxy's connections and logs dropped. `undefined`, with the context
   * closed, when it cannot be made clean: an HTTP authentication challenge
   * (credentials may sit in the network session), `maxCases` reached, or a
   * step of the reset failing or taking over 10 s.
   */
  async recycle(used: FreshPage): Promise<FreshPage | undefined> {
    const { context, egress, usage } = used;
    const give = async () => {
      await context.close().catch(() => undefined);
      return undefined;
    };
    if (!this.recycling || usage.authChallenged || usage.cases >= this.recycling.maxCases || !context.browser()?.isConnected()) return give();
    const t0 = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const reset = async (): Promise<Page> => {
      const page = await context.newPage();
      await Promise.all(context.pages().filter((p) => p !== page).map((p) => p.close()));
      // Taken before clearing: an origin answering from now on is left for the next reset.
      const origins = [...usage.origins];
      usage.origins.clear();
      const cdp = await context.newCDPSession(page);
      try {
        await Promise.all([
          context.clearCookies(),
          context.clearPermissions(),
          cdp.send('Network.clearBrowserCache'),
          ...origins.map((origin) => cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })),
        ]);
      } finally {
        void cdp.detach().catch(() => undefined);
      }
      return page;
    };
    try {
      const page = await Promise.race([reset(), new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('recycle timed out')), RECYCLE_TIMEOUT_MS)))]);
      egress.reset();
      usage.cases += 1;
      return { context, egress, page, createMs: performance.now() - t0, usage };
    } catch (err) {
      this.logger.debug({ err }, 'could not recycle a browser context; the next case gets a new one');
      return give();
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A never-used context with one page: a warm one when ready, else a new
   * one. Keeps up to `ahead` more warming for the next cases.
   */
  async freshPage(ahead: number): Promise<FreshPage> {
    let fresh: FreshPage | undefined;
    while (!fresh && this.warm.length) {
      const candidate = await this.warm.shift()!.catch(() => undefined);
      if (candidate && !candidate.page.isClosed() && candidate.context.browser()?.isConnected()) fresh = candidate;
    }
    while (this.warm.length < ahead) {
      const next = this.create();
      next.catch(() => undefined);
      this.warm.push(next);
    }
    return fresh ?? this.create();
  }

  async close(): Promise<void> {
    for (const w of this.warm.splice(0)) void w.then((f) => f.context.close()).catch(() => undefined);
    const b = this.browser;
    this.browser = undefined;
    await (await b?.catch(() => undefined))?.close().catch(() => undefined);
  }
}
