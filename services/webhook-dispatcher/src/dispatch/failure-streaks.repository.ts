import type { Kysely } from 'kysely';
import type { WebhookDatabase } from '../db/database.js';

type Db = Kysely<WebhookDatabase>;

/** A test case passed: its streak of consecutive failures ends. */
export async function resetFailureStreak(db: Db, orgId: string, testCaseId: string): Promise<void> {
  await db.deleteFrom('failure_streaks').where('org_id', '=', orgId).where('test_case_id', '=', testCaseId).execute();
}

/** A test case failed: its streak grows by one (starts at 1); returns the new length. */
export async function extendFailureStreak(db: Db, orgId: string, testCaseId: string): Promise<number> {
  const row = await db
    .insertInto('failure_streaks')
    .values({ org_id: orgId, test_case_id: testCaseId, count: 1 })
    .onConflict((oc) => oc.columns(['org_id', 'test_case_id']).doUpdateSet((eb) => ({ count: eb('failure_streaks.count', '+', 1) })))
    .returning('count')
    .executeTakeFirstOrThrow();
  return row.count;
}

/** The current streak of consecutive failures of a test case (0 when none). */
export async function findFailureStreak(db: Db, orgId: string, testCaseId: string): Promise<number> {
  const row = await db.selectFrom('failure_streaks').select('count').where('org_id', '=', orgId).where('test_case_id', '=', testCaseId).executeTakeFirst();
  return row?.count ?? 0;
}
