import { AppError, isUuid, notFound, orgPrincipal, parsePagination, readMultipart, requiredQueryString, serviceRouter, type ServiceRouter } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import { listSuites } from './suites.repository.js';
import { suiteBody, suitePage, suiteVersion, suiteVersions, uploadSuite } from './suites.service.js';

/** Playwright suites: uploaded as archives, kept as immutable versions, run as executions (`suite_id`). */
export function suiteRoutes(ctx: ExecutionContext): ServiceRouter<'execution-runner'> {
  const router = serviceRouter('execution-runner');
  const settings = () => {
    if (!ctx.suites) throw new AppError('not_implemented', 'Suites are not set up on this runner');
    return ctx.suites;
  };

  router.post('/api/v1/suites', async (req, res) => {
    const s = settings();
    const upload = await readMultipart(req, { maxBytes: s.archive.maxBytes, fields: ['project_id', 'name', 'projects'], fileField: 'archive', usage: 'curl -F archive=@suite.tar.gz -F project_id=… -F name=…' });
    if (!upload.file) throw new AppError('validation_error', 'Send the suite as the multipart field "archive" (.tar.gz or .zip)', [{ field: 'archive', message: 'is required' }]);
    const { body, listed } = await uploadSuite(ctx, s, orgPrincipal(res).org_id, { project_id: upload.fields.project_id, name: upload.fields.name, projects: upload.fields.projects, archive: upload.file.data });
    // Not listed here (this runner cannot make the box): 202, the version `listing` until a suite-shard process lists it.
    if (listed) res.status(201).location(`/api/v1/suites/${body.id}`).json(body);
    else res.status(202).location(`/api/v1/suites/${body.id}/versions/${body.version.version}`).json(body);
  });

  router.get('/api/v1/suites', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const query = req.query as Record<string, unknown>;
    const { limit, offset } = parsePagination(query, { defaultLimit: 20, maxLimit: 100 });
    const projectId = requiredQueryString(query, 'project_id');
    if (!isUuid(projectId)) throw notFound('Project');
    const page = await listSuites(ctx.db, orgId, projectId, limit, offset);
    // None: another organization's project (or none) answers 404, as an unknown one.
    if (page.total === 0) await ctx.testCases.assertProject(orgId, projectId);
    res.json({ data: page.rows.map(suiteBody), pagination: { limit, offset, total: page.total } });
  });

  router.get('/api/v1/suites/:id', async (req, res) => {
    res.json(await suitePage(ctx, orgPrincipal(res).org_id, req.params.id));
  });

  router.get('/api/v1/suites/:id/versions', async (req, res) => {
    const { limit, offset } = parsePagination(req.query as Record<string, unknown>, { defaultLimit: 20, maxLimit: 100 });
    res.json(await suiteVersions(ctx, orgPrincipal(res).org_id, req.params.id, limit, offset));
  });

  router.get('/api/v1/suites/:id/versions/:version', async (req, res) => {
    res.json(await suiteVersion(ctx, orgPrincipal(res).org_id, req.params.id, req.params.version));
  });

  return router;
}
