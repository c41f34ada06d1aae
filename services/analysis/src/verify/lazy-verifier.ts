import type { EgressSettings } from '@assay/egress';
import type { Logger } from '@assay/logger';
import type { Step } from '@assay/steps';
import type { Fingerprint } from '../relocation/fingerprint.js';
import type { RerunCheck, RerunEvidence, SnapshotCheck, Verifier } from './verifier.js';

/** A verifier made on first use, and how to close what it started. */
export interface OpenedVerifier {
  verifier: Verifier;
  close: () => Promise<void>;
}

/**
 * The verifier, opened on first use: Playwright and Chromium cost start-up
 * time a process that analyses nothing yet should not pay (seven processes
 * start at once under `make run`).
 */
export class LazyVerifier implements Pick<Verifier, 'checkSnapshot' | 'rerun'> {
  private opening: Promise<OpenedVerifier> | undefined;

  constructor(private readonly open: () => Promise<OpenedVerifier>) {}

  private load() {
    this.opening ??= this.open();
    return this.opening;
  }

  async checkSnapshot(html: string, candidate: Fingerprint, action: string): Promise<SnapshotCheck> {
    return (await this.load()).verifier.checkSnapshot(html, candidate, action);
  }

  // Every option is forwarded: without `capture` a re-run brings back no page, and a case broken in two steps stops at its first fix.
  async rerun(steps: Step[], baseUrl: string, variables: Record<string, string>, opts: { capture?: boolean } = {}): Promise<RerunCheck & { evidence?: RerunEvidence }> {
    return (await this.load()).verifier.rerun(steps, baseUrl, variables, opts);
  }

  /** Closes the browser, if one was started. */
  async close(): Promise<void> {
    if (this.opening) await (await this.opening).close();
  }
}

/** Opens the verifier with its own browser pool, importing Playwright only then. */
export function importVerifier(o: { chromiumPath: string; stepTimeoutMs: number; navigationTimeoutMs: number; logger: Logger; egress: EgressSettings }): () => Promise<OpenedVerifier> {
  return async () => {
    const [{ BrowserPool }, { EgressPolicy }, { Verifier }] = await Promise.all([import('@assay/browser'), import('@assay/egress'), import('./verifier.js')]);
    const pool = new BrowserPool(o.chromiumPath, o.logger, new EgressPolicy(o.egress));
    return { verifier: new Verifier(pool, { stepTimeoutMs: o.stepTimeoutMs, navigationTimeoutMs: o.navigationTimeoutMs }), close: () => pool.close() };
  };
}
