import type { EgressSettings } from '@assay/egress';
import type { Logger } from '@assay/logger';
import type { Step } from '@assay/steps';
import type { Fingerprint } from '../relocation/fingerprint.js';
import type { RerunCheck, SnapshotCheck, Verifier } from './verifier.js';

/**
 * The verifier, loaded on first use: Playwright and Chromium cost start-up
 * time a process that analyses nothing yet should not pay (seven processes
 * start at once under `make run`).
 */
export class LazyVerifier implements Pick<Verifier, 'checkSnapshot' | 'rerun'> {
  private loading: Promise<{ verifier: Verifier; close: () => Promise<void> }> | undefined;

  constructor(private readonly o: { chromiumPath: string; stepTimeoutMs: number; navigationTimeoutMs: number; logger: Logger; egress: EgressSettings }) {}

  private load() {
    this.loading ??= (async () => {
      const [{ BrowserPool }, { EgressPolicy }, { Verifier }] = await Promise.all([import('@assay/browser'), import('@assay/egress'), import('./verifier.js')]);
      const pool = new BrowserPool(this.o.chromiumPath, this.o.logger, new EgressPolicy(this.o.egress));
      return { verifier: new Verifier(pool, { stepTimeoutMs: this.o.stepTimeoutMs, navigationTimeoutMs: this.o.navigationTimeoutMs }), close: () => pool.close() };
    })();
    return this.loading;
  }

  async checkSnapshot(html: string, candidate: Fingerprint, action: string): Promise<SnapshotCheck> {
    return (await this.load()).verifier.checkSnapshot(html, candidate, action);
  }

  async rerun(steps: Step[], baseUrl: string, variables: Record<string, string>): Promise<RerunCheck> {
    return (await this.load()).verifier.rerun(steps, baseUrl, variables);
  }

  /** Closes the browser, if one was started. */
  async close(): Promise<void> {
    if (this.loading) await (await this.loading).close();
  }
}
