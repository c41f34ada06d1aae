/**
 * Chromium for the services that drive it (execution-runner, discovery-crawler):
 * the flags of DESIGN.md and a pool that keeps one browser per process.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Logger } from '@assay/logger';

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
];

/**
 * One Chromium per worker process, launched on first use and again if it
 * crashes; every test case gets its own context from it.
 */
export interface FreshPage {
  context: BrowserContext;
  page: Page;
}

export const VIEWPORT = { width: 1280, height: 720 };

export class BrowserPool {
  private browser: Promise<Browser> | undefined;
  private versionText: string | undefined;
  /** Fresh contexts made ahead of need, so page creation overlaps test work. */
  private readonly warm: Array<Promise<FreshPage>> = [];

  constructor(
    private readonly executablePath: string,
    private readonly logger: Logger,
  ) {}

  get(): Promise<Browser> {
    if (!this.browser) {
      const launching = chromium.launch({ executablePath: this.executablePath, headless: true, args: CHROMIUM_ARGS });
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

  private async create(): Promise<FreshPage> {
    const context = await (await this.get()).newContext({ viewport: VIEWPORT, ignoreHTTPSErrors: true });
    return { context, page: await context.newPage() };
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
