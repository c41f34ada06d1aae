import type { Kysely } from 'kysely';
import { enqueueEvents } from '@assay/bus';
import { withTransaction } from '@assay/db';
import { conflict, notFound, validationError } from '@assay/http';
import type { FieldError } from '@assay/contracts';
import type { TestCaseDatabase, TestCaseRow } from '../db/database.js';
import { isUuid } from '../shared.js';
import { STEP_LIMITS, type Step } from '../test-cases/steps.js';
import { findTestCase, updateTestCaseRow } from '../test-cases/test-cases.repository.js';

export interface ReplaceSelectorRequest {
  /** The steps whose selector changes. */
  step_ids: string[];
  /** Their selector now (the one that failed). */
  from: string;
  to: string;
  /** The case's steps as the caller last saw them: a case edited since is not touched. */
  expected_steps: Array<Record<string, unknown>>;
  /** Who asks and why, carried into `test.case.updated`. */
  source: string;
  execution_id?: string;
}

const isString = (v: unknown, max: number): v is string => typeof v === 'string' && v.trim() !== '' && v.length <= max;

function parse(body: unknown): ReplaceSelectorRequest {
  const b = (body ?? {}) as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (!Array.isArray(b.step_ids) || b.step_ids.length === 0 || b.step_ids.length > STEP_LIMITS.maxSteps || !b.step_ids.every((s) => isString(s, 64))) {
    errors.push({ field: 'step_ids', message: 'must be 1 or more step ids' });
  }
  if (!isString(b.from, STEP_LIMITS.selectorLength)) errors.push({ field: 'from', message: 'must be the current selector' });
  if (!isString(b.to, STEP_LIMITS.selectorLength)) errors.push({ field: 'to', message: `must be a selector of at most ${STEP_LIMITS.selectorLength} characters` });
  if (!Array.isArray(b.expected_steps)) errors.push({ field: 'expected_steps', message: 'must be the steps as last seen' });
  if (!isString(b.source, 64)) errors.push({ field: 'source', message: 'is required' });
  if (b.execution_id !== undefined && !isUuid(b.execution_id)) errors.push({ field: 'execution_id', message: 'must be a uuid' });
  if (errors.length) throw validationError(errors);
  return b as unknown as ReplaceSelectorRequest;
}

/** JSON with object keys sorted (jsonb reorders them). */
const stableJson = (v: unknown): string =>
  v && typeof v === 'object' && !Array.isArray(v)
    ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`).join(',')}}`
    : Array.isArray(v) ? `[${v.map(stableJson).join(',')}]` : JSON.stringify(v) ?? 'null';

// The parts of a step that decide what it does; jsonb may reorder keys, so steps are compared by these.
const shape = (s: Record<string, unknown>) =>
  JSON.stringify([s.step_id, s.action, s.selector ?? null, s.value ?? null, s.timeout ?? null, s.description ?? null, ...(s.action === 'request' ? [stableJson([s.request, s.expect ?? null, s.save_as ?? null])] : [])]);

/**
 * Replaces the selector of some steps of a case (an applied failure-analysis
 * suggestion) with `test.case.updated` carrying the change.
 * @throws AppError 404 for an unknown case, 409 when the case changed since
 * the caller saw it (steps, or the selector of a named step), 400 for a bad body.
 */
export async function replaceSelector(db: Kysely<TestCaseDatabase>, schema: string, orgId: string, id: string, body: unknown): Promise<TestCaseRow> {
  const req = parse(body);
  return withTransaction(db, async (trx) => {
    const current = isUuid(id) ? await findTestCase(trx, orgId, id, true) : undefined;
    if (!current) throw notFound('Test case');
    if (current.status === 'archived') throw conflict('The test case is archived');
    const steps = current.steps as Step[];
    const same = steps.length === req.expected_steps.length && steps.every((s, i) => shape(s as unknown as Record<string, unknown>) === shape(req.expected_steps[i]!));
    if (!same) throw conflict('The test case changed since the failed run: review the suggestion against its current steps');
    const wanted = new Set(req.step_ids);
    const targets = steps.filter((s) => wanted.has(s.step_id));
    if (targets.length !== wanted.size || targets.some((s) => s.selector !== req.from)) {
      throw conflict(`The steps no longer use the selector ${req.from}`);
    }
    const next = steps.map((s) => (wanted.has(s.step_id) ? { ...s, selector: req.to } : s));
    const row = await updateTestCaseRow(trx, orgId, id, { steps: JSON.stringify(next) });
    await enqueueEvents(trx, schema, [
      {
        event: 'test.case.updated',
        organization_id: orgId,
        project_id: row.project_id,
        key: row.id,
        data: {
          test_case_id: row.id,
          name: row.name,
          priority: row.priority,
          changes: { steps: { before: steps, after: next } },
          source: req.source,
          ...(req.execution_id ? { execution_id: req.execution_id } : {}),
        },
      },
    ]);
    return row;
  });
}
