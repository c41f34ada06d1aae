import { Router } from 'express';
import { conflict, notFound, orgPrincipal, parsePagination, validateBody } from '@assay/http';
import { withTransaction } from '@assay/db';
import type { TestCaseContext } from '../context.js';
import type { ProjectRow } from '../db/database.js';
import { isUuid, iso, queryBoolean, queryString } from '../shared.js';
import { countProjectContents, deleteProject, findProject, insertProject, listProjects, updateProject } from './projects.repository.js';

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

export function projectRoutes(ctx: TestCaseContext): Router {
  const router = Router();

  router.post('/api/v1/projects', validateBody('ProjectCreateRequest'), async (req, res) => {
    const { name, description, base_url, environments } = req.body;
    const row = await insertProject(ctx.db, {
      org_id: orgPrincipal(res).org_id,
      name: name.trim(),
      description: description ?? null,
      base_url,
      environments: environments ?? {},
    });
    res.status(201).json(toProjectBody(row));
  });

  router.get('/api/v1/projects', async (req, res) => {
    const query = req.query as Record<string, unknown>;
    const { limit, offset } = parsePagination(query, { defaultLimit: 50, maxLimit: 500 });
    const { rows, total } = await listProjects(ctx.db, orgPrincipal(res).org_id, { limit, offset, search: queryString(query, 'search') });
    res.json({ data: rows.map(toProjectBody), pagination: { limit, offset, total } });
  });

  router.get('/api/v1/projects/:id', async (req, res) => {
    const row = isUuid(req.params.id) ? await findProject(ctx.db, orgPrincipal(res).org_id, req.params.id) : undefined;
    if (!row) throw notFound('Project');
    res.json(toProjectBody(row));
  });

  router.put('/api/v1/projects/:id', validateBody('ProjectUpdateRequest'), async (req, res) => {
    const { name, description, base_url, environments } = req.body;
    const row = isUuid(req.params.id)
      ? await updateProject(ctx.db, orgPrincipal(res).org_id, req.params.id, {
          ...(name !== undefined ? { name: name.trim() } : {}),
          ...(description !== undefined ? { description } : {}),
          ...(base_url !== undefined ? { base_url } : {}),
          ...(environments !== undefined ? { environments } : {}),
        })
      : undefined;
    if (!row) throw notFound('Project');
    res.json(toProjectBody(row));
  });

  router.delete('/api/v1/projects/:id', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const force = queryBoolean(req.query as Record<string, unknown>, 'force', false);
    const id = req.params.id;
    if (!isUuid(id)) throw notFound('Project');
    const result = await withTransaction(ctx.db, async (trx) => {
      const counts = await countProjectContents(trx, orgId, id);
      if (!(await findProject(trx, orgId, id))) throw notFound('Project');
      if (!force && (counts.cases > 0 || counts.plans > 0)) {
        throw conflict(`The project has ${counts.cases} test cases and ${counts.plans} test plans; delete with force=true to remove them too`, counts);
      }
      await deleteProject(trx, orgId, id);
      return counts;
    });
    res.json({ id, deleted_at: new Date().toISOString(), test_cases_removed: result.cases, test_plans_removed: result.plans });
  });

  return router;
}
