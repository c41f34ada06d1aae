import { Router, type Request } from 'express';
import { conflict, notFound, orgPrincipal, requireServicePrincipal, validateBody, validationError } from '@assay/http';
import type { Principal } from '@assay/principal';
import type { TestCaseContext } from '../context.js';
import type { ProjectRow, ProjectVariableRow } from '../db/database.js';
import { findProject } from '../projects/projects.repository.js';
import { iso, isUuid, queryString } from '../shared.js';
import { secretAad } from '../secret-box.js';
import { countVariables, deleteVariable, listVariables, upsertVariable } from './variables.repository.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const MAX_VARIABLES = 200;
/** Shorter secrets cannot be masked in results and logs without masking ordinary words too. */
const MIN_SECRET_LENGTH = 4;

/** A variable as the API shows it: a secret's value never leaves the service (only the runner gets it, internally). */
export function toVariableBody(v: ProjectVariableRow) {
  return {
    name: v.name,
    environment: v.environment === '' ? null : v.environment,
    secret: v.secret,
    value: v.secret ? null : v.value,
    reference: v.secret ? `{{secret.${v.name}}}` : `{{${v.name}}}`,
    created_at: iso(v.created_at),
    updated_at: iso(v.updated_at),
  };
}

async function projectOf(ctx: TestCaseContext, orgId: string, id: unknown): Promise<ProjectRow> {
  const project = isUuid(id) ? await findProject(ctx.db, orgId, id) : undefined;
  if (!project) throw notFound('Project');
  return project;
}

/**
 * The `environment` query parameter: absent or empty for every environment,
 * else one the project defines.
 * @throws AppError 400 naming the parameter.
 */
function environmentOf(req: Request, project: ProjectRow): string {
  const env = queryString(req.query as Record<string, unknown>, 'environment', 32) ?? '';
  if (env !== '' && !Object.hasOwn(project.environments, env)) {
    const known = Object.keys(project.environments);
    throw validationError([{ field: 'environment', message: known.length ? `must be one of ${known.join(', ')} (or absent: every environment)` : 'the project defines no environments: leave it out' }]);
  }
  return env;
}

/** Plain and secret variables of a project per environment; secrets sealed at rest, write-only through the API. */
export function variableRoutes(ctx: TestCaseContext): Router {
  const router = Router();

  router.get('/api/v1/projects/:id/variables', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const project = await projectOf(ctx, orgId, req.params.id);
    res.json({ data: (await listVariables(ctx.db, orgId, project.id)).map(toVariableBody) });
  });

  router.put('/api/v1/projects/:id/variables/:name', validateBody('ProjectVariableRequest'), async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const project = await projectOf(ctx, orgId, req.params.id);
    const name = String(req.params.name);
    if (!NAME.test(name)) throw validationError([{ field: 'name', message: 'must start with a letter or _ and hold only letters, digits, _ and - (at most 64)' }]);
    const environment = environmentOf(req, project);
    const { value, secret = false } = req.body as { value: string; secret?: boolean };
    if (secret && value.length < MIN_SECRET_LENGTH) throw validationError([{ field: 'value', message: `a secret needs at least ${MIN_SECRET_LENGTH} characters (shorter ones cannot be masked in results and logs)` }]);
    const existing = (await listVariables(ctx.db, orgId, project.id)).some((v) => v.environment === environment && v.name === name);
    if (!existing && (await countVariables(ctx.db, orgId, project.id)) >= MAX_VARIABLES) throw conflict(`A project holds at most ${MAX_VARIABLES} variables`, { limit: MAX_VARIABLES });
    const { row, created } = await upsertVariable(ctx.db, {
      org_id: orgId,
      project_id: project.id,
      environment,
      name,
      secret,
      value: secret ? null : value,
      ciphertext: secret ? ctx.secrets.seal(value, secretAad(project.id, environment, name)) : null,
    });
    res.status(created ? 201 : 200).json(toVariableBody(row));
  });

  router.delete('/api/v1/projects/:id/variables/:name', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const project = await projectOf(ctx, orgId, req.params.id);
    const environment = environmentOf(req, project);
    if (!(await deleteVariable(ctx.db, orgId, project.id, environment, String(req.params.name)))) throw notFound('Variable');
    res.json({ name: req.params.name, environment: environment || null, deleted: true });
  });

  // What a run of the project in `environment` gets: the plain variables and the secrets in clear, the environment's overriding the project-wide ones.
  router.get('/internal/projects/:id/run-variables', requireServicePrincipal, async (req, res) => {
    const orgId = (res.locals.principal as Principal).org_id;
    if (!orgId) throw validationError([{ field: 'org_id', message: 'internal calls must name the organization they act for' }]);
    const project = await projectOf(ctx, orgId, req.params.id);
    const environment = environmentOf(req, project);
    const variables: Record<string, string> = {};
    const secrets: Record<string, string> = {};
    // '' sorts first, so an environment's own value replaces the project-wide one.
    for (const v of (await listVariables(ctx.db, orgId, project.id)).filter((r) => r.environment === '' || r.environment === environment)) {
      if (v.secret) secrets[v.name] = ctx.secrets.open(v.ciphertext!, secretAad(project.id, v.environment, v.name));
      else variables[v.name] = v.value!;
    }
    res.json({ variables, secrets });
  });

  return router;
}
