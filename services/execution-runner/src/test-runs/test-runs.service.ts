import { randomUUID } from 'node:crypto';
import type { Plan } from '@assay/principal';
import { validateSteps, type Step } from '@assay/contracts';
import { withTransaction } from '@assay/db';
import { AppError, conflict, iso, isUuid, notFound, validationError } from '@assay/http';
import type { SnapshotCase } from '../db/database.js';
import { TERMINAL, type ExecutionRow, type TraceMode } from '../db/database.js';
import type { ExecutionContext } from '../context.js';
import { findExecution, findResults } from '../executions/executions.repository.js';
import { baseUrlFor } from '../executions/base-url.js';
import { createCaseRun, insertExecution, toExecutionBody } from '../executions/executions.service.js';
import { markSaved } from './test-runs.repository.js';

export interface TestRunRequest {
  project_id: string;
  name?: string;
  steps?: Array<Record<string, unknown>>;
  discovery_session_id?: string;
  /** Run this stored test case (its current steps, under its own id). */
  test_case_id?: string;
  environment?: string;
  variables?: Record<string, string>;
  timeout_seconds?: number;
  trace?: TraceMode;
}

export interface SaveRequest {
  name: string;
  description?: string;
  tags?: string[];
  test_plan_id?: string;
}

/** Steps as the runner stores them: fresh step ids (a saved run keeps them, so its fingerprints stay linked). */
function withStepIds(steps: Array<Record<string, unknown>>): Step[] {
  return steps.map((s) => {
    const { step_id: _given, ...rest } = s;
    return { step_id: randomUUID(), ...rest } as Step;
  });
}

/**
 * Queues an exploratory run: the request's steps as one test, or every flow
 * of a discovery session as generated test cases, in an execution of kind
 * `run` that the runners take like any other (results, artifacts, stream,
 * events and failure analysis come with it).
 * @throws AppError 400 for invalid steps, an unknown environment, a session of
 * another project; 404 for an unknown project or session; 409 for a session
 * without flows; 501 when the runner has no discovery service to ask.
 */
export async function createTestRun(ctx: ExecutionContext, orgId: string, plan: Plan, req: TestRunRequest): Promise<ExecutionRow> {
  const sources = [req.steps, req.discovery_session_id, req.test_case_id].filter((x) => x !== undefined).length;
  if (sources !== 1) throw validationError([{ field: 'steps', message: 'give one of steps, discovery_session_id or test_case_id' }]);
  if (req.test_case_id !== undefined) return createCaseRun(ctx, orgId, plan, { ...req, test_case_id: req.test_case_id });
  if (req.steps !== undefined) {
    const errors = validateSteps(req.steps);
    if (errors.length) throw validationError(errors);
  }
  if (!isUuid(req.project_id)) throw notFound('Project');
  const project = await ctx.testCases.project(orgId, req.project_id);
  const baseUrl = baseUrlFor(project, req.environment);

  let cases: SnapshotCase[];
  let name = req.name;
  if (req.steps !== undefined) {
    cases = [{ id: randomUUID(), name: name ?? 'Exploratory run', priority: 'medium', steps: withStepIds(req.steps) }];
  } else {
    if (!ctx.discovery) throw new AppError('not_implemented', 'Runs of discovery sessions need DISCOVERY_CRAWLER_URL on the execution-runner');
    if (!isUuid(req.discovery_session_id)) throw notFound('Discovery session');
    const generated = await ctx.discovery.sessionCases(orgId, req.discovery_session_id!);
    if (generated.project_id !== project.id) throw validationError([{ field: 'discovery_session_id', message: 'is a session of another project' }]);
    if (generated.test_cases.length === 0) throw conflict('The session’s flows gave no runnable test cases');
    cases = generated.test_cases.map((c) => ({ id: randomUUID(), name: c.name, priority: c.priority ?? 'medium', steps: withStepIds(c.steps) }));
    name ??= `Discovery session ${generated.session_id}`;
  }
  const id = randomUUID();
  const snapshot = { test_plan: { id, name: name ?? 'Exploratory run', project_id: project.id }, project, test_cases: cases };
  return withTransaction(ctx.db, (trx) =>
    insertExecution(trx, ctx.schema, orgId, plan, { snapshot, baseUrl }, req, { id, name: snapshot.test_plan.name, discovery_session_id: req.discovery_session_id ?? null }),
  );
}

/** An exploratory run of the organization; plan executions and other organizations' runs answer as unknown. */
export async function getTestRun(ctx: ExecutionContext, orgId: string, id: string): Promise<ExecutionRow> {
  const row = isUuid(id) ? await findExecution(ctx.db, orgId, id) : undefined;
  if (!row || row.kind !== 'run') throw notFound('Test run');
  return row;
}

export function toTestRunBody(e: ExecutionRow) {
  const { test_plan_id: _self, ...body } = toExecutionBody(e);
  return { ...body, name: e.name, discovery_session_id: e.discovery_session_id, saved_test_case_id: e.saved_test_case_id, stream_url: `/api/v1/test-runs/${e.id}/stream` };
}

/**
 * Saves a finished single-test run as a test case (appended to `test_plan_id`
 * when given). The case keeps the run's test id and step ids, so the element
 * fingerprints the run captured (and the analysis recorded) are its history.
 * @throws AppError 409 while the run is still going or once it was saved, 400
 * for a run of several tests, plus test-case's refusals (400, 404).
 */
export async function saveTestRun(ctx: ExecutionContext, orgId: string, id: string, req: SaveRequest) {
  const run = await getTestRun(ctx, orgId, id);
  if (!TERMINAL.includes(run.status)) throw conflict(`The run is ${run.status}; save it once it has ended`);
  if (run.saved_test_case_id) throw conflict(`The run was saved already as test case ${run.saved_test_case_id}`);
  const results = await findResults(ctx.db, run.id);
  if (results.length !== 1) {
    throw validationError([{ field: 'id', message: 'only a run of steps (one test) can be saved; save a discovery session’s cases with POST /api/v1/discovery/{session_id}/generate-test-cases' }]);
  }
  const test = results[0]!;
  const created = await ctx.testCases.createKeepingIds(
    orgId,
    run.project_id,
    { id: test.test_case_id, name: req.name, ...(req.description !== undefined ? { description: req.description } : {}), ...(req.tags ? { tags: req.tags } : {}), steps: test.steps_snapshot },
    req.test_plan_id,
  );
  await markSaved(ctx.db, run.id, created.id);
  return { test_run_id: run.id, test_plan_id: req.test_plan_id ?? null, test_case: created, saved_at: iso(new Date()) };
}
