import { conflict, notFound, validationError } from '@assay/http';
import type { TestCaseContext } from '../context.js';
import type { ProjectRow, ProjectVariableRow } from '../db/database.js';
import { secretAad } from '../secret-box.js';
import { countVariables, deleteVariable, listVariables, upsertVariable } from './variables.repository.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const MAX_VARIABLES = 200;
/** Shorter secrets cannot be masked in results and logs without masking ordinary words too. */
const MIN_SECRET_LENGTH = 4;

/** @throws AppError 400 on `name` unless it is a variable name (a letter or _, then letters, digits, _ and -; at most 64). */
export function assertVariableName(name: string): void {
  if (!NAME.test(name)) throw validationError([{ field: 'name', message: 'must start with a letter or _ and hold only letters, digits, _ and - (at most 64)' }]);
}

export function listProjectVariables(ctx: TestCaseContext, orgId: string, project: ProjectRow): Promise<ProjectVariableRow[]> {
  return listVariables(ctx.db, orgId, project.id);
}

/**
 * Sets one variable of the project in `environment` ('' for every environment);
 * a secret's value is sealed at rest. `created` is false when it replaced one.
 * @throws AppError 400 for a bad name or a too short secret, 409 past the project's limit.
 */
export async function setProjectVariable(
  ctx: TestCaseContext,
  orgId: string,
  project: ProjectRow,
  environment: string,
  name: string,
  input: { value: string; secret?: boolean },
): Promise<{ row: ProjectVariableRow; created: boolean }> {
  assertVariableName(name);
  const { value, secret = false } = input;
  if (secret && value.length < MIN_SECRET_LENGTH) throw validationError([{ field: 'value', message: `a secret needs at least ${MIN_SECRET_LENGTH} characters (shorter ones cannot be masked in results and logs)` }]);
  const existing = (await listVariables(ctx.db, orgId, project.id)).some((v) => v.environment === environment && v.name === name);
  if (!existing && (await countVariables(ctx.db, orgId, project.id)) >= MAX_VARIABLES) throw conflict(`A project holds at most ${MAX_VARIABLES} variables`, { limit: MAX_VARIABLES });
  return upsertVariable(ctx.db, {
    org_id: orgId,
    project_id: project.id,
    environment,
    name,
    secret,
    value: secret ? null : value,
    ciphertext: secret ? ctx.secrets.seal(value, secretAad(project.id, environment, name)) : null,
  });
}

/** @throws AppError 404 when the project has no such variable in `environment`. */
export async function removeProjectVariable(ctx: TestCaseContext, orgId: string, project: ProjectRow, environment: string, name: string): Promise<void> {
  if (!(await deleteVariable(ctx.db, orgId, project.id, environment, name))) throw notFound('Variable');
}

/**
 * What a run of the project in `environment` gets: the plain variables and the
 * secrets in clear, the environment's overriding the project-wide ones.
 */
export async function runVariables(ctx: TestCaseContext, orgId: string, project: ProjectRow, environment: string): Promise<{ variables: Record<string, string>; secrets: Record<string, string> }> {
  const variables: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  // '' sorts first, so an environment's own value replaces the project-wide one.
  for (const v of (await listVariables(ctx.db, orgId, project.id)).filter((r) => r.environment === '' || r.environment === environment)) {
    if (v.secret) secrets[v.name] = ctx.secrets.open(v.ciphertext!, secretAad(project.id, v.environment, v.name));
    else variables[v.name] = v.value!;
  }
  return { variables, secrets };
}
