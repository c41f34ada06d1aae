import { sql, type Kysely } from 'kysely';
import type { NewTestCaseRow, TestCaseDatabase, TestCaseRow, TestCaseStatus } from '../db/database.js';
import { likePattern } from '../shared.js';

type Db = Kysely<TestCaseDatabase>;

export interface TestCaseFilter {
  projectId: string;
  planId?: string | undefined;
  search?: string | undefined;
  status: TestCaseStatus | 'all';
  limit: number;
  offset: number;
}

export async function listTestCases(db: Db, orgId: string, f: TestCaseFilter): Promise<{ rows: TestCaseRow[]; total: number }> {
  let q = db.selectFrom('test_cases as tc').where('tc.org_id', '=', orgId).where('tc.project_id', '=', f.projectId);
  if (f.status !== 'all') q = q.where('tc.status', '=', f.status);
  if (f.search) q = q.where(sql<boolean>`tc.name ilike ${likePattern(f.search)}`);
  if (f.planId) q = q.innerJoin('test_plan_cases as m', 'm.test_case_id', 'tc.id').where('m.plan_id', '=', f.planId);
  const ordered = f.planId
    ? q.selectAll('tc').orderBy(sql`m.position`).orderBy('tc.id')
    : q.selectAll('tc').orderBy('tc.created_at').orderBy('tc.id');
  const [rows, count] = await Promise.all([
    ordered.limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function findTestCase(db: Db, orgId: string, id: string, lock = false): Promise<TestCaseRow | undefined> {
  let q = db.selectFrom('test_cases').selectAll().where('org_id', '=', orgId).where('id', '=', id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function findTestCases(db: Db, orgId: string, ids: string[], lock = false): Promise<TestCaseRow[]> {
  if (ids.length === 0) return [];
  let q = db.selectFrom('test_cases').selectAll().where('org_id', '=', orgId).where('id', 'in', ids);
  if (lock) q = q.orderBy('id').forUpdate();
  return q.execute();
}

/** Inserts rows in chunks that stay under Postgres's parameter limit. */
export async function insertTestCases(db: Db, rows: NewTestCaseRow[]): Promise<TestCaseRow[]> {
  const out: TestCaseRow[] = [];
  for (let i = 0; i < rows.length; i += 2000) {
    out.push(...(await db.insertInto('test_cases').values(rows.slice(i, i + 2000)).returningAll().execute()));
  }
  return out;
}

export async function updateTestCaseRow(db: Db, orgId: string, id: string, patch: Record<string, unknown>): Promise<TestCaseRow> {
  return db
    .updateTable('test_cases')
    .set({ ...patch, updated_at: sql`now()` })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function archiveTestCases(db: Db, orgId: string, ids: string[]): Promise<TestCaseRow[]> {
  if (ids.length === 0) return [];
  return db
    .updateTable('test_cases')
    .set({ status: 'archived', deleted_at: sql`now()`, updated_at: sql`now()` })
    .where('org_id', '=', orgId)
    .where('id', 'in', ids)
    .where('status', '=', 'active')
    .returningAll()
    .execute();
}

export async function deleteTestCases(db: Db, orgId: string, ids: string[]): Promise<TestCaseRow[]> {
  if (ids.length === 0) return [];
  return db.deleteFrom('test_cases').where('org_id', '=', orgId).where('id', 'in', ids).returningAll().execute();
}

export async function countPlanMemberships(db: Db, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const row = await db.selectFrom('test_plan_cases').select((eb) => eb.fn.countAll<number>().as('n')).where('test_case_id', 'in', ids).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Ids of the project's cases (archived ones too) that carry any of the tags now. */
export async function findTestCaseIdsTagged(db: Db, orgId: string, projectId: string, tags: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom('test_cases')
    .select('id')
    .where('org_id', '=', orgId)
    .where('project_id', '=', projectId)
    .where(sql<boolean>`tags && ${sql.val(tags)}::text[]`)
    .execute();
  return rows.map((r) => r.id);
}
