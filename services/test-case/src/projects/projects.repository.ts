import { sql, type Kysely } from 'kysely';
import { selectPage } from '@assay/db';
import type { ProjectRow, TestCaseDatabase } from '../db/database.js';
import { likePattern } from '../shared.js';

type Db = Kysely<TestCaseDatabase>;

export async function insertProject(
  db: Db,
  p: { org_id: string; name: string; description: string | null; base_url: string; environments: Record<string, string> },
): Promise<ProjectRow> {
  return db.insertInto('projects').values({ ...p, environments: JSON.stringify(p.environments) }).returningAll().executeTakeFirstOrThrow();
}

export async function findProject(db: Db, orgId: string, id: string): Promise<ProjectRow | undefined> {
  return db.selectFrom('projects').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

export async function listProjects(db: Db, orgId: string, opts: { limit: number; offset: number; search?: string | undefined }) {
  let q = db.selectFrom('projects').where('org_id', '=', orgId);
  if (opts.search) q = q.where(sql<boolean>`name ilike ${likePattern(opts.search)}`);
  return selectPage(q.selectAll().orderBy('created_at').orderBy('id').limit(opts.limit).offset(opts.offset), q);
}

export async function updateProject(
  db: Db,
  orgId: string,
  id: string,
  patch: Partial<{ name: string; description: string | null; base_url: string; environments: Record<string, string> }>,
): Promise<ProjectRow | undefined> {
  const { environments, ...rest } = patch;
  return db
    .updateTable('projects')
    .set({ ...rest, ...(environments ? { environments: JSON.stringify(environments) } : {}), updated_at: sql`now()` })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function countProjectContents(db: Db, orgId: string, id: string) {
  const [cases, plans] = await Promise.all([
    db.selectFrom('test_cases').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).where('project_id', '=', id).executeTakeFirstOrThrow(),
    db.selectFrom('test_plans').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).where('project_id', '=', id).executeTakeFirstOrThrow(),
  ]);
  return { cases: Number(cases.n), plans: Number(plans.n) };
}

export async function deleteProject(db: Db, orgId: string, id: string): Promise<boolean> {
  const res = await db.deleteFrom('projects').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
