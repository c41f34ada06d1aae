import { sql, type Kysely } from 'kysely';
import type { ExecutionDatabase } from '../db/database.js';

type Db = Kysely<ExecutionDatabase>;

/** An execution's results without their diagnostics (those are large: one at a time). */
export async function findResultSummaries(db: Db, executionId: string) {
  return db
    .selectFrom('test_results')
    .select(['id', 'position', 'test_case_id', 'name', 'priority', 'steps_snapshot', 'status', 'duration_ms', 'error', 'error_step', 'screenshot_artifact_id', 'trace_artifact_id', 'steps', 'started_at', 'completed_at'])
    .where('execution_id', '=', executionId)
    .orderBy('position')
    .execute();
}

/** The stored diagnostics of one test case of an execution (every result of it, in run order). */
export async function findDiagnostics(db: Db, executionId: string, testCaseId: string) {
  return db
    .selectFrom('test_results')
    .select(['position', 'status', 'diagnostics'])
    .where('execution_id', '=', executionId)
    .where('test_case_id', '=', testCaseId)
    .orderBy('position')
    .execute();
}

/** The element fingerprints of every test of an execution (only that part of the diagnostics). */
export async function findFingerprints(db: Db, executionId: string) {
  return db
    .selectFrom('test_results')
    .select(['test_case_id', 'status', sql<unknown>`diagnostics->'fingerprints'`.as('fingerprints')])
    .where('execution_id', '=', executionId)
    .orderBy('position')
    .execute();
}

export interface ReportResultsFilter {
  projectId: string;
  from: Date;
  to: Date;
  testPlanIds?: string[];
  environments?: string[];
}

/** The most executions one report reads; a larger period answers 400 (narrow it). */
export const REPORT_MAX_EXECUTIONS = 5000;

/**
 * Finished plan executions (completed or failed, not cancelled) of a project
 * that ended in [from, to), with their results: what reports count.
 * Exploratory runs are not plan runs and are left out.
 */
export async function findReportResults(db: Db, orgId: string, f: ReportResultsFilter) {
  let q = db
    .selectFrom('executions')
    .select(['id', 'test_plan_id', 'test_plan_name', 'environment', 'status', 'started_at', 'completed_at'])
    .where('org_id', '=', orgId)
    .where('project_id', '=', f.projectId)
    .where('kind', 'in', ['plan', 'suite'])
    .where('status', 'in', ['completed', 'failed'])
    .where('completed_at', '>=', f.from)
    .where('completed_at', '<', f.to);
  // Named plans that are no ids match nothing (never "every plan").
  if (f.testPlanIds) {
    if (f.testPlanIds.length === 0) return { executions: [], results: [] };
    q = q.where('test_plan_id', 'in', f.testPlanIds);
  }
  if (f.environments?.length) {
    // '' stands for runs that named no environment.
    const named = f.environments.filter((e) => e !== '');
    const unnamed = f.environments.includes('');
    q = q.where((eb) => eb.or([...(named.length ? [eb('environment', 'in', named)] : []), ...(unnamed ? [eb('environment', 'is', null)] : [])]));
  }
  const executions = await q.orderBy('completed_at').orderBy('id').limit(REPORT_MAX_EXECUTIONS + 1).execute();
  const ids = executions.map((e) => e.id);
  const results = ids.length
    ? await db
        .selectFrom('test_results')
        .select(['execution_id', 'test_case_id', 'name', 'position', 'status', 'duration_ms', 'steps_snapshot', 'steps', 'completed_at'])
        .where('execution_id', 'in', ids.slice(0, REPORT_MAX_EXECUTIONS))
        .orderBy('execution_id')
        .orderBy('position')
        .execute()
    : [];
  return { executions, results };
}
