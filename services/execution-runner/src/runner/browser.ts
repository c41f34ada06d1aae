import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '@assay/browser';
import type { Logger } from '@assay/logger';

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
      const launching = launchChromium({ executablePath: this.executablePath });
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
