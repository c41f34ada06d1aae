import type { Kysely } from 'kysely';
import { isUniqueViolation, withTransaction } from '@assay/db';
import { conflict, notFound, validationError } from '@assay/http';
import type { TestCaseDatabase, TestCaseRow } from '../db/database.js';
import { getProject } from '../projects/projects.service.js';
import { isUuid } from '../shared.js';
import { findTestCase } from '../test-cases/test-cases.repository.js';
import { createTestCases, type TestCaseInput } from '../test-cases/test-cases.service.js';
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

export type { TestPlanWithCases };

type Db = Kysely<TestCaseDatabase>;

/** Every id must be a test case of the plan's project; 400 names the ones that are not. */
async function assertCasesInProject(db: Db, orgId: string, projectId: string, ids: string[]): Promise<void> {
  const found = await existingCaseIds(db, orgId, projectId, ids.filter(isUuid));
  const errors = ids.flatMap((id, i) => (found.has(id) ? [] : [{ field: `test_case_ids[${i}]`, message: `no test case ${id} in this project` }]));
  if (errors.length) throw validationError(errors);
}

/**
 * The plan with its test case ids.
 * @throws AppError 404 for an unknown or malformed id.
 */
export async function getTestPlan(db: Db, orgId: string, id: string): Promise<TestPlanWithCases> {
  const plan = isUuid(id) ? await findTestPlan(db, orgId, id) : undefined;
  if (!plan) throw notFound('Test plan');
  return plan;
}

/**
 * A new plan of the project, holding the given test cases (all of that project).
 * @throws AppError 404 for an unknown project, 400 naming the test cases that are not the project's.
 */
export function createTestPlan(db: Db, orgId: string, input: { project_id: unknown; name: string; description?: string | null; test_case_ids?: string[] }): Promise<TestPlanWithCases> {
  const { project_id, name, description, test_case_ids = [] } = input;
  return withTransaction(db, async (trx) => {
    const project = await getProject(trx, orgId, project_id);
    await assertCasesInProject(trx, orgId, project.id, test_case_ids);
    const row = await insertTestPlan(trx, { org_id: orgId, project_id: project.id, name: name.trim(), description: description ?? null });
    await replaceMembership(trx, row.id, test_case_ids);
    return getTestPlan(trx, orgId, row.id);
  });
}

/**
 * A page of the organization's plans, of one project when `projectId` is given.
 * @throws AppError 404 for an unknown project.
 */
export async function listTestPlanPage(db: Db, orgId: string, opts: { projectId?: string | undefined; limit: number; offset: number }) {
  if (opts.projectId !== undefined) await getProject(db, orgId, opts.projectId);
  return listTestPlans(db, orgId, opts);
}

/**
 * Applies any subset of name, description and the whole list of test cases.
 * @throws AppError 404 for an unknown plan, 400 naming test cases of another project.
 */
export function changeTestPlan(db: Db, orgId: string, id: unknown, input: { name?: string; description?: string | null; test_case_ids?: string[] }): Promise<TestPlanWithCases> {
  return withTransaction(db, async (trx) => {
    const current = isUuid(id) ? await lockTestPlan(trx, orgId, id) : undefined;
    if (!current) throw notFound('Test plan');
    const { name, description, test_case_ids } = input;
    if (test_case_ids) {
      await assertCasesInProject(trx, orgId, current.project_id, test_case_ids);
      await replaceMembership(trx, current.id, test_case_ids);
    }
    await updateTestPlanRow(trx, orgId, current.id, {
      ...(name !== undefined ? { name: name.trim() } : {}),
      ...(description !== undefined ? { description } : {}),
    });
    return getTestPlan(trx, orgId, current.id);
  });
}

/** @throws AppError 404 for an unknown plan. */
export async function removeTestPlan(db: Db, orgId: string, id: string): Promise<void> {
  const deleted = isUuid(id) && (await deleteTestPlanRow(db, orgId, id));
  if (!deleted) throw notFound('Test plan');
}

/**
 * Adds one test case of the plan's project; `added` is false when the plan held it already.
 * @throws AppError 404 for an unknown plan or test case, 400 for a test case of another project.
 */
export function addTestPlanCase(db: Db, orgId: string, planId: unknown, caseId: string): Promise<{ added: boolean; plan: TestPlanWithCases }> {
  return withTransaction(db, async (trx) => {
    const plan = isUuid(planId) ? await lockTestPlan(trx, orgId, planId) : undefined;
    if (!plan) throw notFound('Test plan');
    const testCase = isUuid(caseId) ? await findTestCase(trx, orgId, caseId) : undefined;
    if (!testCase) throw notFound('Test case');
    if (testCase.project_id !== plan.project_id) {
      throw validationError([{ field: 'test_case_id', message: 'belongs to another project than the plan' }]);
    }
    const added = await appendMember(trx, plan.id, caseId);
    return { added, plan: await getTestPlan(trx, orgId, plan.id) };
  });
}

/**
 * Takes one test case out of the plan.
 * @throws AppError 404 for an unknown plan or a test case the plan does not hold.
 */
export function removeTestPlanCase(db: Db, orgId: string, planId: string, caseId: string): Promise<TestPlanWithCases> {
  return withTransaction(db, async (trx) => {
    const current = isUuid(planId) ? await lockTestPlan(trx, orgId, planId) : undefined;
    if (!current) throw notFound('Test plan');
    if (!isUuid(caseId) || !(await removeMember(trx, current.id, caseId))) {
      throw notFound('Test case in this plan');
    }
    return getTestPlan(trx, orgId, current.id);
  });
}

/**
 * Cases made by another service (discovery's generated tests), appended to a
 * plan of their project when `planId` is given, in one transaction.
 * @throws AppError 404 for an unknown project or plan, 400 for a plan of another project, 409 when a kept id exists already.
 */
export function createTestCasesInPlan(db: Db, schema: string, orgId: string, projectId: unknown, inputs: TestCaseInput[], planId: unknown): Promise<TestCaseRow[]> {
  return withTransaction(db, async (trx) => {
    const created = await createTestCases(trx, schema, orgId, projectId, inputs, 'api');
    if (planId !== undefined) {
      const plan = isUuid(planId) ? await lockTestPlan(trx, orgId, planId) : undefined;
      if (!plan) throw notFound('Test plan');
      if (plan.project_id !== projectId) throw validationError([{ field: 'test_plan_id', message: 'belongs to another project' }]);
      for (const row of created) await appendMember(trx, plan.id, row.id);
    }
    return created;
  }).catch((err: unknown) => {
    if (isUniqueViolation(err)) throw conflict('A test case with this id exists already');
    throw err;
  });
}
