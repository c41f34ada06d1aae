import type { Step } from '@assay/steps';
import { elementSignature, type Fingerprint } from '../relocation/fingerprint.js';
import { assayRelocate, contradicts } from '../relocation/scorers.js';
import type { RerunCheck, RerunEvidence, SnapshotCheck } from './verifier.js';

/** One healed step: its old selector replaced by a new one, nothing else of the step touched. */
export interface Substitution {
  /** 1-based index of the step that failed. */
  index: number;
  step_id: string;
  from: string;
  to: string;
  candidate_signature: string;
  /**
   * `confident` picks are applied once verified; `plausible` ones are offered only when the re-run passed;
   * `possible` ones only when, besides, the case without the step failed (`withoutStep`).
   */
  tier: 'confident' | 'plausible' | 'possible';
}

/** One verification re-run: the steps whose selectors it had replaced, and how it ended. */
export interface CoveredRerun {
  steps: number[];
  status: RerunCheck['status'];
  failed_step?: number;
  reason: string;
}

/**
 * The steps with the substitutions made: a step whose selector is a
 * substitution's old one gets the new one, and only its selector changes
 * (expected values, URLs, counts and every other field stay as written).
 */
export function substitute(steps: Step[], subs: Substitution[]): Step[] {
  return steps.map((s) => {
    const sub = subs.find((x) => x.from === s.selector);
    return sub ? { ...s, selector: sub.to } : s;
  });
}

export interface HealFurtherDeps {
  /** The element a step meant, as a passing run saw it. */
  knownFor: (step: Step) => Promise<Fingerprint | undefined>;
  checkSnapshot: (html: string, candidate: Fingerprint, action: string) => Promise<SnapshotCheck>;
  rerun: (steps: Step[]) => Promise<RerunCheck & { evidence?: RerunEvidence }>;
  /** Takes one re-run from the execution's budget; false when it is spent. */
  takeRerun: () => boolean;
  /** Broken steps healed past the first at most. */
  maxFurther: number;
}

/**
 * Verification that fits a case broken in several steps: the re-run with the
 * first step's suggestion goes on past it; when it then fails at a later step
 * whose element is not found, that step is relocated in the re-run's own
 * page (the element as a passing run saw it, every candidate there) and the
 * next re-run carries both suggestions, and so on. Returns every re-run
 * with the steps it covered, and the substitutions of the last one.
 */
export async function healFurther(steps: Step[], first: Substitution, firstRerun: RerunCheck & { evidence?: RerunEvidence }, d: HealFurtherDeps): Promise<{ subs: Substitution[]; reruns: CoveredRerun[]; last: RerunCheck & { evidence?: RerunEvidence }; stopped?: string }> {
  const subs = [first];
  const covered = (r: RerunCheck): CoveredRerun => ({ steps: subs.map((s) => s.index), status: r.status, ...(r.failed_step ? { failed_step: r.failed_step } : {}), reason: r.reason });
  const reruns = [covered(firstRerun)];
  let rerun = firstRerun;
  // Why the step-by-step verification went no further, for a re-run that still failed.
  const stop = (why: string) => ({ subs, reruns, last: rerun, stopped: `step ${rerun.failed_step ?? '?'}: ${why}` });
  while (rerun.status === 'failed') {
    if (!rerun.evidence) return stop('the re-run kept no evidence of its failure');
    if (subs.length > d.maxFurther) return stop(`no more than ${d.maxFurther + 1} broken steps are healed in one case`);
    const at = rerun.failed_step ?? 0;
    const step = steps[at - 1];
    // Only a later step whose element is no longer found is another broken locator.
    if (!step?.selector || at <= Math.max(...subs.map((s) => s.index))) return stop('the re-run failed at or before a step already healed');
    if (rerun.evidence.target?.count !== 0) return stop('the step failed for another reason than its element not being found');
    const known = await d.knownFor(step);
    const candidates = rerun.evidence.candidates as Fingerprint[];
    if (!known) return stop('no passing run has recorded this step\'s element');
    if (!candidates.length) return stop('the re-run\'s page had no candidate elements');
    const relocation = assayRelocate(known, candidates);
    const pick = relocation.best ? candidates[relocation.best.index] : undefined;
    if (!pick) return stop(relocation.reason ?? 'no candidate is likely enough to be the element');
    if (pick.enabled === false || contradicts(known, pick)) return stop('the closest candidate is disabled or contradicts the element');
    const snapshot = await d.checkSnapshot(rerun.evidence.html, pick, step.action);
    if (snapshot.status !== 'passed' || !snapshot.selector) return stop(`the snapshot check did not pass (${snapshot.reason})`);
    if (!d.takeRerun()) return stop('the re-run budget of this execution is spent');
    subs.push({ index: at, step_id: step.step_id, from: step.selector, to: snapshot.selector, candidate_signature: elementSignature(pick), tier: relocation.outlier ? 'confident' : 'plausible' });
    rerun = await d.rerun(substitute(steps, subs));
    reruns.push(covered(rerun));
  }
  return { subs, reruns, last: rerun };
}

/**
 * The control of a re-run that passed with a substitution for the step at
 * `index` (1-based): the same case, every substitution made, that step left
 * out. When it fails, the case needed what the step did, and the re-run's
 * pass says the new element did it; when it passes too, the re-run says
 * nothing about the element (a wrong tab clicked in a case that asserts
 * nothing behind it passes as well).
 */
export function withoutStep(steps: Step[], subs: Substitution[], index: number): Step[] {
  return substitute(steps, subs).filter((_, i) => i !== index - 1);
}
