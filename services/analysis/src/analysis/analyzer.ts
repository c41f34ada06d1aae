import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { SecretMasker } from '@assay/contracts';
import type { TestCaseClient } from '../clients/test-case.client.js';
import { withTransaction } from '@assay/db';
import type { Logger } from '@assay/logger';
import { TERMINAL, type Diagnostics, type RunContext, type RunnerClient, type RunTestResult, type StepFingerprint } from '../clients/runner.client.js';
import type { AnalysisDatabase, AnalysisRow, NewAnalysisItemRow, Suggestion } from '../db/database.js';
import { FLAKY_WINDOW, flakinessOf } from './flakiness.js';
import { recordOccurrence } from '../issues/issues.repository.js';
import { elementSignature, type Fingerprint } from '../relocation/fingerprint.js';
import type { Step } from '@assay/steps';
import { healFurther, substitute, withoutStep, type Substitution } from '../verify/heal-steps.js';
import { selectorCandidates } from '../verify/selectors.js';
import type { RerunCheck, SnapshotCheck, Verifier } from '../verify/verifier.js';
import {
  backToWaiting,
  findKnownBySelector,
  findKnownElement,
  finishAnalysis,
  linkItemToIssue,
  lockIfHeld,
  recordKnownElements,
  recordRuns,
  rejectedSignatures,
  replaceItems,
  runHistory,
  type KnownElementRecord,
} from './analysis.repository.js';
import { normaliseError, TRIAGE } from './categories.js';
import { attributeDiff, present, type Verification } from './describe.js';
import { diagnose, fingerprintFromSelector, type Diagnosis, type KnownElement } from './diagnose.js';

export interface AnalyzerDeps {
  db: Kysely<AnalysisDatabase>;
  logger: Logger;
  runner: RunnerClient;
  /** Absent: no browser here; suggestions stay unverified. */
  verifier?: Pick<Verifier, 'checkSnapshot' | 'rerun'>;
  rerunEnabled: boolean;
  maxRerunsPerExecution: number;
  /** The project's variables and secrets for verification re-runs (absent: the run's own variables only). */
  testCases?: Pick<TestCaseClient, 'runVariables'>;
}

/** Broken steps of one case healed past the first, at most (each costs a re-run of the budget). */
const MAX_FURTHER_STEPS = 3;

/** An analysis that cannot be produced (the execution is gone): failed at once, no retry. */
export class PermanentAnalysisError extends Error {}

const pathOf = (url: string | null | undefined) => {
  try {
    return url ? new URL(url).pathname : '';
  } catch {
    return '';
  }
};

/** The element a failed step meant: a passing run of the step, else another test of this run, else any test with the selector, else the selector. */
async function knownElement(deps: AnalyzerDeps, run: RunContext, orgId: string, test: RunTestResult, stepId: string, selector: string | undefined, pageUrl: string | undefined, thisRun: StepFingerprint[]): Promise<KnownElement | undefined> {
  const own = await findKnownElement(deps.db, orgId, test.test_id, stepId);
  if (own && (!selector || own.selector === selector)) return { fingerprint: own.fingerprint as unknown as Fingerprint, source: 'history', execution_id: own.execution_id, seen_at: own.seen_at.toISOString(), page_url: own.page_url };
  if (!selector) return undefined;
  const sibling = thisRun.find((f) => f.selector === selector);
  if (sibling) return { fingerprint: sibling.fingerprint, source: 'run', execution_id: run.id };
  const other = await findKnownBySelector(deps.db, orgId, run.project_id, selector);
  if (other && (!pageUrl || !other.page_url || pathOf(other.page_url) === pathOf(pageUrl))) {
    return { fingerprint: other.fingerprint as unknown as Fingerprint, source: 'history', execution_id: other.execution_id, seen_at: other.seen_at.toISOString(), page_url: other.page_url };
  }
  const guessed = fingerprintFromSelector(selector);
  return guessed ? { fingerprint: guessed, source: 'selector' } : undefined;
}

const summary = (fp: Fingerprint) => ({
  tag: fp.tag,
  ...(fp.id ? { id: fp.id } : {}),
  ...(fp.testid ? { testid: fp.testid } : {}),
  text: (fp.text ?? '').slice(0, 80),
  ...(fp.accessible_name && fp.accessible_name !== fp.text ? { accessible_name: fp.accessible_name.slice(0, 80) } : {}),
  ...(fp.role ? { role: fp.role } : {}),
  ...(fp.xpath ? { xpath: fp.xpath } : {}),
});

/**
 * Produces the failure analysis of one ended execution: records every test's
 * run (flakiness history) and the elements its passed steps acted on, then
 * diagnoses each failed test, verifies suggested selectors twice (the DOM at
 * the failure, a re-run against the live target) and groups the failures
 * into issues, all written in one transaction while the lease is held.
 * Returns false when the execution turned out not to be over.
 */
export async function analyseExecution(deps: AnalyzerDeps, row: AnalysisRow, owner: string, stillHeld: () => boolean): Promise<boolean> {
  const { db, runner, logger } = deps;
  const orgId = row.org_id;
  const run = await runner.execution(orgId, row.id);
  if (!run) throw new PermanentAnalysisError('The execution no longer exists');
  if (!TERMINAL.includes(run.status)) {
    await backToWaiting(db, row.id, owner);
    return false;
  }
  const completedAt = new Date(run.completed_at ?? Date.now());
  const environment = run.environment ?? '';
  const ran = run.test_results.filter((t): t is RunTestResult & { status: 'passed' | 'failed' } => t.status === 'passed' || t.status === 'failed');
  // Idempotent: a retried analysis records the same rows.
  await recordRuns(
    db,
    ran.map((t) => ({
      execution_id: run.id,
      test_case_id: t.test_id,
      org_id: orgId,
      project_id: run.project_id,
      test_plan_id: run.test_plan_id,
      environment,
      test_case_version: t.test_case_version,
      status: t.status,
      completed_at: new Date(t.completed_at ?? completedAt),
    })),
  );
  const fingerprints = await runner.fingerprints(orgId, run.id);
  const known: KnownElementRecord[] = [];
  for (const t of fingerprints) {
    for (const f of t.fingerprints) {
      if (!f.selector || !f.fingerprint) continue;
      const { dom_path: _domPath, ...fp } = f.fingerprint;
      known.push({ org_id: orgId, project_id: run.project_id, test_case_id: t.test_id, step_id: f.step_id, selector: f.selector, page_url: null, fingerprint: JSON.stringify(fp), execution_id: run.id, seen_at: completedAt });
    }
  }
  const allFingerprints = fingerprints.flatMap((t) => t.fingerprints);

  let rerunsLeft = deps.rerunEnabled ? deps.maxRerunsPerExecution : 0;
  const items: Array<{ item: NewAnalysisItemRow; issue?: { normalized: string; stepIndex: number | null; stepDescription: string | null; title: string; flakiness: string | null } }> = [];
  for (const test of run.test_results.filter((t) => t.status === 'failed')) {
    if (!stillHeld()) return true;
    const diagnostics: Diagnostics = await runner.diagnostics(orgId, run.id, test.test_id, test.position);
    const index = diagnostics.failed_step?.index ?? test.error_step ?? 0;
    const step = test.steps[index - 1];
    const history = await runHistory(db, orgId, { test_case_id: test.test_id, test_plan_id: run.test_plan_id, environment, test_case_version: test.test_case_version }, FLAKY_WINDOW);
    const flakiness = flakinessOf(history);
    const selector = step?.selector;
    const knownEl = step ? await knownElement(deps, run, orgId, test, step.step_id, selector, diagnostics.page_url, allFingerprints) : undefined;
    const rejected = step ? await rejectedSignatures(db, orgId, test.test_id, step.step_id) : new Set<string>();
    let d = diagnose({ test, diagnostics, ...(knownEl ? { known: knownEl } : {}), flakiness, rejected });
    if (!d) continue;

    let verification: Verification | undefined;
    let suggestion: Suggestion | undefined;
    // A plausible pick (not confident: `ambiguous`) is verified too, and offered only when its re-run passed; a possible
    // one (an element said missing, its closest candidate below a pick) only when the case also failed without the step.
    const candidate = d.candidate;
    if ((d.category === 'selector_changed' || d.facts.possible) && candidate && step?.selector) {
      const knownFor = async (s: Step) => (await knownElement(deps, run, orgId, test, s.step_id, s.selector, undefined, allFingerprints))?.fingerprint;
      const failed = { index, stepId: step.step_id, selector: step.selector, action: step.action };
      const tier = d.facts.possible ? 'possible' : d.facts.ambiguous ? 'plausible' : 'confident';
      verification = await verify(deps, orgId, run, test, failed, candidate, tier, diagnostics, () => (rerunsLeft > 0 ? (rerunsLeft--, true) : false), knownFor);
      if (tier === 'possible' && verification.verified) {
        d = { ...d, category: 'selector_changed', facts: { ambiguous: true, possible: true } };
      }
      if (verification.selector && d.category === 'selector_changed' && (verification.verified || !d.facts.ambiguous)) {
        // Every step of the case that used a failed selector changes with it.
        const stepsUsing = (selector: string) => test.steps.filter((s) => s.selector === selector).map((s) => s.step_id);
        suggestion = {
          selector: verification.selector,
          expected_selector: step.selector,
          step_ids: stepsUsing(step.selector),
          candidate_signature: elementSignature(candidate),
          verified: verification.verified,
          steps: test.steps,
          ...(verification.verified && verification.further?.length ? { also: verification.further.map((f) => ({ selector: f.to, expected_selector: f.from, step_ids: stepsUsing(f.from), candidate_signature: f.candidate_signature })) } : {}),
        };
      }
    }
    const confidence = finalConfidence(d, verification);
    const text = present({ ...d, confidence }, { ...(step?.selector ? { expectedSelector: step.selector } : {}), ...(diagnostics.page_url ? { pageUrl: diagnostics.page_url } : {}), ...(test.completed_at ? { occurredAt: test.completed_at } : {}), ...(knownEl ? { known: knownEl } : {}), ...(verification ? { verification } : {}), baseUrl: run.base_url });
    const ranked = d.relocation?.ranked.slice(0, 3) ?? [];
    const candidates = diagnostics.candidates ?? [];
    const evidence: Record<string, unknown> = {
      expected_selector: step?.selector ?? null,
      suggested_alternative: verification?.verified ? (verification.selector ?? null) : null,
      screenshot: test.screenshot,
      error: test.error,
      failed_step: step ? { index, step_id: step.step_id, action: step.action, ...(step.description ? { description: step.description } : {}), ...(step.value !== undefined ? { value: step.value } : {}) } : null,
      page_url: diagnostics.page_url ?? null,
      ...d.facts,
      ...(d.underlying ? { underlying_category: d.underlying } : {}),
      flakiness,
      ...(knownEl ? { element: { source: knownEl.source, ...(knownEl.seen_at ? { seen_at: knownEl.seen_at } : {}), ...(knownEl.execution_id ? { execution_id: knownEl.execution_id } : {}), fingerprint: summary(knownEl.fingerprint) } } : {}),
      ...(ranked.length
        ? {
            candidates: ranked.map((r, i) => ({
              rank: i + 1,
              score: Math.round(r.score * 1000) / 1000,
              ...summary(candidates[r.index]!),
              selector_hint: selectorCandidates(candidates[r.index]!)[0]?.selector ?? null,
              factors: r.factors,
            })),
          }
        : {}),
      ...(d.candidate && knownEl ? { diff: attributeDiff(knownEl.fingerprint, d.candidate) } : {}),
      ...(d.relocation?.reason ? { relocation: d.relocation.reason } : {}),
      ...(verification
        ? {
            verification: {
              verified: verification.verified,
              selector: verification.selector ?? null,
              snapshot: verification.snapshot,
              rerun: verification.rerun,
              ...(verification.reruns ? { reruns: verification.reruns } : {}),
              ...(verification.stopped ? { stopped: verification.stopped } : {}),
              ...(verification.control ? { without_step: verification.control } : {}),
              ...(verification.further?.length ? { further_steps: verification.further.map((f) => ({ index: f.index, step_id: f.step_id, expected_selector: f.from, selector: f.to, pick: f.tier })) } : {}),
            },
          }
        : {}),
      ...(suggestion && !verification?.verified ? { unverified_alternative: suggestion.selector } : {}),
    };
    const normalized = normaliseError(test.error);
    items.push({
      item: {
        execution_id: run.id,
        org_id: orgId,
        project_id: run.project_id,
        test_case_id: test.test_id,
        test_name: test.name,
        position: test.position,
        step_id: step?.step_id ?? null,
        category: d.category,
        triage_type: TRIAGE[d.category],
        confidence,
        description: text.description,
        summary: text.summary,
        next_step: text.next_step,
        evidence: JSON.stringify(evidence),
        fix_suggestions: JSON.stringify(text.fix_suggestions),
        suggestion: suggestion ? JSON.stringify(suggestion) : null,
        suggestion_state: suggestion ? (suggestion.verified ? 'offered' : 'unverified') : 'none',
      },
      issue: {
        normalized,
        stepIndex: step ? index : null,
        stepDescription: step ? (step.description ?? `${step.action}${step.selector ? ` ${step.selector}` : step.value ? ` ${step.value}` : ''}`) : null,
        title: `${test.name}: ${text.summary}`.slice(0, 300),
        flakiness: flakiness.runs > 1 ? JSON.stringify(flakiness) : null,
      },
    });
  }

  await withTransaction(db, async (trx) => {
    if (!(await lockIfHeld(trx, row.id, owner))) {
      logger.warn({ execution: row.id }, 'lost the analysis lease; another worker will write it');
      return;
    }
    await recordKnownElements(trx, known);
    const written = await replaceItems(trx, run.id, items.map((i) => i.item));
    for (const [i, item] of written.entries()) {
      const meta = items[i]!.issue!;
      const signature = createHash('sha256').update(JSON.stringify([run.project_id, item.test_case_id, item.step_id, item.category, meta.normalized])).digest('hex');
      const issue = await recordOccurrence(trx, {
        org_id: orgId,
        project_id: run.project_id,
        signature,
        test_case_id: item.test_case_id,
        test_name: item.test_name,
        step_id: item.step_id,
        step_index: meta.stepIndex,
        step_description: meta.stepDescription,
        category: item.category,
        triage_type: item.triage_type,
        normalized_error: meta.normalized,
        title: meta.title,
        execution_id: run.id,
        item_id: item.id,
        occurred_at: completedAt,
        error: (item.evidence as Record<string, unknown>).error as string | null,
        confidence: item.confidence,
        flakiness: meta.flakiness,
      });
      await linkItemToIssue(trx, item.id, issue.id);
    }
    await finishAnalysis(trx, row.id, run.project_id);
  });
  return true;
}

/** Confidence after verification: proven suggestions rise, unproven ones fall, and say so. */
function finalConfidence(d: Diagnosis, v: Verification | undefined): number {
  const base = d.confidence;
  if (d.category !== 'selector_changed' || !v) return base;
  // A possible pick verified (by a re-run the test needed) is still less sure than a plausible one.
  if (v.verified) return d.facts.possible ? 0.8 : Math.round(Math.min(0.98, Math.max(base, 0.9)) * 100) / 100;
  if (v.snapshot.status === 'passed' && v.rerun.status === 'failed') return Math.round(Math.min(base, 0.35) * 100) / 100;
  if (v.snapshot.status === 'passed') return Math.round(Math.min(base, 0.65) * 100) / 100;
  return Math.round(Math.min(base, 0.4) * 100) / 100;
}

async function verify(
  deps: AnalyzerDeps,
  orgId: string,
  run: RunContext,
  test: RunTestResult,
  failed: { index: number; stepId: string; selector: string; action: string },
  candidate: Fingerprint,
  tier: Substitution['tier'],
  diagnostics: Diagnostics,
  takeRerun: () => boolean,
  knownFor: (step: Step) => Promise<Fingerprint | undefined>,
): Promise<Verification> {
  const skipped = (reason: string): SnapshotCheck => ({ status: 'skipped', reason, tried: 0 });
  if (!deps.verifier) return { snapshot: skipped('no browser in this process'), rerun: { status: 'skipped', reason: 'no browser in this process' }, verified: false };
  const verifier = deps.verifier;
  const snapshot: SnapshotCheck = diagnostics.html_truncated
    ? skipped('the page at the failure was larger than the 200 kB snapshot, even with its scripts and hidden parts emptied')
    : await verifier.checkSnapshot(diagnostics.html ?? '', candidate, failed.action);
  // Without a snapshot, the best selector from the fingerprint alone still gets the re-run.
  const selector = snapshot.selector ?? (snapshot.status === 'skipped' ? selectorCandidates(candidate)[0]?.selector : undefined);
  if (!selector || snapshot.status === 'failed') return { snapshot, rerun: { status: 'skipped', reason: 'the snapshot check did not pass' }, verified: false, ...(selector ? { selector } : {}) };
  if (!takeRerun()) return { snapshot, rerun: { status: 'skipped', reason: deps.rerunEnabled ? 'the re-run budget of this execution is spent' : 're-runs are turned off (ANALYSIS_RERUN_ENABLED)' }, verified: false, selector };
  // The project's variables and secrets, as the runner gave the run: in memory for the re-run only, masked in what it reports.
  const project = deps.testCases ? await deps.testCases.runVariables(orgId, run.project_id, run.environment).catch(() => ({ variables: {}, secrets: {} })) : { variables: {}, secrets: {} };
  const mask = new SecretMasker(Object.values(project.secrets));
  const variables = { ...project.variables, ...run.variables, ...Object.fromEntries(Object.entries(project.secrets).map(([k, v]) => [`secret.${k}`, v])) };
  const rerunWith = async (steps: Step[]) => {
    const { evidence, ...check } = await verifier.rerun(steps, run.base_url, variables, { capture: true });
    return { ...mask.deep(check), ...(evidence ? { evidence } : {}) };
  };
  const first: Substitution = { index: failed.index, step_id: failed.stepId, from: failed.selector, to: selector, candidate_signature: elementSignature(candidate), tier };
  const firstRerun = await rerunWith(substitute(test.steps, [first]));
  // A case broken in several steps: each re-run goes past the steps already healed.
  const { subs, reruns, last, stopped } = await healFurther(test.steps, first, firstRerun, { knownFor, checkSnapshot: (h, c, a) => verifier.checkSnapshot(h, c, a), rerun: rerunWith, takeRerun, maxFurther: MAX_FURTHER_STEPS });
  const { evidence: _evidence, ...rerun } = last;
  // A possible pick's pass counts only where the case needed the step: the same case without it must fail.
  let control: RerunCheck | undefined;
  if (tier === 'possible' && snapshot.status === 'passed' && rerun.status === 'passed') {
    if (!takeRerun()) control = { status: 'skipped', reason: 'the re-run budget of this execution is spent' };
    else {
      const { evidence: _e, ...check } = await rerunWith(withoutStep(test.steps, subs, failed.index));
      control = check;
    }
  }
  deps.logger.info({ execution: run.id, test: test.test_id, step: failed.stepId, selector, steps: subs.map((x) => x.index), rerun: rerun.status, ...(control ? { without_step: control.status } : {}) }, 'verification re-run');
  const verified = snapshot.status === 'passed' && rerun.status === 'passed' && (tier !== 'possible' || control?.status === 'failed');
  return { snapshot, rerun, verified, selector, further: subs.slice(1), reruns, ...(stopped ? { stopped } : {}), ...(control ? { control } : {}) };
}
