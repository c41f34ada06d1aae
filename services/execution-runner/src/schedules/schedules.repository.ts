import { sql, type Kysely } from 'kysely';
import { selectPage } from '@assay/db';
import type { ExecutionDatabase, ScheduleRow, ScheduleTable } from '../db/database.js';
import type { Insertable, Updateable } from 'kysely';

type Db = Kysely<ExecutionDatabase>;

export async function insertSchedule(db: Db, row: Insertable<ScheduleTable>): Promise<ScheduleRow> {
  return db.insertInto('schedules').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findSchedule(db: Db, orgId: string, planId: string, id: string): Promise<ScheduleRow | undefined> {
  return db.selectFrom('schedules').selectAll().where('org_id', '=', orgId).where('test_plan_id', '=', planId).where('id', '=', id).executeTakeFirst();
}

export async function listSchedules(db: Db, orgId: string, planId: string, limit: number, offset: number) {
  const base = db.selectFrom('schedules').where('org_id', '=', orgId).where('test_plan_id', '=', planId);
  return selectPage(base.selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset), base);
}

export async function countSchedules(db: Db, orgId: string, planId: string): Promise<number> {
  const row = await db.selectFrom('schedules').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).where('test_plan_id', '=', planId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateSchedule(db: Db, id: string, patch: Updateable<ScheduleTable>): Promise<ScheduleRow> {
  return db.updateTable('schedules').set({ ...patch, updated_at: sql`now()` }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteSchedule(db: Db, orgId: string, planId: string, id: string): Promise<boolean> {
  const res = await db.deleteFrom('schedules').where('org_id', '=', orgId).where('test_plan_id', '=', planId).where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/**
 * The most overdue enabled schedule, locked for the caller's transaction;
 * rows other schedulers hold are skipped, so each is handled by one of them,
 * and so are those in `skip` (they failed earlier in this pass).
 */
export async function claimDueSchedule(db: Db, now: Date, skip: readonly string[] = []): Promise<ScheduleRow | undefined> {
  return db
    .selectFrom('schedules')
    .selectAll()
    .where('enabled', '=', true)
    .where('next_run_at', '<=', now)
    .$if(skip.length > 0, (q) => q.where('id', 'not in', skip))
    .orderBy('next_run_at')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

/** Records an occurrence as handled; false when it was handled before (its key is schedule and occurrence). */
export async function recordRun(
  db: Db,
  run: { schedule_id: string; scheduled_for: Date; status: 'started' | 'skipped'; execution_id: string | null; reason: string | null; missed_occurrences: number },
): Promise<boolean> {
  const row = await db.insertInto('schedule_runs').values(run).onConflict((oc) => oc.columns(['schedule_id', 'scheduled_for']).doNothing()).returning('schedule_id').executeTakeFirst();
  return row !== undefined;
}
