import { actingOrgId, requireServicePrincipal, serviceRouter, type ServiceRouter, validationError } from '@assay/http';
import type { TestCaseContext } from '../context.js';
import { toProjectBody } from '../projects/projects.routes.js';
import { getProject } from '../projects/projects.service.js';
import { isUuid } from '../shared.js';
import { assertValidTestCaseBody, findActiveTestCases, getTestCase, taggedTestCaseIds, toTestCaseBody, type TestCaseInput } from '../test-cases/test-cases.service.js';
import { toTestPlanBody } from '../test-plans/test-plans.routes.js';
import { createTestCasesInPlan, getTestPlan } from '../test-plans/test-plans.service.js';
import { replaceSelector } from './selector.service.js';

/** Routes for other services; the service principal names the organization it acts for. */
export function internalRoutes(ctx: TestCaseContext): ServiceRouter<'test-case'> {
  const router = serviceRouter('test-case');
  router.use('/internal', requireServicePrincipal);

  router.get('/internal/projects/:id', async (req, res) => {
    const orgId = actingOrgId(res);
    res.json(toProjectBody(await getProject(ctx.db, orgId, req.params.id)));
  });

  // The ids of a project's cases (deleted ones too) carrying any of the tags, for the analysis service's report filters.
  router.get('/internal/projects/:id/tagged-test-cases', async (req, res) => {
    const orgId = actingOrgId(res);
    const raw = (req.query as Record<string, unknown>).tags;
    // One `tags=` per tag (a tag may hold a comma).
    const tags = (Array.isArray(raw) ? raw : [raw]).filter((t): t is string => typeof t === 'string' && t !== '');
    if (tags.length === 0 || tags.length > 20) throw validationError([{ field: 'tags', message: 'must name 1 to 20 tags, one tags= each' }]);
    res.json({ test_case_ids: await taggedTestCaseIds(ctx.db, orgId, req.params.id, tags) });
  });

  // Cases made by another service (discovery's generated tests): validated like API creates, optionally appended to a plan, in one transaction.
  router.post('/internal/test-cases', async (req, res) => {
    const orgId = actingOrgId(res);
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
    const rows = await createTestCasesInPlan(ctx.db, ctx.schema, orgId, body.project_id, inputs, body.test_plan_id);
    res.status(201).json({ test_cases: rows.map(toTestCaseBody) });
  });

  // A failure analysis applied: the verified selector replaces the failing one, unless the case changed since.
  router.post('/internal/test-cases/:id/replace-selector', async (req, res) => {
    const row = await replaceSelector(ctx.db, ctx.schema, actingOrgId(res), req.params.id, req.body);
    res.json({ test_case: toTestCaseBody(row) });
  });

  // One case and its project: what execution-runner needs to run that case alone.
  router.get('/internal/test-cases/:id', async (req, res) => {
    const orgId = actingOrgId(res);
    const row = await getTestCase(ctx.db, orgId, req.params.id);
    const project = await getProject(ctx.db, orgId, row.project_id);
    res.json({ test_case: toTestCaseBody(row), project: toProjectBody(project) });
  });

  // What execution-runner needs to run a plan: the plan, its project and its active cases in plan order.
  router.get('/internal/test-plans/:id/snapshot', async (req, res) => {
    const orgId = actingOrgId(res);
    const plan = await getTestPlan(ctx.db, orgId, req.params.id);
    const project = await getProject(ctx.db, orgId, plan.project_id);
    const cases = (await findActiveTestCases(ctx.db, orgId, plan.test_case_ids)).map(toTestCaseBody);
    res.json({ test_plan: toTestPlanBody(plan), project: toProjectBody(project), test_cases: cases, skipped_archived: plan.test_case_ids.length - cases.length });
  });

  return router;
}
