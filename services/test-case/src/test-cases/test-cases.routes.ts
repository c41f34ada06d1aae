import { AppError, notFound, orgPrincipal, parsePagination, readMultipart, serviceRouter, type ServiceRouter, validateBody, validationError } from '@assay/http';
import type { TestCaseContext } from '../context.js';
import { getProject } from '../projects/projects.service.js';
import { isUuid, queryBoolean, queryString } from '../shared.js';
import { ImportFileError, MAX_IMPORT_BYTES, parseImportFile } from './import.parser.js';
import {
  assertValidTestCaseBody,
  bulkDeleteTestCases,
  createTestCases,
  deleteTestCase,
  getTestCase,
  listTestCasePage,
  restoreTestCase,
  toTestCaseBody,
  updateTestCase,
} from './test-cases.service.js';

const STATUSES = ['active', 'archived', 'all'] as const;

export function testCaseRoutes(ctx: TestCaseContext): ServiceRouter<'test-case'> {
  const router = serviceRouter('test-case');

  router.get('/api/v1/test-cases', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const query = req.query as Record<string, unknown>;
    const { limit, offset } = parsePagination(query, { defaultLimit: 50, maxLimit: 500 });
    const projectId = queryString(query, 'project_id', 64);
    if (!projectId) throw validationError([{ field: 'project_id', message: 'is required' }]);
    const status = queryString(query, 'status', 16) ?? 'active';
    if (!(STATUSES as readonly string[]).includes(status)) throw validationError([{ field: 'status', message: 'must be one of active, archived, all' }]);
    const project = await getProject(ctx.db, orgId, projectId);
    const planId = queryString(query, 'test_plan_id', 64);
    if (planId !== undefined && !isUuid(planId)) throw notFound('Test plan');
    const { rows, total } = await listTestCasePage(ctx.db, orgId, project, {
      planId,
      search: queryString(query, 'search'),
      status: status as (typeof STATUSES)[number],
      limit,
      offset,
    });
    res.json({ data: rows.map(toTestCaseBody), pagination: { limit, offset, total } });
  });

  router.post('/api/v1/test-cases', async (req, res) => {
    assertValidTestCaseBody(req.body, 'create');
    const [row] = await createTestCases(ctx.db, ctx.schema, orgPrincipal(res).org_id, req.body.project_id, [req.body], 'api');
    res.status(201).json(toTestCaseBody(row!));
  });

  router.post('/api/v1/test-cases/bulk-delete', validateBody('BulkDeleteRequest'), async (req, res) => {
    const soft = req.body.soft_delete !== false;
    res.json(await bulkDeleteTestCases(ctx.db, ctx.schema, orgPrincipal(res).org_id, req.body.test_case_ids, soft));
  });

  router.post('/api/v1/test-cases/import', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const upload = await readMultipart(req, { maxBytes: MAX_IMPORT_BYTES, fields: ['project_id'], usage: 'fields project_id and file' });
    const projectId = upload.fields.project_id;
    if (!projectId) throw validationError([{ field: 'project_id', message: 'is required' }]);
    if (!upload.file) throw validationError([{ field: 'file', message: 'is required' }]);
    await getProject(ctx.db, orgId, projectId);
    let parsed;
    try {
      parsed = parseImportFile(upload.file.data, { filename: upload.file.filename, mimetype: upload.file.contentType });
    } catch (err) {
      if (err instanceof ImportFileError) {
        const code = err.status === 413 ? 'payload_too_large' : err.status === 415 ? 'unsupported_media_type' : 'validation_error';
        throw new AppError(code, err.message, err.details);
      }
      throw err;
    }
    const valid = parsed.rows.flatMap((r) => (r.ok ? [r.candidate] : []));
    const created = await createTestCases(ctx.db, ctx.schema, orgId, projectId, valid, 'import');
    const idByRow = new Map(valid.map((c, i) => [c.row, created[i]!.id]));
    const results = parsed.rows.map((r) =>
      r.ok
        ? { name: r.candidate.name, id: idByRow.get(r.candidate.row)!, status: 'imported' as const, row: r.candidate.row }
        : { name: r.name, id: null, status: 'failed' as const, row: r.row, error: r.error },
    );
    res.json({ imported: created.length, failed: results.length - created.length, results });
  });

  router.get('/api/v1/test-cases/:id', async (req, res) => {
    res.json(toTestCaseBody(await getTestCase(ctx.db, orgPrincipal(res).org_id, req.params.id)));
  });

  router.put('/api/v1/test-cases/:id', async (req, res) => {
    assertValidTestCaseBody(req.body, 'update');
    res.json(toTestCaseBody(await updateTestCase(ctx.db, ctx.schema, orgPrincipal(res).org_id, req.params.id, req.body)));
  });

  router.delete('/api/v1/test-cases/:id', async (req, res) => {
    const query = req.query as Record<string, unknown>;
    const permanent = queryBoolean(query, 'force_delete', false) || !queryBoolean(query, 'soft_delete', true);
    res.json(await deleteTestCase(ctx.db, ctx.schema, orgPrincipal(res).org_id, req.params.id, permanent));
  });

  router.post('/api/v1/test-cases/:id/restore', async (req, res) => {
    res.json(toTestCaseBody(await restoreTestCase(ctx.db, ctx.schema, orgPrincipal(res).org_id, req.params.id)));
  });

  return router;
}
