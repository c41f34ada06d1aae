import { AppError, conflict, iso, isUuid, notFound, validationError } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import type { ScreenshotBaselineRow } from '../db/database.js';
import { ArtifactRefusedError, findArtifact } from '../artifacts/artifacts.repository.js';
import { findExecution, findResults } from '../executions/executions.repository.js';
import { artifactUrl } from '../execution-events.js';
import { deleteBaseline, findBaselineById, listBaselines, replaceBaseline, type BaselineFilter } from './baselines.repository.js';

/** A baseline as the API answers it: its key, its image's URL, where it came from. */
export function toBaselineBody(r: ScreenshotBaselineRow, publicBaseUrl: string) {
  return {
    id: r.id,
    project_id: r.project_id,
    test_case_id: r.test_case_id,
    step_id: r.step_id,
    name: r.name,
    browser: r.browser,
    viewport: r.viewport,
    width: r.width,
    height: r.height,
    size: r.size,
    origin: r.origin,
    source_execution_id: r.source_execution_id,
    image_url: artifactUrl(publicBaseUrl, r.artifact_id),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

const FILTER_FIELDS = ['test_case_id', 'step_id', 'project_id'] as const;

/**
 * The organization's baselines of a case (or project), optionally of one step.
 * A project, or a case without baselines, that the organization does not have answers 404, as for executions.
 */
export async function listScreenshotBaselines(ctx: ExecutionContext, orgId: string, query: Record<string, unknown>, limit: number, offset: number) {
  const filter: BaselineFilter = {};
  const errors = [];
  for (const f of FILTER_FIELDS) {
    const v = query[f];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '' || v.length > 64) errors.push({ field: f, message: 'must be an id' });
    else filter[f] = v;
  }
  if (!filter.test_case_id && !filter.project_id) errors.push({ field: 'test_case_id', message: 'is required (or project_id)' });
  if (errors.length) throw validationError(errors);
  if (filter.project_id) {
    if (!isUuid(filter.project_id)) throw notFound('Project');
    await ctx.testCases.assertProject(orgId, filter.project_id);
  }
  const { rows, total } = await listBaselines(ctx.db, orgId, filter, limit, offset);
  // No baselines: say whether the case is there at all (a test run's own id has none until it passes).
  if (total === 0 && filter.test_case_id) {
    if (!isUuid(filter.test_case_id)) throw notFound('Test case');
    await ctx.testCases.testCase(orgId, filter.test_case_id);
  }
  return { data: rows.map((r) => toBaselineBody(r, ctx.publicBaseUrl)), pagination: { limit, offset, total } };
}

export async function getScreenshotBaseline(ctx: ExecutionContext, orgId: string, id: string) {
  const row = isUuid(id) ? await findBaselineById(ctx.db, orgId, id) : undefined;
  if (!row) throw notFound('Screenshot baseline');
  return toBaselineBody(row, ctx.publicBaseUrl);
}

/**
 * Accepts a failed `assert_screenshot` step's capture as the new baseline of
 * its case, step, browser and viewport (replacing the old one).
 * 404: the execution, test or step is not the organization's; 409: the step
 * did not fail on a comparison, or its capture has expired.
 */
export async function approveScreenshot(ctx: ExecutionContext, orgId: string, body: { execution_id: string; test_id: string; step_id: string }) {
  const execution = isUuid(body.execution_id) ? await findExecution(ctx.db, orgId, body.execution_id) : undefined;
  if (!execution) throw notFound('Execution');
  const result = (await findResults(ctx.db, execution.id)).find((r) => r.test_case_id === body.test_id);
  if (!result) throw new AppError('not_found', `Test ${body.test_id} is not part of execution ${execution.id}`);
  const outcome = result.steps.find((s) => s.step_id === body.step_id);
  if (!outcome) throw new AppError('not_found', `Step ${body.step_id} did not run in test ${body.test_id} of execution ${execution.id}`);
  const visual = outcome.visual;
  if (!visual || visual.result !== 'mismatch') throw conflict(`Step ${body.step_id} did not fail on a screenshot comparison: there is no capture to accept`);
  const actual = visual.actual_artifact_id ? await findArtifact(ctx.db, orgId, visual.actual_artifact_id) : undefined;
  if (!actual) throw conflict('The failed run’s capture is no longer stored (it expired, or the storage quota refused it): run the case again and accept that run');
  const step = result.steps_snapshot.find((s) => s.step_id === body.step_id);
  try {
    const row = await replaceBaseline(ctx.db, ctx.artifacts, {
      org_id: orgId,
      project_id: execution.project_id,
      test_case_id: result.test_case_id,
      step_id: body.step_id,
      name: step?.value || visual.name || null,
      browser: visual.browser,
      viewport: visual.viewport,
      png: actual.data,
      origin: 'approved',
      source_execution_id: execution.id,
    });
    return toBaselineBody(row, ctx.publicBaseUrl);
  } catch (err) {
    if (err instanceof ArtifactRefusedError) throw new AppError('insufficient_permissions', `Quota exceeded: ${err.message}`, { quota: 'artifact_storage', limit_bytes: ctx.artifacts.orgQuotaBytes });
    throw err;
  }
}

export async function removeScreenshotBaseline(ctx: ExecutionContext, orgId: string, id: string) {
  if (!isUuid(id) || !(await deleteBaseline(ctx.db, orgId, id))) throw notFound('Screenshot baseline');
  return { id, deleted: true };
}
