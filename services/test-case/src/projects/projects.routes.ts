import { orgPrincipal, parsePagination, serviceRouter, type ServiceRouter, validateBody } from '@assay/http';
import type { TestCaseContext } from '../context.js';
import type { ProjectRow } from '../db/database.js';
import { iso, queryBoolean, queryString } from '../shared.js';
import { changeProject, createProject, getProject, listProjectPage, removeProject } from './projects.service.js';

export function toProjectBody(p: ProjectRow) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    base_url: p.base_url,
    environments: p.environments,
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
  };
}

export function projectRoutes(ctx: TestCaseContext): ServiceRouter<'test-case'> {
  const router = serviceRouter('test-case');

  router.post('/api/v1/projects', validateBody('ProjectCreateRequest'), async (req, res) => {
    res.status(201).json(toProjectBody(await createProject(ctx.db, orgPrincipal(res).org_id, req.body)));
  });

  router.get('/api/v1/projects', async (req, res) => {
    const query = req.query as Record<string, unknown>;
    const { limit, offset } = parsePagination(query, { defaultLimit: 50, maxLimit: 500 });
    const { rows, total } = await listProjectPage(ctx.db, orgPrincipal(res).org_id, { limit, offset, search: queryString(query, 'search') });
    res.json({ data: rows.map(toProjectBody), pagination: { limit, offset, total } });
  });

  router.get('/api/v1/projects/:id', async (req, res) => {
    res.json(toProjectBody(await getProject(ctx.db, orgPrincipal(res).org_id, req.params.id)));
  });

  router.put('/api/v1/projects/:id', validateBody('ProjectUpdateRequest'), async (req, res) => {
    res.json(toProjectBody(await changeProject(ctx.db, orgPrincipal(res).org_id, req.params.id, req.body)));
  });

  router.delete('/api/v1/projects/:id', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const force = queryBoolean(req.query as Record<string, unknown>, 'force', false);
    const id = req.params.id;
    const result = await removeProject(ctx.db, orgId, id, force);
    res.json({ id, deleted_at: new Date().toISOString(), test_cases_removed: result.cases, test_plans_removed: result.plans });
  });

  return router;
}
