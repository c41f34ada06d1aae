import type { Request } from 'express';
import { orgPrincipal, requireServicePrincipal, serviceRouter, type ServiceRouter, validateBody, validationError } from '@assay/http';
import type { Principal } from '@assay/principal';
import type { TestCaseContext } from '../context.js';
import type { ProjectRow, ProjectVariableRow } from '../db/database.js';
import { getProject } from '../projects/projects.service.js';
import { iso, queryString } from '../shared.js';
import { assertVariableName, listProjectVariables, removeProjectVariable, runVariables, setProjectVariable } from './variables.service.js';

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
export function variableRoutes(ctx: TestCaseContext): ServiceRouter<'test-case'> {
  const router = serviceRouter('test-case');

  router.get('/api/v1/projects/:id/variables', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const project = await getProject(ctx.db, orgId, req.params.id);
    res.json({ data: (await listProjectVariables(ctx, orgId, project)).map(toVariableBody) });
  });

  router.put('/api/v1/projects/:id/variables/:name', validateBody('ProjectVariableRequest'), async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const project = await getProject(ctx.db, orgId, req.params.id);
    const name = String(req.params.name);
    assertVariableName(name);
    const environment = environmentOf(req, project);
    const { row, created } = await setProjectVariable(ctx, orgId, project, environment, name, req.body as { value: string; secret?: boolean });
    res.status(created ? 201 : 200).json(toVariableBody(row));
  });

  router.delete('/api/v1/projects/:id/variables/:name', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const project = await getProject(ctx.db, orgId, req.params.id);
    const environment = environmentOf(req, project);
    await removeProjectVariable(ctx, orgId, project, environment, String(req.params.name));
    res.json({ name: req.params.name, environment: environment || null, deleted: true });
  });

  // What a run of the project in `environment` gets (runVariables).
  router.get('/internal/projects/:id/run-variables', requireServicePrincipal, async (req, res) => {
    const orgId = (res.locals.principal as Principal).org_id;
    if (!orgId) throw validationError([{ field: 'org_id', message: 'internal calls must name the organization they act for' }]);
    const project = await getProject(ctx.db, orgId, req.params.id);
    const environment = environmentOf(req, project);
    res.json(await runVariables(ctx, orgId, project, environment));
  });

  return router;
}
