import { Router } from 'express';
import type { Kysely } from 'kysely';
import { withTransaction } from '@assay/db';
import { notFound, orgPrincipal, parsePagination, validateBody, validationError } from '@assay/http';
import type { TestCaseContext } from '../context.js';
import type { TestCaseDatabase } from '../db/database.js';
import { findProject } from '../projects/projects.repository.js';
import { isUuid, iso, queryString } from '../shared.js';
import { findTestCase } from '../test-cases/test-cases.repository.js';
import {
  appendMember,
  deleteTestPlanRow,
  existingCaseIds,
  findTestPlan,
  insertTestPlan,
  listTestPlans,
  lockTestPlan,
  removeMember,
  replaceMembership,
  updateTestPlanRow,
  type TestPlanWithCases,
} from './test-plans.repository.js';

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

/** Every id must be a test case of the plan's project; 400 names the ones that are not. */
async function assertCasesInProject(db: Kysely<TestCaseDatabase>, orgId: string, projectId: string, ids: string[]): Promise<void> {
  const found = await existingCaseIds(db, orgId, projectId, ids.filter(isUuid));
  const errors = ids.flatMap((id, i) => (found.has(id) ? [] : [{ field: `test_case_ids[${i}]`, message: `no test case ${id} in this project` }]));
  if (errors.length) throw validationError(errors);
}

async function planOr404(db: Kysely<TestCaseDatabase>, orgId: string, id: string): Promise<TestPlanWithCases> {
  const plan = isUuid(id) ? await findTestPlan(db, orgId, id) : undefined;
  if (!plan) throw notFound('Test plan');
  return plan;
}

export function testPlanRoutes(ctx: TestCaseContext): Router {
  const router = Router();

  router.post('/api/v1/test-plans', validateBody('TestPlanCreateRequest'), async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const { project_id, name, description, test_case_ids = [] } = req.body;
    const plan = await withTransaction(ctx.db, async (trx) => {
      if (!isUuid(project_id) || !(await findProject(trx, orgId, project_id))) throw notFound('Project');
      await assertCasesInProject(trx, orgId, project_id, test_case_ids);
      const row = await insertTestPlan(trx, { org_id: orgId, project_id, name: name.trim(), description: description ?? null });
      await replaceMembership(trx, row.id, test_case_ids);
      return planOr404(trx, orgId, row.id);
    });
    res.status(201).json(toTestPlanBody(plan));
  });

  router.get('/api/v1/test-plans', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const query = req.query as Record<string, unknown>;
    const { limit, offset } = parsePagination(query, { defaultLimit: 50, maxLimit: 500 });
    const projectId = queryString(query, 'project_id', 64);
    if (projectId !== undefined && (!isUuid(projectId) || !(await findProject(ctx.db, orgId, projectId)))) throw notFound('Project');
    const { rows, total } = await listTestPlans(ctx.db, orgId, { projectId, limit, offset });
    res.json({ data: rows.map(toTestPlanBody), pagination: { limit, offset, total } });
  });

  router.get('/api/v1/test-plans/:id', async (req, res) => {
    res.json(toTestPlanBody(await planOr404(ctx.db, orgPrincipal(res).org_id, req.params.id)));
  });

  router.put('/api/v1/test-plans/:id', validateBody('TestPlanUpdateRequest'), async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const plan = await withTransaction(ctx.db, async (trx) => {
      const current = isUuid(req.params.id) ? await lockTestPlan(trx, orgId, req.params.id) : undefined;
      if (!current) throw notFound('Test plan');
      const { name, description, test_case_ids } = req.body;
      if (test_case_ids) {
        await assertCasesInProject(trx, orgId, current.project_id, test_case_ids);
        await replaceMembership(trx, current.id, test_case_ids);
      }
      await updateTestPlanRow(trx, orgId, current.id, {
        ...(name !== undefined ? { name: name.trim() } : {}),
        ...(description !== undefined ? { description } : {}),
      });
      return planOr404(trx, orgId, current.id);
    });
    res.json(toTestPlanBody(plan));
  });

  router.delete('/api/v1/test-plans/:id', async (req, res) => {
    const deleted = isUuid(req.params.id) && (await deleteTestPlanRow(ctx.db, orgPrincipal(res).org_id, req.params.id));
    if (!deleted) throw notFound('Test plan');
    res.json({ id: req.params.id, deleted_at: new Date().toISOString() });
  });

  router.post('/api/v1/test-plans/:id/test-cases', validateBody('TestPlanAddCaseRequest'), async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const caseId = req.body.test_case_id as string;
    const result = await withTransaction(ctx.db, async (trx) => {
      const plan = isUuid(req.params.id) ? await lockTestPlan(trx, orgId, req.params.id) : undefined;
      if (!plan) throw notFound('Test plan');
      const testCase = isUuid(caseId) ? await findTestCase(trx, orgId, caseId) : undefined;
      if (!testCase) throw notFound('Test case');
      if (testCase.project_id !== plan.project_id) {
        throw validationError([{ field: 'test_case_id', message: 'belongs to another project than the plan' }]);
      }
      const added = await appendMember(trx, plan.id, caseId);
      return { added, plan: await planOr404(trx, orgId, plan.id) };
    });
    res.status(result.added ? 201 : 200).json({ test_plan: toTestPlanBody(result.plan), test_case_id: caseId, added: result.added });
  });

  router.delete('/api/v1/test-plans/:id/test-cases/:caseId', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const plan = await withTransaction(ctx.db, async (trx) => {
      const current = isUuid(req.params.id) ? await lockTestPlan(trx, orgId, req.params.id) : undefined;
      if (!current) throw notFound('Test plan');
      if (!isUuid(req.params.caseId) || !(await removeMember(trx, current.id, req.params.caseId))) {
        throw notFound('Test case in this plan');
      }
      return planOr404(trx, orgId, current.id);
    });
    res.json(toTestPlanBody(plan));
  });

  return router;
}
