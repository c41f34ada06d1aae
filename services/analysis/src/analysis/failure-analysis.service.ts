import { conflict, iso, isUuid, notFound } from '@assay/http';
import { withTransaction } from '@assay/db';
import { TERMINAL } from '../clients/runner.client.js';
import type { AnalysisContext } from '../context.js';
import type { AnalysisItemRow, Suggestion } from '../db/database.js';
import { findAnalysis, findItem, insertRejection, listItems, markDue, recordWaiting, updateItem } from './analysis.repository.js';

/** Seconds a client waits before asking again while an analysis is produced. */
export const RETRY_AFTER_SECONDS = 2;

/** One item of the spec's failure analysis, with Assay's additions (triage, issue, suggestion state). */
export function toItemBody(row: AnalysisItemRow) {
  return {
    test_id: row.test_case_id,
    test_name: row.test_name,
    failure_category: row.category,
    confidence: Math.round(row.confidence * 100) / 100,
    summary: row.summary ?? row.description,
    next_step: row.next_step ?? row.fix_suggestions[0] ?? null,
    description: row.description,
    evidence: row.evidence,
    fix_suggestions: row.fix_suggestions,
    triage_type: row.triage_type,
    issue_id: row.issue_id,
    suggestion_state: row.suggestion_state,
    applied_at: iso(row.applied_at),
    rejected_at: iso(row.rejected_at),
  };
}

export type FailureAnalysisReply =
  | { status: 200; body: Record<string, unknown> }
  | { status: 202; body: Record<string, unknown>; retryAfter: number };

/**
 * The failure analysis of an execution: 200 once produced (a passed execution
 * has an empty `analysis`), 202 with Retry-After while the execution runs or
 * the analysis is being produced.
 * @throws AppError 404 for an execution the organization does not have.
 */
export async function getFailureAnalysis(ctx: AnalysisContext, orgId: string, id: string): Promise<FailureAnalysisReply> {
  if (!isUuid(id)) throw notFound('Execution');
  let row = await findAnalysis(ctx.db, orgId, id);
  if (!row || row.status === 'waiting') {
    // Not heard of yet (or its end not yet): the runner knows whether it exists and whether it ended.
    const run = await ctx.runner.execution(orgId, id);
    if (!run) throw notFound('Execution');
    if (TERMINAL.includes(run.status)) {
      await markDue(ctx.db, { id, org_id: orgId, project_id: run.project_id });
      ctx.workDue();
    } else await recordWaiting(ctx.db, { id, org_id: orgId, project_id: run.project_id });
    row = await findAnalysis(ctx.db, orgId, id);
  }
  if (!row) throw notFound('Execution');
  if (row.status === 'completed') {
    const items = await listItems(ctx.db, orgId, id);
    return { status: 200, body: { id, status: 'completed', produced_at: iso(row.completed_at), analysis: items.map(toItemBody) } };
  }
  if (row.status === 'failed') {
    return { status: 200, body: { id, status: 'failed', produced_at: iso(row.updated_at), error: `The analysis could not be produced: ${row.error ?? 'unknown error'}`, analysis: [] } };
  }
  const message =
    row.status === 'waiting'
      ? 'The execution is still running; its failure analysis is produced when it ends.'
      : 'The failure analysis is being produced (suggested selectors are verified by re-running the test).';
  return { status: 202, body: { id, status: row.status === 'waiting' ? 'waiting' : row.status, message, analysis: [] }, retryAfter: RETRY_AFTER_SECONDS };
}

async function itemOf(ctx: AnalysisContext, orgId: string, executionId: string, testId: string): Promise<AnalysisItemRow> {
  const row = isUuid(executionId) && isUuid(testId) ? await findItem(ctx.db, orgId, executionId, testId) : undefined;
  if (!row) throw notFound('Failure analysis of this test');
  return row;
}

/**
 * Writes the verified selector into the test case (the test-case service
 * emits `test.case.updated` with the change). Applying twice answers the same.
 * @throws AppError 404, 409 when nothing verified is offered or the case changed since the run.
 */
export async function applySuggestion(ctx: AnalysisContext, orgId: string, executionId: string, testId: string) {
  const item = await itemOf(ctx, orgId, executionId, testId);
  const s = item.suggestion as Suggestion | null;
  const body = (row: AnalysisItemRow, testCase?: Record<string, unknown>) => ({
    execution_id: executionId,
    test_id: testId,
    applied: true,
    selector: s!.selector,
    replaced: s!.expected_selector,
    step_ids: s!.step_ids,
    ...(s!.also?.length ? { also: s!.also.map((a) => ({ selector: a.selector, replaced: a.expected_selector, step_ids: a.step_ids })) } : {}),
    applied_at: iso(row.applied_at),
    ...(testCase ? { test_case: testCase } : {}),
  });
  if (item.suggestion_state === 'applied' && s) return body(item);
  if (!s || item.suggestion_state === 'none') throw conflict('This failure has no suggested selector to apply', { suggestion_state: item.suggestion_state });
  if (item.suggestion_state === 'rejected') throw conflict('The suggestion was rejected', { suggestion_state: item.suggestion_state });
  if (item.suggestion_state !== 'offered' || !s.verified) throw conflict('The suggestion was not verified (the snapshot check and the re-run must both pass); it is not applied', { suggestion_state: item.suggestion_state });
  let testCase: Record<string, unknown>;
  try {
    // The first broken step's replacement, then those of the later steps healed in the same verified re-run, in order;
    // each replaces a selector only, so the steps each call expects are the previous ones with that selector changed.
    let expected = s.steps as Array<Record<string, unknown>>;
    testCase = {};
    for (const r of [s, ...(s.also ?? [])]) {
      testCase = await ctx.testCases.replaceSelector(orgId, testId, { step_ids: r.step_ids, from: r.expected_selector, to: r.selector, expected_steps: expected, execution_id: executionId });
      expected = expected.map((st) => (r.step_ids.includes(st.step_id as string) ? { ...st, selector: r.selector } : st));
    }
  } catch (err) {
    // Two applies at once: the second finds the first's change.
    const now = await itemOf(ctx, orgId, executionId, testId);
    if (now.suggestion_state === 'applied') return body(now);
    throw err;
  }
  const row = await updateItem(ctx.db, item.id, { suggestion_state: 'applied', applied_at: new Date() });
  return body(row, testCase);
}

/**
 * Remembers that the suggested element is not the one for this step: it is
 * never offered again for it. Rejecting twice answers the same.
 * @throws AppError 404, 409 when there is nothing to reject or it was applied.
 */
export async function rejectSuggestion(ctx: AnalysisContext, orgId: string, executionId: string, testId: string, reason: string | undefined) {
  await itemOf(ctx, orgId, executionId, testId);
  return withTransaction(ctx.db, async (trx) => {
    const item = (await findItem(trx, orgId, executionId, testId, true))!;
    const s = item.suggestion as Suggestion | null;
    if (!s || item.suggestion_state === 'none') throw conflict('This failure has no suggestion to reject', { suggestion_state: item.suggestion_state });
    if (item.suggestion_state === 'applied') throw conflict('The suggestion was applied already; edit the test case to undo it', { suggestion_state: item.suggestion_state });
    let row = item;
    if (item.suggestion_state !== 'rejected') {
      await insertRejection(trx, { org_id: orgId, test_case_id: testId, step_id: item.step_id ?? '', candidate_signature: s.candidate_signature, selector: s.selector, reason: reason ?? null, item_id: item.id });
      const evidence = { ...(item.evidence as Record<string, unknown>), suggested_alternative: null, rejected_alternative: s.selector };
      row = await updateItem(trx, item.id, { suggestion_state: 'rejected', rejected_at: new Date(), evidence: JSON.stringify(evidence) });
    }
    return { execution_id: executionId, test_id: testId, rejected: true, selector: s.selector, rejected_at: iso(row.rejected_at) };
  });
}
