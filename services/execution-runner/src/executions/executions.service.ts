import { randomUUID } from 'node:crypto';
import type { Plan } from '@assay/principal';
import { historyDays } from '../artifacts/artifacts.repository.js';
import { enqueueEvents } from '@assay/bus';
import { withTransaction } from '@assay/db';
import { conflict, iso, isUuid, notFound, validationError } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import type { Kysely } from 'kysely';
import type { PlanSnapshot, TestCaseClient } from '../clients/test-case.client.js';
import { TERMINAL, type ExecutionDatabase, type ExecutionRow, type TestResultRow, type TraceMode } from '../db/database.js';
import { artifactUrl, summaryEvent, visualBody } from '../execution-events.js';
import { createSuiteExecution } from '../suites/suite-runs.service.js';
import { baseUrlFor } from './base-url.js';
import {
  appendStreamEvent,
  cancelExecution,
  countAhead,
  findExecution,
  findExecutionById,
  findResults,
  insertQueuedExecution,
  listExecutions,
  recentAverageSeconds,
  recordSkippedCount,
  skipResults,
  streamEventsAfter,
  type ExecutionFilter,
} from './executions.repository.js';

export interface RunRequest {
  test_plan_id: string;
  project_id: string;
  timeout_seconds?: number;
  environment?: string;
  variables?: Record<string, string>;
  trace?: TraceMode;
}

/**
 * Snapshots the plan from test-case, stores the execution `queued` with one
 * pending result per active case, and asks the runners to run it, all in one
 * transaction (the command goes through the outbox).
 * @throws AppError 404 for an unknown plan, 400 for a plan of another project,
 * an unknown environment or a plan without active cases.
 */
export async function createExecution(ctx: ExecutionContext, orgId: string, plan: Plan, req: RunRequest): Promise<ExecutionRow> {
  const run = await prepareRun(ctx.testCases, orgId, req);
  return withTransaction(ctx.db, (trx) => insertExecution(trx, ctx.schema, orgId, plan, run, req));
}

export interface PreparedRun {
  snapshot: PlanSnapshot;
  baseUrl: string;
}

/**
 * The plan's snapshot and the base URL a run of it uses (schedules prepare
 * their runs the same way).
 * @throws AppError 404 for an unknown plan, 400 for a plan of another project,
 * an unknown environment or a plan without active cases.
 */
export async function prepareRun(testCases: TestCaseClient, orgId: string, req: RunRequest): Promise<PreparedRun> {
  if (!isUuid(req.test_plan_id)) throw notFound('Test plan');
  const snapshot = await testCases.snapshot(orgId, req.test_plan_id);
  if (snapshot.project.id !== req.project_id) {
    throw validationError([{ field: 'project_id', message: 'is not the project of this test plan' }]);
  }
  const baseUrl = baseUrlFor(snapshot.project, req.environment);
  if (snapshot.test_cases.length === 0) throw validationError([{ field: 'test_plan_id', message: 'the test plan has no active test cases to run' }]);
  return { snapshot, baseUrl };
}

/** What an exploratory test run adds to its execution row (its id is also its `test_plan_id`). */
export interface ExploratoryFields {
  id: string;
  name: string;
  discovery_session_id: string | null;
  /** A run of one stored test case. */
  test_case_id?: string | null;
}

/**
 * Stores a prepared run as a queued execution in the caller's transaction and
 * asks the runners to run it; its artifacts are kept for the `plan`'s history period.
 */
export async function insertExecution(trx: Kysely<ExecutionDatabase>, schema: string, orgId: string, plan: Plan, run: PreparedRun, req: Omit<RunRequest, 'test_plan_id'> & { rerun_of?: string }, exploratory?: ExploratoryFields): Promise<ExecutionRow> {
  const { snapshot, baseUrl } = run;
  const row = await insertQueuedExecution(
    trx,
    {
      ...(exploratory ? { id: exploratory.id, kind: 'run' as const, name: exploratory.name, discovery_session_id: exploratory.discovery_session_id, test_case_id: exploratory.test_case_id ?? null } : {}),
      ...(req.rerun_of ? { rerun_of: req.rerun_of } : {}),
      org_id: orgId,
      project_id: snapshot.project.id,
      project_name: snapshot.project.name,
      test_plan_id: snapshot.test_plan.id,
      test_plan_name: snapshot.test_plan.name,
      environment: req.environment ?? null,
      base_url: baseUrl,
      variables: JSON.stringify(req.variables ?? {}),
      timeout_seconds: req.timeout_seconds ?? 300,
      trace: req.trace ?? 'off',
      history_days: historyDays(plan),
      total_tests: snapshot.test_cases.length,
      error: null,
      lease_owner: null,
      cancellation_reason: null,
    },
    snapshot.test_cases,
  );
  await appendStreamEvent(trx, row.id, 'status', { status: 'queued', total: row.total_tests });
  await enqueueEvents(trx, schema, [
    { event: 'execution.requested', organization_id: orgId, project_id: row.project_id, key: row.id, data: { execution_id: row.id, attempt: 1 } },
  ]);
  return row;
}

/**
 * Runs an ended execution's failed cases (or `all` of them) again, in a new
 * execution with the same environment, variables, trace mode and timeout: a
 * plan run re-runs those cases as the plan holds them now; a run of one test
 * case runs that case again. The new execution names the old one in `rerun_of`.
 * @throws AppError 404 for an unknown execution, 409 while it runs, when no case
 * failed, when the failed cases left the plan, or for an exploratory run of steps.
 */
export async function rerunExecution(ctx: ExecutionContext, orgId: string, plan: Plan, id: string, only: 'failed' | 'all'): Promise<ExecutionRow> {
  const original = await getExecution(ctx, orgId, id);
  if (!TERMINAL.includes(original.status)) throw conflict(`The execution is ${original.status}; re-run it once it has ended`);
  const results = await findResults(ctx.db, original.id);
  // A case that failed, or never ran because the run stopped: it did not pass.
  const wanted = new Set(results.filter((r) => only === 'all' || r.status === 'failed' || r.status === 'skipped').map((r) => r.test_case_id));
  if (wanted.size === 0) throw conflict('Every case of this execution passed: there is nothing to re-run (send only: "all" to run them all again)');
  const options = {
    project_id: original.project_id,
    ...(original.environment ? { environment: original.environment } : {}),
    variables: original.variables,
    timeout_seconds: original.timeout_seconds,
    trace: original.trace,
    rerun_of: original.id,
  };
  if (original.kind === 'suite') return rerunSuite(ctx, orgId, plan, original, results, only);
  if (original.kind === 'run') {
    if (!original.test_case_id) throw conflict('An exploratory run of steps is run again by starting it again (POST /api/v1/test-runs)');
    return createCaseRun(ctx, orgId, plan, { ...options, test_case_id: original.test_case_id });
  }
  const snapshot = await ctx.testCases.snapshot(orgId, original.test_plan_id);
  const cases = snapshot.test_cases.filter((c) => wanted.has(c.id));
  if (cases.length === 0) throw conflict('The cases to re-run are no longer active in the plan');
  const run: PreparedRun = { snapshot: { ...snapshot, test_cases: cases }, baseUrl: baseUrlFor(snapshot.project, original.environment ?? undefined) };
  return withTransaction(ctx.db, (trx) => insertExecution(trx, ctx.schema, orgId, plan, run, options));
}

/**
 * A suite run again: the same version, options and environment; with
 * `failed`, only the tests that failed or did not run (by their exact titles).
 */
async function rerunSuite(ctx: ExecutionContext, orgId: string, plan: Plan, original: ExecutionRow, results: TestResultRow[], only: 'failed' | 'all'): Promise<ExecutionRow> {
  const o = original.suite_options!;
  const version = await ctx.db.selectFrom('suite_versions').select('version').where('id', '=', original.suite_version_id!).executeTakeFirst();
  if (!version) throw conflict('The suite version of this run is gone');
  const again = results.filter((r) => only === 'all' || r.status === 'failed' || r.status === 'skipped');
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const titles = again.map((r) => escape(String((r.suite_test?.title_path as string[] | undefined)?.at(-1) ?? r.name)));
  const grep = only === 'all' ? o.grep : `(?:${titles.join('|')})$`;
  const row = await createSuiteExecution(ctx, orgId, plan, {
    suite_id: original.test_plan_id,
    suite_version: version.version,
    project_id: original.project_id,
    ...(original.environment ? { environment: original.environment } : {}),
    timeout_seconds: original.timeout_seconds,
    trace: original.trace,
    ...(grep ? { grep } : {}),
    ...(o.projects.length ? { project: o.projects } : {}),
    shards: o.shards,
    ...(o.retries !== null ? { retries: o.retries } : {}),
    split: o.split,
  });
  await ctx.db.updateTable('executions').set({ rerun_of: original.id }).where('id', '=', row.id).execute();
  return { ...row, rerun_of: original.id };
}

/** Seconds until a new execution likely starts: the runs ahead of it times recent run durations. */
export async function estimateWaitSeconds(ctx: ExecutionContext, row: ExecutionRow): Promise<number> {
  return (await estimate(ctx, row)).waitSeconds;
}

/** The wait before a queued execution starts and how long a run takes, from the queue and recent runs. */
async function estimate(ctx: ExecutionContext, row: ExecutionRow): Promise<{ waitSeconds: number; runSeconds: number }> {
  const [ahead, average] = await Promise.all([countAhead(ctx.db, row.created_at), recentAverageSeconds(ctx.db)]);
  const runSeconds = average ?? row.total_tests * 2;
  return { waitSeconds: Math.max(0, Math.ceil((ahead * runSeconds) / Math.max(1, ctx.concurrency))), runSeconds };
}

export function queuedBody(row: ExecutionRow, estimatedWaitSeconds: number) {
  return { id: row.id, status: 'queued' as const, estimated_wait_seconds: estimatedWaitSeconds, polling_url: `/api/v1/executions/${row.id}/status` };
}

/**
 * A page of a project's executions (plan runs, or test runs with `kind: 'run'`).
 * With none at all, whether the project exists is asked of the test-case
 * service (another organization's answers as an unknown one).
 * @throws AppError 404 for a malformed or unknown project.
 */
export async function listExecutionPage(ctx: ExecutionContext, orgId: string, f: ExecutionFilter) {
  if (!isUuid(f.projectId)) throw notFound('Project');
  const page = await listExecutions(ctx.db, orgId, f);
  if (page.total === 0) await ctx.testCases.assertProject(orgId, f.projectId);
  return page;
}

/** The execution's stream events after `afterSeq`, oldest first. */
export function executionEventsAfter(ctx: ExecutionContext, executionId: string, afterSeq: number) {
  return streamEventsAfter(ctx.db, executionId, afterSeq);
}

export async function getExecution(ctx: ExecutionContext, orgId: string, id: string): Promise<ExecutionRow> {
  const row = isUuid(id) ? await findExecution(ctx.db, orgId, id) : undefined;
  if (!row) throw notFound('Execution');
  return row;
}

const durationSeconds = (e: ExecutionRow) =>
  e.completed_at && e.started_at ? Math.max(0, Math.round((e.completed_at.getTime() - e.started_at.getTime()) / 1000)) : e.completed_at ? 0 : null;

/**
 * What a person asks of a run: did it pass? `passed` only when every case
 * passed; `failed` when a case failed, was skipped or the run broke;
 * `cancelled`; null while it has not ended.
 */
export function outcomeOf(e: Pick<ExecutionRow, 'status' | 'passed_tests' | 'failed_tests' | 'total_tests'>): 'passed' | 'failed' | 'cancelled' | null {
  if (e.status === 'cancelled') return 'cancelled';
  if (e.status === 'failed') return 'failed';
  if (e.status !== 'completed') return null;
  return e.failed_tests === 0 && e.total_tests > 0 && e.passed_tests === e.total_tests ? 'passed' : 'failed';
}

export function toExecutionBody(e: ExecutionRow) {
  return {
    id: e.id,
    kind: e.kind,
    test_plan_id: e.test_plan_id,
    test_plan_name: e.kind === 'plan' ? e.test_plan_name : null,
    name: e.kind === 'plan' ? e.test_plan_name : (e.name ?? e.test_plan_name),
    project_id: e.project_id,
    project_name: e.project_name,
    test_case_id: e.test_case_id,
    rerun_of: e.rerun_of,
    status: e.status,
    outcome: outcomeOf(e),
    environment: e.environment,
    base_url: e.base_url,
    passed_tests: e.passed_tests,
    failed_tests: e.failed_tests,
    skipped_tests: e.skipped_tests,
    total_tests: e.total_tests,
    duration_seconds: durationSeconds(e),
    timeout_seconds: e.timeout_seconds,
    trace: e.trace,
    created_at: iso(e.created_at),
    started_at: iso(e.started_at),
    completed_at: iso(e.completed_at),
    cancelled_at: iso(e.cancelled_at),
    cancellation_reason: e.cancellation_reason,
    error: e.error,
  };
}

export function toTestResultBody(r: TestResultRow, publicBaseUrl: string) {
  return {
    test_id: r.test_case_id,
    name: r.name,
    status: r.status,
    duration_ms: r.duration_ms ?? 0,
    ...(r.error ? { error: r.error } : {}),
    ...(r.screenshot_artifact_id ? { screenshot: artifactUrl(publicBaseUrl, r.screenshot_artifact_id) } : {}),
    ...(r.trace_artifact_id ? { trace: artifactUrl(publicBaseUrl, r.trace_artifact_id) } : {}),
    ...(Array.isArray(r.diagnostics?.blocked_requests) ? { diagnostics: { blocked_requests: r.diagnostics.blocked_requests } } : {}),
    ...(r.suite_test ? suiteTestBody(r.suite_test, publicBaseUrl) : {}),
    steps: r.steps.map(({ screenshot_artifact_id, visual, ...s }) => ({
      ...s,
      ...(screenshot_artifact_id ? { screenshot: artifactUrl(publicBaseUrl, screenshot_artifact_id) } : {}),
      ...(visual ? { visual: visualBody(visual, publicBaseUrl) } : {}),
    })),
  };
}


/** What a Playwright test of a suite run adds to its result: where it lives, its attempts, flaky, output, attachments as URLs. */
function suiteTestBody(t: Record<string, unknown>, publicBaseUrl: string) {
  type Attempt = { retry: number; status: string; duration_ms: number; error?: string; attachments: Array<{ name: string; content_type: string; artifact_id?: string; not_stored?: string }> };
  const attempts = (Array.isArray(t.attempts) ? t.attempts : []) as Attempt[];
  return {
    suite_test: {
      project: t.project,
      file: t.file,
      line: t.line,
      title_path: t.title_path,
      tags: t.tags ?? [],
      outcome: t.outcome ?? null,
      stdout: t.stdout ?? '',
      stderr: t.stderr ?? '',
      attempts: attempts.map(({ attachments, ...a }) => ({ ...a, attachments: attachments.map(({ artifact_id, ...x }) => ({ ...x, ...(artifact_id ? { url: artifactUrl(publicBaseUrl, artifact_id) } : {}) })) })),
    },
    flaky: t.flaky === true,
    retries: typeof t.retries === 'number' ? t.retries : 0,
  };
}

export async function resultsOf(ctx: ExecutionContext, e: ExecutionRow) {
  const results = await findResults(ctx.db, e.id);
  const test_results = results.map((r) => toTestResultBody(r, ctx.publicBaseUrl));
  const count = (s: string) => results.filter((r) => r.status === s).length;
  return { test_results, summary: { total: results.length, passed: count('passed'), failed: count('failed'), skipped: count('skipped') } };
}

/** The status resource: progress while not finished, counts once finished. */
export async function statusBody(ctx: ExecutionContext, e: ExecutionRow) {
  if (TERMINAL.includes(e.status)) {
    return {
      id: e.id,
      status: e.status,
      passed_tests: e.passed_tests,
      failed_tests: e.failed_tests,
      total_tests: e.total_tests,
      duration_seconds: durationSeconds(e),
      completed_at: iso(e.completed_at),
    };
  }
  const current = e.passed_tests + e.failed_tests;
  const percent = e.total_tests ? Math.floor((current / e.total_tests) * 100) : 0;
  let estimated: Date | null = null;
  if (e.started_at && current > 0) {
    const elapsed = Date.now() - e.started_at.getTime();
    estimated = new Date(e.started_at.getTime() + (elapsed / current) * e.total_tests);
  } else {
    const { waitSeconds, runSeconds } = await estimate(ctx, e);
    estimated = new Date(Date.now() + (waitSeconds + runSeconds) * 1000);
  }
  return {
    id: e.id,
    status: e.status,
    progress: { current, total: e.total_tests, percent },
    started_at: iso(e.started_at),
    estimated_completion: iso(estimated),
  };
}

/**
 * Cancels a queued or running execution; runners see it within a second and
 * close its browser contexts. Unrun cases become `skipped`.
 * @throws AppError 409 when the execution already ended.
 */
export async function cancel(ctx: ExecutionContext, orgId: string, id: string) {
  const current = await getExecution(ctx, orgId, id);
  const row = await withTransaction(ctx.db, async (trx) => {
    const cancelled = await cancelExecution(trx, orgId, id);
    if (!cancelled) return undefined;
    await skipResults(trx, id, ['pending']);
    await recordSkippedCount(trx, id);
    await appendStreamEvent(trx, id, 'completed', { status: 'cancelled', cancellation_reason: 'requested' });
    // A cancelled execution emits no test.plan.completed: its summary goes out here.
    await enqueueEvents(trx, ctx.schema, [summaryEvent(cancelled)]);
    return cancelled;
  });
  if (!row) throw conflict(`The execution already ended (${current.status}); only queued or running executions can be cancelled`);
  return { id: row.id, status: 'cancelled' as const, cancellation_reason: 'requested', cancelled_at: iso(row.cancelled_at) };
}

/**
 * Waits until the execution ends or `timeoutMs` passes, woken by NOTIFY (a
 * slow re-check covers a missed notification); returns the latest row.
 */
export async function waitForEnd(ctx: ExecutionContext, id: string, timeoutMs: number): Promise<ExecutionRow> {
  const deadline = Date.now() + timeoutMs;
  let wake: () => void = () => undefined;
  const off = ctx.notifier.on(id, () => wake());
  try {
    for (;;) {
      const row = (await findExecutionById(ctx.db, id))!;
      if (TERMINAL.includes(row.status) || Date.now() >= deadline) return row;
      await new Promise<void>((resolve) => {
        // Woken by a notification, or re-checked after 5 s in case one was missed.
        const timer = setTimeout(resolve, Math.min(5000, Math.max(0, deadline - Date.now())));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    off();
  }
}

/** A run of one stored test case (POST /api/v1/test-runs with `test_case_id`, or the re-run of such a run). */
export interface CaseRunRequest {
  project_id: string;
  test_case_id: string;
  name?: string;
  environment?: string;
  variables?: Record<string, string>;
  timeout_seconds?: number;
  trace?: TraceMode;
  rerun_of?: string;
}

/**
 * Queues a run of one stored test case (the console's "Run" on a case's
 * page): its steps as they are now, under its own id, so the result links to
 * the case and an analysis's Apply fix edits it. An execution of kind `run`.
 * @throws AppError 404 for an unknown case or project, 400 for a case of
 * another project, an archived case or an unknown environment.
 */
export async function createCaseRun(
  ctx: ExecutionContext,
  orgId: string,
  plan: Plan,
  req: CaseRunRequest,
): Promise<ExecutionRow> {
  if (!isUuid(req.test_case_id)) throw notFound('Test case');
  const { test_case: tc, project } = await ctx.testCases.testCase(orgId, req.test_case_id);
  if (project.id !== req.project_id) throw validationError([{ field: 'test_case_id', message: 'is a test case of another project' }]);
  if (tc.status === 'archived') throw validationError([{ field: 'test_case_id', message: 'is archived: restore it to run it' }]);
  const baseUrl = baseUrlFor(project, req.environment);
  const id = randomUUID();
  const snapshot = { test_plan: { id, name: tc.name, project_id: project.id }, project, test_cases: [{ id: tc.id, name: tc.name, priority: tc.priority ?? 'medium', steps: tc.steps }] };
  return withTransaction(ctx.db, (trx) => insertExecution(trx, ctx.schema, orgId, plan, { snapshot, baseUrl }, req, { id, name: tc.name, discovery_session_id: null, test_case_id: tc.id }));
}
