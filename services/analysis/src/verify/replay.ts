import type { Page } from 'playwright-core';
import { runStep, StepError, stepKind, type Step, type StepContext } from '@assay/steps';

/**
 * A verification re-run: the test's steps replayed through the runner's own
 * step engine (@assay/steps: the same waits, comparisons, error wording,
 * invalid-selector detection and egress handling). What this loop adds is the
 * verdict: an `upload` step (its file lives in the runner) and an action the
 * engine does not know make the re-run inconclusive rather than failed.
 */
export interface ReplayOptions {
  baseUrl: string;
  variables: Record<string, string>;
  stepTimeoutMs: number;
  navigationTimeoutMs: number;
  /** The egress policy and the proxy of the page's context: navigations are checked first, refusals named. */
  egress?: StepContext['egress'];
  /** Checked before every step: a replay stops when it turns true. */
  stopped?: () => boolean;
}

export type ReplayResult =
  | { status: 'passed'; steps: number }
  | { status: 'failed'; step: number; step_id: string; error: string }
  | { status: 'inconclusive'; step: number; reason: string };

/** Runs `steps` on `page` until one fails; never throws. */
export async function replay(page: Page, steps: Step[], o: ReplayOptions): Promise<ReplayResult> {
  const ctx: StepContext = { page, baseUrl: o.baseUrl, variables: o.variables, stepTimeoutMs: o.stepTimeoutMs, navigationTimeoutMs: o.navigationTimeoutMs };
  if (o.egress) ctx.egress = o.egress;
  for (const [i, step] of steps.entries()) {
    if (o.stopped?.()) return { status: 'inconclusive', step: i + 1, reason: 'stopped' };
    if (!stepKind(step.action)) return { status: 'inconclusive', step: i + 1, reason: `the replayer does not know the action "${step.action}"` };
    try {
      await runStep(ctx, step);
    } catch (err) {
      if (err instanceof StepError && err.type === 'unsupported') return { status: 'inconclusive', step: i + 1, reason: err.message };
      return { status: 'failed', step: i + 1, step_id: step.step_id, error: err instanceof Error ? err.message : String(err) };
    }
  }
  return { status: 'passed', steps: steps.length };
}
