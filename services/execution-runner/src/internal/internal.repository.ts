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
