import { sql, type Kysely } from 'kysely';
import { selectPage } from '@assay/db';
import type { AnalysisDatabase, ReportDefinitionRow, ReportSnapshotRow } from '../db/database.js';

type Db = Kysely<AnalysisDatabase>;

export async function insertReport(
  db: Db,
  row: { org_id: string; project_id: string; name: string; kind: string; filters: string; period: string; schedule_cron: string | null; schedule_timezone: string | null; next_snapshot_at: Date | null },
): Promise<ReportDefinitionRow> {
  return db.insertInto('report_definitions').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findReport(db: Db, orgId: string, id: string): Promise<ReportDefinitionRow | undefined> {
  return db.selectFrom('report_definitions').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

export async function listReports(db: Db, orgId: string, projectId: string, limit: number, offset: number) {
  const q = db.selectFrom('report_definitions').where('org_id', '=', orgId).where('project_id', '=', projectId);
  return selectPage(q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset), q);
}

export async function updateReport(db: Db, orgId: string, id: string, patch: Record<string, unknown>): Promise<ReportDefinitionRow | undefined> {
  return db.updateTable('report_definitions').set({ ...patch, updated_at: sql`now()` }).where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteReport(db: Db, orgId: string, id: string): Promise<boolean> {
  const r = await db.deleteFrom('report_definitions').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** A new snapshot; undefined when the schedule's occurrence already has one. */
export async function insertSnapshot(
  db: Db,
  row: { report_id: string; org_id: string; project_id: string; definition: string; period_from: Date; period_to: Date; data: string; trigger: 'manual' | 'schedule'; scheduled_for: Date | null },
): Promise<ReportSnapshotRow | undefined> {
  return db
    .insertInto('report_snapshots')
    .values(row)
    .onConflict((oc) => oc.columns(['report_id', 'scheduled_for']).where('scheduled_for', 'is not', null).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** The earliest due scheduled report no other transaction holds, other than those in `skip` (other replicas skip it until this transaction ends). */
export async function claimDueReport(db: Db, now: Date, skip: readonly string[] = []): Promise<ReportDefinitionRow | undefined> {
  return db
    .selectFrom('report_definitions')
    .selectAll()
    .where('next_snapshot_at', 'is not', null)
    .where('next_snapshot_at', '<=', now)
    .$if(skip.length > 0, (q) => q.where('id', 'not in', skip))
    .orderBy('next_snapshot_at')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

export async function setScheduleState(db: Db, id: string, patch: { next_snapshot_at: Date | null; last_snapshot_at?: Date; last_schedule_error: string | null }): Promise<void> {
  await db.updateTable('report_definitions').set(patch).where('id', '=', id).execute();
}

export async function findSnapshot(db: Db, orgId: string, reportId: string, id: string): Promise<ReportSnapshotRow | undefined> {
  return db.selectFrom('report_snapshots').selectAll().where('org_id', '=', orgId).where('report_id', '=', reportId).where('id', '=', id).executeTakeFirst();
}

export async function listSnapshots(db: Db, orgId: string, reportId: string, limit: number, offset: number) {
  const q = db.selectFrom('report_snapshots').where('org_id', '=', orgId).where('report_id', '=', reportId);
  return selectPage(q.select(['id', 'report_id', 'project_id', 'period_from', 'period_to', 'trigger', 'scheduled_for', 'created_at']).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset), q);
}

/** Failure analysis items of the given executions, counted by category. */
export async function countCategories(db: Db, orgId: string, executionIds: string[], testCaseIds?: string[]): Promise<Array<{ category: string; n: number }>> {
  if (!executionIds.length || testCaseIds?.length === 0) return [];
  const rows = await db
    .selectFrom('analysis_items')
    .select(['category', (eb) => eb.fn.countAll<number>().as('n')])
    .where('org_id', '=', orgId)
    .where('execution_id', 'in', executionIds)
    .$if(testCaseIds !== undefined, (q) => q.where('test_case_id', 'in', testCaseIds!))
    .groupBy('category')
    .orderBy('category')
    .execute();
  return rows.map((r) => ({ category: r.category, n: Number(r.n) }));
}

/** The project's open and acknowledged issues, most occurrences first. */
export async function openIssues(db: Db, orgId: string, projectId: string) {
  return db
    .selectFrom('issues')
    .select(['id', 'title', 'category', 'status', 'test_case_id', 'test_name', 'occurrences', 'first_seen', 'last_seen'])
    .where('org_id', '=', orgId)
    .where('project_id', '=', projectId)
    .where('status', 'in', ['open', 'acknowledged'])
    .orderBy('occurrences', 'desc')
    .orderBy('last_seen', 'desc')
    .limit(500)
    .execute();
}
