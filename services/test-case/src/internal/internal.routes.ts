import { Router } from 'express';
import { isUniqueViolation, withTransaction } from '@assay/db';
import { conflict, forbidden, notFound, requireServicePrincipal, validationError } from '@assay/http';
import type { Principal } from '@assay/principal';
import type { TestCaseContext } from '../context.js';
import { findProject } from '../projects/projects.repository.js';
import { toProjectBody } from '../projects/projects.routes.js';
import { isUuid } from '../shared.js';
import { assertValidTestCaseBody, createTestCases, toTestCaseBody, type TestCaseInput } from '../test-cases/test-cases.service.js';
import { toTestPlanBody } from '../test-plans/test-plans.routes.js';
import { appendMember, findTestPlan, lockTestPlan } from '../test-plans/test-plans.repository.js';
import { findTestCaseIdsTagged, findTestCases } from '../test-cases/test-cases.repository.js';
import { replaceSelector } from './selector.service.js';

/** Routes for other services; the service principal names the organization it acts for. */
export function internalRoutes(ctx: TestCaseContext): Router {
  const router = Router();
  router.use('/internal', requireServicePrincipal);
  const orgOf = (principal: Principal): string => {
    if (!principal.org_id) throw forbidden('Internal calls must name the organization they act for');
    return principal.org_id;
  };

  router.get('/internal/projects/:id', async (req, res) => {
    const orgId = orgOf(res.locals.principal as Principal);
    const project = isUuid(req.params.id) ? await findProject(ctx.db, orgId, req.params.id) : undefined;
    if (!project) throw notFound('Project');
    res.json(toProjectBody(project));
  });

  // The ids of a project's cases (deleted ones too) carrying any of the tags, for the analysis service's report filters.
  router.get('/internal/projects/:id/tagged-test-cases', async (req, res) => {
    const orgId = orgOf(res.locals.principal as Principal);
    const raw = (req.query as Record<string, unknown>).tags;
    // One `tags=` per tag (a tag may hold a comma).
    const tags = (Array.isArray(raw) ? raw : [raw]).filter((t): t is string => typeof t === 'string' && t !== '');
    if (tags.length === 0 || tags.length > 20) throw validationError([{ field: 'tags', message: 'must name 1 to 20 tags, one tags= each' }]);
    const project = isUuid(req.params.id) ? await findProject(ctx.db, orgId, req.params.id) : undefined;
    if (!project) throw notFound('Project');
    res.json({ test_case_ids: await findTestCaseIdsTagged(ctx.db, orgId, project.id, tags) });
  });

  // Cases made by another service (discovery's generated tests): validated like API creates, optionally appended to a plan, in one transaction.
  router.post('/internal/test-cases', async (req, res) => {
    const orgId = orgOf(res.locals.principal as Principal);
    const body = (req.body ?? {}) as { project_id?: unknown; test_plan_id?: unknown; test_cases?: unknown; keep_ids?: unknown };
    if (!Array.isArray(body.test_cases) || body.test_cases.length === 0 || body.test_cases.length > 1000) {
      throw validationError([{ field: 'test_cases', message: 'must be an array of 1 to 1000 test cases' }]);
    }
    // keep_ids (a saved exploratory run): each case brings its id, and its steps keep their step ids.
    const keepIds = body.keep_ids === true;
    const inputs = (body.test_cases as Array<TestCaseInput & { id?: unknown }>).map(({ id, ...c }, i) => {
      if (!keepIds) return c;
      if (!isUuid(id)) throw validationError([{ field: `test_cases[${i}].id`, message: 'must be a UUID with keep_ids' }]);
      if (c.steps?.some?.((s) => typeof s.step_id !== 'string' || s.step_id === '')) throw validationError([{ field: `test_cases[${i}].steps`, message: 'every step needs its step_id with keep_ids' }]);
      return { ...c, keep_ids: { id } };
    });
    for (const { keep_ids: _keep, ...c } of inputs) assertValidTestCaseBody({ ...c, project_id: body.project_id }, 'create');
    const rows = await withTransaction(ctx.db, async (trx) => {
      const created = await createTestCases(trx, ctx.schema, orgId, body.project_id, inputs, 'api');
      if (body.test_plan_id !== undefined) {
        const plan = isUuid(body.test_plan_id) ? await lockTestPlan(trx, orgId, body.test_plan_id) : undefined;
        if (!plan) throw notFound('Test plan');
        if (plan.project_id !== body.project_id) throw validationError([{ field: 'test_plan_id', message: 'belongs to another project' }]);
        for (const row of created) await appendMember(trx, plan.id, row.id);
      }
      return created;
    }).catch((err: unknown) => {
      if (isUniqueViolation(err)) throw conflict('A test case with this id exists already');
      throw err;
    });
    res.status(201).json({ test_cases: rows.map(toTestCaseBody) });
  });

  // A failure analysis applied: the verified selector replaces the failing one, unless the case changed since.
  router.post('/internal/test-cases/:id/replace-selector', async (req, res) => {
    const row = await replaceSelector(ctx.db, ctx.schema, orgOf(res.locals.principal as Principal), req.params.id, req.body);
    res.json({ test_case: toTestCaseBody(row) });
  });

  // One case and its project: what execution-runner needs to run that case alone.
  router.get('/internal/test-cases/:id', async (req, res) => {
    const orgId = orgOf(res.locals.principal as Principal);
    const [row] = isUuid(req.params.id) ? await findTestCases(ctx.db, orgId, [req.params.id]) : [];
    if (!row) throw notFound('Test case');
    const project = await findProject(ctx.db, orgId, row.project_id);
    if (!project) throw notFound('Project');
    res.json({ test_case: toTestCaseBody(row), project: toProjectBody(project) });
  });

  // What execution-runner needs to run a plan: the plan, its project and its active cases in plan order.
  router.get('/internal/test-plans/:id/snapshot', async (req, res) => {
    const orgId = orgOf(res.locals.principal as Principal);
    const plan = isUuid(req.params.id) ? await findTestPlan(ctx.db, orgId, req.params.id) : undefined;
    if (!plan) throw notFound('Test plan');
    const project = await findProject(ctx.db, orgId, plan.project_id);
    if (!project) throw notFound('Project');
    const byId = new Map((await findTestCases(ctx.db, orgId, plan.test_case_ids)).map((c) => [c.id, c]));
    const cases = plan.test_case_ids.flatMap((id) => {
      const c = byId.get(id);
      return c && c.status === 'active' ? [toTestCaseBody(c)] : [];
    });
    res.json({ test_plan: toTestPlanBody(plan), project: toProjectBody(project), test_cases: cases, skipped_archived: plan.test_case_ids.length - cases.length });
  });

  return router;
}
