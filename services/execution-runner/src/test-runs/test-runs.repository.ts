import type { Kysely } from 'kysely';
import type { ExecutionDatabase } from '../db/database.js';

/** Records the test case an exploratory run was saved as. */
export async function markSaved(db: Kysely<ExecutionDatabase>, id: string, testCaseId: string): Promise<void> {
  await db.updateTable('executions').set({ saved_test_case_id: testCaseId }).where('id', '=', id).where('kind', '=', 'run').execute();
}
