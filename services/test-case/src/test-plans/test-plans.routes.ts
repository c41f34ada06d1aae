import { orgPrincipal, parsePagination, serviceRouter, type ServiceRouter, validateBody } from '@assay/http';
import type { TestCaseContext } from '../context.js';
import { iso, queryString } from '../shared.js';
import type { TestPlanWithCases } from './test-plans.service.js';
import { addTestPlanCase, changeTestPlan, createTestPlan, getTestPlan, listTestPlanPage, removeTestPlan, removeTestPlanCase } from './test-plans.service.js';

export function toTestPlanBody(p: TestPlanWithCases) {
  return {
    id: p.id,
    project_id: p.project_id,
    name: p.name,
    description: p.description,
    test_case_ids: p.test_case_ids,
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
  };
}

export function testPlanRoutes(ctx: TestCaseContext): ServiceRouter<'test-case'> {
  const router = serviceRouter('test-case');

  router.post('/api/v1/test-plans', validateBody('TestPlanCreateRequest'), async (req, res) => {
    res.status(201).json(toTestPlanBody(await createTestPlan(ctx.db, orgPrincipal(res).org_id, req.body)));
  });

  router.get('/api/v1/test-plans', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const query = req.query as Record<string, unknown>;
    const { limit, offset } = parsePagination(query, { defaultLimit: 50, maxLimit: 500 });
    const projectId = queryString(query, 'project_id', 64);
    const { rows, total } = await listTestPlanPage(ctx.db, orgId, { projectId, limit, offset });
    res.json({ data: rows.map(toTestPlanBody), pagination: { limit, offset, total } });
  });

  router.get('/api/v1/test-plans/:id', async (req, res) => {
    res.json(toTestPlanBody(await getTestPlan(ctx.db, orgPrincipal(res).org_id, req.params.id)));
  });

  router.put('/api/v1/test-plans/:id', validateBody('TestPlanUpdateRequest'), async (req, res) => {
    res.json(toTestPlanBody(await changeTestPlan(ctx.db, orgPrincipal(res).org_id, req.params.id, req.body)));
  });

  router.delete('/api/v1/test-plans/:id', async (req, res) => {
    await removeTestPlan(ctx.db, orgPrincipal(res).org_id, req.params.id);
    res.json({ id: req.params.id, deleted_at: new Date().toISOString() });
  });

  router.post('/api/v1/test-plans/:id/test-cases', validateBody('TestPlanAddCaseRequest'), async (req, res) => {
    const caseId = req.body.test_case_id as string;
    const result = await addTestPlanCase(ctx.db, orgPrincipal(res).org_id, req.params.id, caseId);
    res.status(result.added ? 201 : 200).json({ test_plan: toTestPlanBody(result.plan), test_case_id: caseId, added: result.added });
  });

  router.delete('/api/v1/test-plans/:id/test-cases/:caseId', async (req, res) => {
    res.json(toTestPlanBody(await removeTestPlanCase(ctx.db, orgPrincipal(res).org_id, req.params.id, req.params.caseId)));
  });

  return router;
}
