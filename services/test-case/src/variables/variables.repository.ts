import { sql, type Kysely } from 'kysely';
import type { ProjectVariableRow, TestCaseDatabase } from '../db/database.js';

type Db = Kysely<TestCaseDatabase>;

export async function listVariables(db: Db, orgId: string, projectId: string): Promise<ProjectVariableRow[]> {
  return db.selectFrom('project_variables').selectAll().where('org_id', '=', orgId).where('project_id', '=', projectId).orderBy('environment').orderBy('name').execute();
}

export async function countVariables(db: Db, orgId: string, projectId: string): Promise<number> {
  const r = await db.selectFrom('project_variables').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).where('project_id', '=', projectId).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Inserts or replaces a variable; `created` tells which. */
export async function upsertVariable(
  db: Db,
  v: { org_id: string; project_id: string; environment: string; name: string; secret: boolean; value: string | null; ciphertext: string | null },
): Promise<{ row: ProjectVariableRow; created: boolean }> {
  const row = await db
    .insertInto('project_variables')
    .values(v)
    .onConflict((oc) => oc.columns(['project_id', 'environment', 'name']).doUpdateSet({ secret: v.secret, value: v.value, ciphertext: v.ciphertext, updated_at: sql`now()` }))
    .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
    .returningAll()
    .executeTakeFirstOrThrow();
  const { inserted, ...rest } = row as ProjectVariableRow & { inserted: boolean };
  return { row: rest, created: inserted };
}

export async function deleteVariable(db: Db, orgId: string, projectId: string, environment: string, name: string): Promise<boolean> {
  const r = await db.deleteFrom('project_variables').where('org_id', '=', orgId).where('project_id', '=', projectId).where('environment', '=', environment).where('name', '=', name).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
