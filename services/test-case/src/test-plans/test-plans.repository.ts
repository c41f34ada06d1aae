import { sql, type Kysely } from 'kysely';
import { selectPage } from '@assay/db';
import type { TestCaseDatabase, TestPlanRow } from '../db/database.js';

type Db = Kysely<TestCaseDatabase>;

export type TestPlanWithCases = TestPlanRow & { test_case_ids: string[] };

const withCaseIds = (db: Db) =>
  db
    .selectFrom('test_plans as p')
    .selectAll('p')
    .select(
      sql<string[]>`coalesce((select array_agg(m.test_case_id::text order by m.position) from test_plan_cases m where m.plan_id = p.id), '{}')`.as(
        'test_case_ids',
      ),
    );

export async function findTestPlan(db: Db, orgId: string, id: string): Promise<TestPlanWithCases | undefined> {
  return withCaseIds(db).where('p.org_id', '=', orgId).where('p.id', '=', id).executeTakeFirst();
}

export async function lockTestPlan(db: Db, orgId: string, id: string): Promise<TestPlanRow | undefined> {
  return db.selectFrom('test_plans').selectAll().where('org_id', '=', orgId).where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function listTestPlans(db: Db, orgId: string, opts: { projectId?: string | undefined; limit: number; offset: number }) {
  let base = db.selectFrom('test_plans').where('org_id', '=', orgId);
  if (opts.projectId) base = base.where('project_id', '=', opts.projectId);
  let rowsQ = withCaseIds(db).where('p.org_id', '=', orgId);
  if (opts.projectId) rowsQ = rowsQ.where('p.project_id', '=', opts.projectId);
  return selectPage(rowsQ.orderBy('p.created_at').orderBy('p.id').limit(opts.limit).offset(opts.offset), base);
}

export async function insertTestPlan(db: Db, p: { org_id: string; project_id: string; name: string; description: string | null }) {
  return db.insertInto('test_plans').values(p).returningAll().executeTakeFirstOrThrow();
}

export async function updateTestPlanRow(db: Db, orgId: string, id: string, patch: { name?: string; description?: string | null }) {
  await db.updateTable('test_plans').set({ ...patch, updated_at: sql`now()` }).where('org_id', '=', orgId).where('id', '=', id).execute();
}

export async function replaceMembership(db: Db, planId: string, caseIds: string[]): Promise<void> {
  await db.deleteFrom('test_plan_cases').where('plan_id', '=', planId).execute();
  if (caseIds.length) {
    await db.insertInto('test_plan_cases').values(caseIds.map((test_case_id, position) => ({ plan_id: planId, test_case_id, position }))).execute();
  }
}

/** Appends a case; false when it was already a member (idempotent). */
export async function appendMember(db: Db, planId: string, caseId: string): Promise<boolean> {
  const res = await sql<{ plan_id: string }>`
    insert into test_plan_cases (plan_id, test_case_id, position)
    select ${planId}, ${caseId}, coalesce(max(position) + 1, 0) from test_plan_cases where plan_id = ${planId}
    on conflict (plan_id, test_case_id) do nothing
    returning plan_id`.execute(db);
  return res.rows.length > 0;
}

export async function removeMember(db: Db, planId: string, caseId: string): Promise<boolean> {
  const res = await db.deleteFrom('test_plan_cases').where('plan_id', '=', planId).where('test_case_id', '=', caseId).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export async function deleteTestPlanRow(db: Db, orgId: string, id: string): Promise<boolean> {
  const res = await db.deleteFrom('test_plans').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Ids among `ids` that are test cases of this organization and project. */
export async function existingCaseIds(db: Db, orgId: string, projectId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('test_cases')
    .select('id')
    .where('org_id', '=', orgId)
    .where('project_id', '=', projectId)
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((r) => r.id));
}
