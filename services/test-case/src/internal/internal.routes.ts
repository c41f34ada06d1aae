import { Router } from 'express';
import { forbidden, notFound, requireServicePrincipal } from '@assay/http';
import type { Principal } from '@assay/principal';
import type { TestCaseContext } from '../context.js';
import { findProject } from '../projects/projects.repository.js';
import { toProjectBody } from '../projects/projects.routes.js';
import { isUuid } from '../shared.js';
import { toTestCaseBody } from '../test-cases/test-cases.service.js';
import { toTestPlanBody } from '../test-plans/test-plans.routes.js';
import { findTestPlan } from '../test-plans/test-plans.repository.js';
import { findTestCases } from '../test-cases/test-cases.repository.js';

/** Routes for other services; the service principal names the organization it acts for. */
export function internalRoutes(ctx: TestCaseContext): Router {
  const router = Router();
  router.use('/internal', requireServicePrincipal);

  // What execution-runner needs to run a plan: the plan, its project and its active cases in plan order.
  router.get('/internal/test-plans/:id/snapshot', async (req, res) => {
    const orgId = (res.locals.principal as Principal).org_id;
    if (!orgId) throw forbidden('Internal calls must name the organization they act for');
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
