import { chromium, type Browser } from 'playwright-core';
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
export class BrowserPool {
  private browser: Promise<Browser> | undefined;

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
    return (await this.get()).version();
  }

  async close(): Promise<void> {
    const b = this.browser;
    this.browser = undefined;
    await (await b?.catch(() => undefined))?.close().catch(() => undefined);
  }
}
