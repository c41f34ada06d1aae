import { conflict, iso, isUuid, notFound, validationError } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import type { ScheduleRow } from '../db/database.js';
import { cronProblems, nextOccurrence, nextOccurrences } from '@assay/contracts';
import { countSchedules, deleteSchedule, findSchedule, insertSchedule, listSchedules, updateSchedule } from './schedules.repository.js';

/** Schedules one test plan may have. */
export const MAX_SCHEDULES_PER_PLAN = 10;

export interface ScheduleInput {
  cron?: string;
  timezone?: string;
  environment?: string | null;
  variables?: Record<string, string>;
  enabled?: boolean;
}

export function toScheduleBody(row: ScheduleRow, now = new Date()) {
  const next = row.enabled ? nextOccurrences(row.cron, row.timezone, new Date(Math.max(now.getTime(), (row.next_run_at?.getTime() ?? now.getTime()) - 1)), 5) : [];
  return {
    id: row.id,
    test_plan_id: row.test_plan_id,
    project_id: row.project_id,
    cron: row.cron,
    timezone: row.timezone,
    environment: row.environment,
    variables: row.variables,
    enabled: row.enabled,
    next_run_at: iso(row.next_run_at),
    next_runs: next.map((d) => d.toISOString()),
    last_run_at: iso(row.last_run_at),
    last_execution_id: row.last_execution_id,
    last_error: row.last_error,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * Checks the plan with test-case (it must be the organization's) and the
 * environment against its project.
 * @throws AppError 404 for another organization's or an unknown plan, 400 for an unknown environment.
 */
async function planOf(ctx: ExecutionContext, orgId: string, planId: string, environment: string | null | undefined) {
  if (!isUuid(planId)) throw notFound('Test plan');
  const snapshot = await ctx.testCases.snapshot(orgId, planId);
  if (environment && !snapshot.project.environments[environment]) {
    const known = Object.keys(snapshot.project.environments);
    throw validationError([{ field: 'environment', message: known.length ? `must be one of ${known.join(', ')}` : 'the project defines no environments' }]);
  }
  return snapshot;
}

function assertCron(cron: string, timezone: string): void {
  const problems = cronProblems(cron, timezone);
  if (problems.length) throw validationError(problems);
}

const normalise = (cron: string) => cron.trim().split(/\s+/).join(' ');

export async function createSchedule(ctx: ExecutionContext, orgId: string, planId: string, input: Required<Pick<ScheduleInput, 'cron' | 'timezone' | 'enabled'>> & ScheduleInput) {
  assertCron(input.cron, input.timezone);
  const snapshot = await planOf(ctx, orgId, planId, input.environment);
  if ((await countSchedules(ctx.db, orgId, planId)) >= MAX_SCHEDULES_PER_PLAN) {
    throw conflict(`This test plan already has ${MAX_SCHEDULES_PER_PLAN} schedules, the maximum`, { limit: MAX_SCHEDULES_PER_PLAN });
  }
  const cron = normalise(input.cron);
  const row = await insertSchedule(ctx.db, {
    org_id: orgId,
    test_plan_id: planId,
    project_id: snapshot.project.id,
    cron,
    timezone: input.timezone,
    environment: input.environment ?? null,
    variables: JSON.stringify(input.variables ?? {}),
    enabled: input.enabled,
    next_run_at: input.enabled ? nextOccurrence(cron, input.timezone, new Date()) : null,
    last_run_at: null,
    last_execution_id: null,
    last_error: null,
  });
  return toScheduleBody(row);
}

export async function getSchedule(ctx: ExecutionContext, orgId: string, planId: string, id: string): Promise<ScheduleRow> {
  const row = isUuid(planId) && isUuid(id) ? await findSchedule(ctx.db, orgId, planId, id) : undefined;
  if (!row) throw notFound('Schedule');
  return row;
}

export async function listPlanSchedules(ctx: ExecutionContext, orgId: string, planId: string, limit: number, offset: number) {
  await planOf(ctx, orgId, planId, undefined);
  const { rows, total } = await listSchedules(ctx.db, orgId, planId, limit, offset);
  return { data: rows.map((r) => toScheduleBody(r)), pagination: { limit, offset, total } };
}

/** A changed cron, time zone or enabled flag recomputes the next run from now. */
export async function changeSchedule(ctx: ExecutionContext, orgId: string, planId: string, id: string, input: ScheduleInput) {
  const row = await getSchedule(ctx, orgId, planId, id);
  const cron = input.cron !== undefined ? normalise(input.cron) : row.cron;
  const timezone = input.timezone ?? row.timezone;
  const enabled = input.enabled ?? row.enabled;
  assertCron(cron, timezone);
  if (input.environment) await planOf(ctx, orgId, planId, input.environment);
  const timing = input.cron !== undefined || input.timezone !== undefined || input.enabled !== undefined;
  const updated = await updateSchedule(ctx.db, row.id, {
    cron,
    timezone,
    enabled,
    ...(input.environment !== undefined ? { environment: input.environment } : {}),
    ...(input.variables !== undefined ? { variables: JSON.stringify(input.variables) } : {}),
    ...(timing ? { next_run_at: enabled ? nextOccurrence(cron, timezone, new Date()) : null } : {}),
  });
  return toScheduleBody(updated);
}

export async function removeSchedule(ctx: ExecutionContext, orgId: string, planId: string, id: string) {
  if (!isUuid(planId) || !isUuid(id) || !(await deleteSchedule(ctx.db, orgId, planId, id))) throw notFound('Schedule');
  return { id, deleted: true };
}
