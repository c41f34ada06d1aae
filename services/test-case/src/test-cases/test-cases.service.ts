import type { Kysely } from 'kysely';
import { enqueueEvents, type NewEvent } from '@assay/bus';
import { contractValidator, type FieldError } from '@assay/contracts';
import { withTransaction } from '@assay/db';
import { conflict, notFound, validationError } from '@assay/http';
import type { Priority, ProjectRow, TestCaseDatabase, TestCaseRow } from '../db/database.js';
import { getProject } from '../projects/projects.service.js';
import { isUuid, iso } from '../shared.js';
import { normaliseSteps, validateSteps, type Step } from './steps.js';
import {
  archiveTestCases,
  countPlanMemberships,
  deleteTestCases,
  findTestCase,
  findTestCaseIdsTagged,
  findTestCases,
  insertTestCases,
  listTestCases,
  updateTestCaseRow,
  type TestCaseFilter,
} from './test-cases.repository.js';

type Db = Kysely<TestCaseDatabase>;

export function toTestCaseBody(row: TestCaseRow) {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    description: row.description,
    status: row.status,
    priority: row.priority,
    steps: row.steps,
    tags: row.tags,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    deleted_at: iso(row.deleted_at),
  };
}

/**
 * Validates a create or update body: the contract schema for the fields, the
 * action table for the steps (errors name `steps[i].field`).
 * @throws AppError 400 listing every problem.
 */
export function assertValidTestCaseBody(body: unknown, mode: 'create' | 'update'): void {
  const schema = mode === 'create' ? 'TestCaseCreateRequest' : 'TestCaseUpdateRequest';
  const errors: FieldError[] = contractValidator()
    .validate(schema, body)
    .filter((e) => !/^steps($|\.|\[)/.test(e.field));
  const steps = (body as Record<string, unknown> | null)?.steps;
  if (steps !== undefined) errors.push(...validateSteps(steps));
  else if (mode === 'create' && typeof body === 'object' && body !== null) errors.push({ field: 'steps', message: 'is required' });
  if (errors.length) throw validationError(errors);
}

function createdEvent(orgId: string, row: TestCaseRow, source: 'api' | 'import'): NewEvent {
  return {
    event: 'test.case.created',
    organization_id: orgId,
    project_id: row.project_id,
    key: row.id,
    data: {
      test_case: {
        id: row.id,
        project_id: row.project_id,
        name: row.name,
        description: row.description,
        status: row.status,
        priority: row.priority,
        tags: row.tags,
        steps: row.steps,
      },
      source,
    },
  };
}

function deletedEvent(orgId: string, row: TestCaseRow, permanent: boolean): NewEvent {
  return {
    event: 'test.case.deleted',
    organization_id: orgId,
    project_id: row.project_id,
    key: row.id,
    data: { test_case_id: row.id, name: row.name, project_id: row.project_id, priority: row.priority, permanent },
  };
}

async function requireProject(db: Db, orgId: string, projectId: unknown): Promise<string> {
  await getProject(db, orgId, projectId);
  return projectId as string;
}

export interface TestCaseInput {
  name: string;
  description?: string | null;
  tags?: string[];
  priority?: Priority;
  steps: Array<Record<string, unknown>>;
  /** Internal creates only: the case's id and its steps' ids are kept (a saved exploratory run keeps its history). */
  keep_ids?: { id: string };
}

/**
 * Creates validated cases in one transaction with batched inserts and events;
 * `source` tells API creates from imports in `test.case.created`.
 * @throws AppError 404 when the project is not the organization's.
 */
export async function createTestCases(db: Db, schema: string, orgId: string, projectId: unknown, inputs: TestCaseInput[], source: 'api' | 'import') {
  return withTransaction(db, async (trx) => {
    const project = await requireProject(trx, orgId, projectId);
    const rows = await insertTestCases(
      trx,
      inputs.map((c) => ({
        org_id: orgId,
        project_id: project,
        name: c.name.trim(),
        description: c.description ?? null,
        tags: c.tags ?? [],
        ...(c.priority ? { priority: c.priority } : {}),
        ...(c.keep_ids ? { id: c.keep_ids.id } : {}),
        steps: JSON.stringify(normaliseSteps(c.steps, c.keep_ids ? new Set(c.steps.map((s) => String(s.step_id))) : undefined)),
      })),
    );
    await enqueueEvents(trx, schema, rows.map((r) => createdEvent(orgId, r, source)));
    return rows;
  });
}

/** A page of the test cases of a project (found with `getProject`), filtered. */
export function listTestCasePage(db: Db, orgId: string, project: ProjectRow, f: Omit<TestCaseFilter, 'projectId'>): Promise<{ rows: TestCaseRow[]; total: number }> {
  return listTestCases(db, orgId, { ...f, projectId: project.id });
}

/**
 * The ids of a project's cases (deleted ones too) carrying any of the tags.
 * @throws AppError 404 for an unknown project.
 */
export async function taggedTestCaseIds(db: Db, orgId: string, projectId: string, tags: string[]): Promise<string[]> {
  const project = await getProject(db, orgId, projectId);
  return findTestCaseIdsTagged(db, orgId, project.id, tags);
}

/** The cases of these ids in the order given, active ones only (archived and unknown ids are left out). */
export async function findActiveTestCases(db: Db, orgId: string, ids: string[]): Promise<TestCaseRow[]> {
  const byId = new Map((await findTestCases(db, orgId, ids)).map((c) => [c.id, c]));
  return ids.flatMap((id) => {
    const c = byId.get(id);
    return c && c.status === 'active' ? [c] : [];
  });
}

export async function getTestCase(db: Db, orgId: string, id: string): Promise<TestCaseRow> {
  const row = isUuid(id) ? await findTestCase(db, orgId, id) : undefined;
  if (!row) throw notFound('Test case');
  return row;
}

const EDITABLE = ['name', 'description', 'tags', 'priority', 'status', 'steps'] as const;

/**
 * Applies any subset of fields; `steps` replaces the array (steps that carry
 * an existing step_id keep it). Emits `test.case.updated` with each changed
 * field before and after; a body that changes nothing changes nothing.
 */
export async function updateTestCase(db: Db, schema: string, orgId: string, id: string, body: Record<string, unknown>) {
  return withTransaction(db, async (trx) => {
    const current = isUuid(id) ? await findTestCase(trx, orgId, id, true) : undefined;
    if (!current) throw notFound('Test case');
    const readOnlyMismatch = (['id', 'project_id'] as const).filter((f) => body[f] !== undefined && body[f] !== current[f]);
    if (readOnlyMismatch.length) {
      throw validationError(readOnlyMismatch.map((f) => ({ field: f, message: 'cannot be changed' })));
    }
    const next: Record<string, unknown> = {};
    for (const field of EDITABLE) {
      if (body[field] === undefined) continue;
      if (field === 'steps') {
        next.steps = normaliseSteps(body.steps as Array<Record<string, unknown>>, new Set(current.steps.map((s: Step) => s.step_id)));
      } else if (field === 'name') next.name = (body.name as string).trim();
      else next[field] = body[field];
    }
    const changes: Record<string, { before: unknown; after: unknown }> = {};
    for (const [field, after] of Object.entries(next)) {
      const before = current[field as keyof TestCaseRow];
      if (JSON.stringify(before) !== JSON.stringify(after)) changes[field] = { before, after };
    }
    if (Object.keys(changes).length === 0) return current;
    const patch: Record<string, unknown> = {};
    for (const field of Object.keys(changes)) patch[field] = field === 'steps' ? JSON.stringify(next.steps) : next[field];
    if (changes.status) patch.deleted_at = next.status === 'archived' ? new Date() : null;
    const row = await updateTestCaseRow(trx, orgId, id, patch);
    await enqueueEvents(trx, schema, [
      { event: 'test.case.updated', organization_id: orgId, project_id: row.project_id, key: row.id, data: { test_case_id: row.id, name: row.name, priority: row.priority, changes } },
    ]);
    return row;
  });
}

/** Archives (idempotent: an archived case answers as it is) or removes permanently. */
export async function deleteTestCase(db: Db, schema: string, orgId: string, id: string, permanent: boolean) {
  return withTransaction(db, async (trx) => {
    const current = isUuid(id) ? await findTestCase(trx, orgId, id, true) : undefined;
    if (!current) throw notFound('Test case');
    if (permanent) {
      const memberships = await countPlanMemberships(trx, [id]);
      await deleteTestCases(trx, orgId, [id]);
      await enqueueEvents(trx, schema, [deletedEvent(orgId, current, true)]);
      return { id, name: current.name, status: 'deleted' as const, deleted_at: new Date().toISOString(), removed_from_test_plans: memberships };
    }
    if (current.status === 'archived') return { id, status: 'archived' as const, deleted_at: iso(current.deleted_at) };
    const [row] = await archiveTestCases(trx, orgId, [id]);
    await enqueueEvents(trx, schema, [deletedEvent(orgId, row!, false)]);
    return { id, status: 'archived' as const, deleted_at: iso(row!.deleted_at) };
  });
}

export async function restoreTestCase(db: Db, schema: string, orgId: string, id: string) {
  return withTransaction(db, async (trx) => {
    const current = isUuid(id) ? await findTestCase(trx, orgId, id, true) : undefined;
    if (!current) throw notFound('Test case');
    if (current.status === 'active') throw conflict('The test case is not archived');
    const row = await updateTestCaseRow(trx, orgId, id, { status: 'active', deleted_at: null });
    await enqueueEvents(trx, schema, [
      {
        event: 'test.case.updated',
        organization_id: orgId,
        project_id: row.project_id,
        key: row.id,
        data: { test_case_id: row.id, name: row.name, priority: row.priority, changes: { status: { before: 'archived', after: 'active' } } },
      },
    ]);
    return row;
  });
}

/**
 * Archives or deletes up to 1,000 cases in one transaction. Every id gets a
 * status; unknown ids and other organizations' ids are `not_found` alike.
 */
export async function bulkDeleteTestCases(db: Db, schema: string, orgId: string, ids: string[], soft: boolean) {
  return withTransaction(db, async (trx) => {
    const unique = [...new Set(ids.filter(isUuid))];
    const found = new Map((await findTestCases(trx, orgId, unique, true)).map((r) => [r.id, r]));
    const targets = [...found.keys()];
    const events: NewEvent[] = [];
    if (soft) {
      for (const row of await archiveTestCases(trx, orgId, targets)) events.push(deletedEvent(orgId, row, false));
    } else {
      for (const row of await deleteTestCases(trx, orgId, targets)) events.push(deletedEvent(orgId, row, true));
    }
    await enqueueEvents(trx, schema, events);
    const status = soft ? 'archived' : 'deleted';
    const results = ids.map((id) => ({ id, status: found.has(id) ? status : ('not_found' as const) }));
    return { deleted: found.size, failed: results.filter((r) => r.status === 'not_found').length, results };
  });
}
