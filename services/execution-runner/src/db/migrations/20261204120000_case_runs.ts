import type { Kysely } from 'kysely';

// Issue 31: a run of one stored test case (kind `run`, `test_case_id` set) and re-runs of a run's failed cases (`rerun_of`).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('executions').addColumn('test_case_id', 'uuid').addColumn('rerun_of', 'uuid').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('executions').dropColumn('test_case_id').dropColumn('rerun_of').execute();
}
