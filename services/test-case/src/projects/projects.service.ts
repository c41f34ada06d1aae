import type { Kysely } from 'kysely';
import { withTransaction } from '@assay/db';
import { conflict, notFound } from '@assay/http';
import type { ProjectRow, TestCaseDatabase } from '../db/database.js';
import { isUuid } from '../shared.js';
import { countProjectContents, deleteProject, findProject, insertProject, listProjects, updateProject } from './projects.repository.js';

type Db = Kysely<TestCaseDatabase>;

export interface ProjectInput {
  name: string;
  description?: string | null;
  base_url: string;
  environments?: Record<string, string>;
}

/**
 * The organization's project with this id.
 * @throws AppError 404 for an unknown id, a malformed one or another organization's.
 */
export async function getProject(db: Db, orgId: string, id: unknown): Promise<ProjectRow> {
  const row = isUuid(id) ? await findProject(db, orgId, id) : undefined;
  if (!row) throw notFound('Project');
  return row;
}

export function createProject(db: Db, orgId: string, input: ProjectInput): Promise<ProjectRow> {
  return insertProject(db, {
    org_id: orgId,
    name: input.name.trim(),
    description: input.description ?? null,
    base_url: input.base_url,
    environments: input.environments ?? {},
  });
}

export function listProjectPage(db: Db, orgId: string, opts: { limit: number; offset: number; search?: string | undefined }) {
  return listProjects(db, orgId, opts);
}

/**
 * Applies any subset of the fields.
 * @throws AppError 404 for an unknown project.
 */
export async function changeProject(db: Db, orgId: string, id: unknown, input: Partial<ProjectInput>): Promise<ProjectRow> {
  const { name, description, base_url, environments } = input;
  const row = isUuid(id)
    ? await updateProject(db, orgId, id, {
        ...(name !== undefined ? { name: name.trim() } : {}),
        ...(description !== undefined ? { description } : {}),
        ...(base_url !== undefined ? { base_url } : {}),
        ...(environments !== undefined ? { environments } : {}),
      })
    : undefined;
  if (!row) throw notFound('Project');
  return row;
}

/**
 * Deletes a project; one that still holds test cases or plans only with `force`
 * (they go with it). Returns how many of each went.
 * @throws AppError 404 for an unknown project, 409 when it is not empty and `force` is off.
 */
export async function removeProject(db: Db, orgId: string, id: string, force: boolean): Promise<{ cases: number; plans: number }> {
  if (!isUuid(id)) throw notFound('Project');
  return withTransaction(db, async (trx) => {
    const counts = await countProjectContents(trx, orgId, id);
    if (!(await findProject(trx, orgId, id))) throw notFound('Project');
    if (!force && (counts.cases > 0 || counts.plans > 0)) {
      throw conflict(`The project has ${counts.cases} test cases and ${counts.plans} test plans; delete with force=true to remove them too`, counts);
    }
    await deleteProject(trx, orgId, id);
    return counts;
  });
}
