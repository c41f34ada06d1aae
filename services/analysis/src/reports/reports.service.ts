import type { Kysely } from 'kysely';
import { enqueueEvent } from '@assay/bus';
import { withTransaction } from '@assay/db';
import { cronProblems, nextOccurrence } from '@assay/contracts';
import { iso, isUuid, notFound, validationError } from '@assay/http';
import type { AnalysisContext } from '../context.js';
import type { AnalysisDatabase, ReportDefinitionRow, ReportFilters, ReportPeriod, ReportSnapshotRow } from '../db/database.js';
import { flakyTests, passRate, slowestSteps, type ReportKind, type ReportTable } from './report-data.js';
import { countCategories, deleteReport, findReport, findSnapshot, insertReport, insertSnapshot, listReports, listSnapshots, openIssues, updateReport } from './reports.repository.js';
import { buildDashboard } from './dashboard.js';

const DAY_MS = 86_400_000;

export interface ReportInput {
  project_id: string;
  name: string;
  kind: ReportKind;
  filters?: ReportFilters;
  period?: ReportPeriod;
  schedule?: ReportScheduleInput | null;
}

export interface ReportScheduleInput {
  cron: string;
  timezone?: string;
}

/** What a snapshot freezes: the tables of the report's kind over its period. */
export interface ReportData {
  kind: ReportKind;
  period: { from: string; to: string };
  executions_counted: number;
  tables: Record<string, ReportTable>;
}

/**
 * The period's bounds: a fixed range, or the `last_days` (default 30) up to `now`.
 * @throws AppError 400 for from ≥ to.
 */
export function periodBounds(period: ReportPeriod, now: Date): { from: Date; to: Date } {
  if (period.from !== undefined || period.to !== undefined) {
    const from = new Date(period.from ?? 0);
    const to = period.to !== undefined ? new Date(period.to) : now;
    if (!(from < to)) throw validationError([{ field: 'period', message: 'from must be before to' }]);
    return { from, to };
  }
  return { from: new Date(now.getTime() - (period.last_days ?? 30) * DAY_MS), to: now };
}

/** Checks a definition's period (the schema checks shapes; this the rules between fields). */
export function assertPeriod(period: ReportPeriod | undefined): void {
  if (!period) return;
  if (period.last_days !== undefined && (period.from !== undefined || period.to !== undefined)) {
    throw validationError([{ field: 'period', message: 'give last_days, or from and to, not both' }]);
  }
  periodBounds(period, new Date());
}

export async function getReport(ctx: AnalysisContext, orgId: string, id: string): Promise<ReportDefinitionRow> {
  const row = isUuid(id) ? await findReport(ctx.db, orgId, id) : undefined;
  if (!row) throw notFound('Report');
  return row;
}

/**
 * The definition's schedule columns for a schedule (or none), its first
 * occurrence counted from `now`.
 * @throws AppError 400 for a cron or time zone that does not parse.
 */
export function scheduleColumns(schedule: ReportScheduleInput | null, now: Date) {
  if (schedule === null) return { schedule_cron: null, schedule_timezone: null, next_snapshot_at: null, last_schedule_error: null };
  const cron = schedule.cron.trim().split(/\s+/).join(' ');
  const timezone = schedule.timezone ?? 'UTC';
  const problems = cronProblems(cron, timezone);
  if (problems.length) throw validationError(problems.map((p) => ({ ...p, field: `schedule.${p.field}` })));
  return { schedule_cron: cron, schedule_timezone: timezone, next_snapshot_at: nextOccurrence(cron, timezone, now), last_schedule_error: null };
}

export function toReportBody(r: ReportDefinitionRow) {
  const schedule =
    r.schedule_cron && r.schedule_timezone
      ? { cron: r.schedule_cron, timezone: r.schedule_timezone, next_snapshot_at: iso(r.next_snapshot_at), last_snapshot_at: iso(r.last_snapshot_at), last_error: r.last_schedule_error }
      : null;
  return { id: r.id, project_id: r.project_id, name: r.name, kind: r.kind, filters: r.filters, period: r.period, schedule, created_at: iso(r.created_at), updated_at: iso(r.updated_at) };
}

/**
 * Computes the report from the runner's raw results of finished plan
 * executions and the analysis's own categories and issues, as of `now`.
 */
export async function computeReport(ctx: AnalysisContext, r: ReportDefinitionRow, now: Date): Promise<ReportData> {
  const { from, to } = periodBounds(r.period, now);
  const kind = r.kind as ReportKind;
  const base = { kind, period: { from: from.toISOString(), to: to.toISOString() } };
  if (kind === 'open_issues') {
    const issues = await openIssues(ctx.db, r.org_id, r.project_id);
    return {
      ...base,
      executions_counted: 0,
      tables: {
        issues: {
          columns: ['issue_id', 'title', 'category', 'status', 'test_case_id', 'test_name', 'occurrences', 'first_seen', 'last_seen'],
          rows: issues.map((i) => [i.id, i.title, i.category, i.status, i.test_case_id, i.test_name, i.occurrences, iso(i.first_seen), iso(i.last_seen)]),
        },
      },
    };
  }
  let executions = await ctx.runner.reportResults(r.org_id, {
    projectId: r.project_id,
    from,
    to,
    ...(r.filters.test_plan_ids ? { testPlanIds: r.filters.test_plan_ids } : {}),
    ...(r.filters.environments ? { environments: r.filters.environments } : {}),
  });
  // Tags: only the tagged cases' results count, and an execution without any of them is not counted.
  let tagged: Set<string> | undefined;
  if (r.filters.tags?.length) {
    tagged = new Set(await ctx.testCases.taggedTestCaseIds(r.org_id, r.project_id, r.filters.tags));
    executions = executions.map((e) => ({ ...e, tests: e.tests.filter((t) => tagged!.has(t.test_id)) })).filter((e) => e.tests.length > 0);
  }
  const counted = { ...base, executions_counted: executions.length };
  switch (kind) {
    case 'pass_rate':
      return { ...counted, tables: passRate(executions) };
    case 'flaky_tests':
      return { ...counted, tables: { tests: flakyTests(executions) } };
    case 'slowest_steps':
      return { ...counted, tables: { steps: slowestSteps(executions) } };
    case 'failure_categories': {
      const counts = await countCategories(ctx.db, r.org_id, executions.map((e) => e.id), tagged ? [...tagged] : undefined);
      return { ...counted, tables: { categories: { columns: ['category', 'failures'], rows: counts.map((c) => [c.category, c.n]) } } };
    }
  }
}

/** How a snapshot came to be: by hand, or for an occurrence of the report's schedule. */
export type SnapshotTrigger = { trigger: 'manual' } | { trigger: 'schedule'; scheduledFor: Date; missed: number };

/**
 * Freezes the report's data as of `now` in a new snapshot row (which never
 * changes afterwards) and writes `report.snapshot.created` in the same
 * transaction. Undefined when the schedule's occurrence already has its
 * snapshot (another replica took it).
 */
export async function takeSnapshot(
  ctx: AnalysisContext,
  trx: Kysely<AnalysisDatabase>,
  r: ReportDefinitionRow,
  how: SnapshotTrigger = { trigger: 'manual' },
  now = new Date(),
): Promise<ReportSnapshotRow | undefined> {
  const data = await computeReport(ctx, r, now);
  const snapshot = await insertSnapshot(trx, {
    report_id: r.id,
    org_id: r.org_id,
    project_id: r.project_id,
    definition: JSON.stringify(toReportBody(r)),
    period_from: new Date(data.period.from),
    period_to: new Date(data.period.to),
    data: JSON.stringify(data),
    trigger: how.trigger,
    scheduled_for: how.trigger === 'schedule' ? how.scheduledFor : null,
  });
  if (!snapshot) return undefined;
  await enqueueEvent(trx, ctx.schema, {
    event: 'report.snapshot.created',
    organization_id: r.org_id,
    project_id: r.project_id,
    key: r.id,
    data: {
      report: { id: r.id, name: r.name, kind: r.kind, project_id: r.project_id },
      snapshot: {
        id: snapshot.id,
        trigger: how.trigger,
        scheduled_for: how.trigger === 'schedule' ? how.scheduledFor.toISOString() : null,
        ...(how.trigger === 'schedule' ? { missed_occurrences: how.missed } : {}),
        period: data.period,
        executions_counted: data.executions_counted,
        created_at: iso(snapshot.created_at),
        url: `/api/v1/reports/${r.id}/snapshots/${snapshot.id}`,
      },
    },
  });
  return snapshot;
}

export function toSnapshotBody(
  s: Pick<ReportSnapshotRow, 'id' | 'report_id' | 'project_id' | 'period_from' | 'period_to' | 'trigger' | 'scheduled_for' | 'created_at'> & Partial<Pick<ReportSnapshotRow, 'definition' | 'data'>>,
) {
  return {
    id: s.id,
    report_id: s.report_id,
    project_id: s.project_id,
    trigger: s.trigger,
    scheduled_for: iso(s.scheduled_for),
    period: { from: iso(s.period_from), to: iso(s.period_to) },
    created_at: iso(s.created_at),
    ...(s.definition ? { definition: s.definition } : {}),
    ...(s.data ? { data: s.data } : {}),
  };
}

/**
 * A new report definition of the project.
 * @throws AppError 400 for a bad period or schedule, 404 for a project the organization does not have.
 */
export async function createReport(ctx: AnalysisContext, orgId: string, body: ReportInput): Promise<ReportDefinitionRow> {
  assertPeriod(body.period);
  const schedule = scheduleColumns(body.schedule ?? null, new Date());
  if (!isUuid(body.project_id)) throw notFound('Project');
  await ctx.testCases.assertProject(orgId, body.project_id);
  return insertReport(ctx.db, {
    org_id: orgId,
    project_id: body.project_id,
    name: body.name.trim(),
    kind: body.kind,
    filters: JSON.stringify(body.filters ?? {}),
    period: JSON.stringify(body.period ?? { last_days: 30 }),
    schedule_cron: schedule.schedule_cron,
    schedule_timezone: schedule.schedule_timezone,
    next_snapshot_at: schedule.next_snapshot_at,
  });
}

/**
 * A page of the project's report definitions; when there are none, whether the
 * project exists is asked of the test-case service.
 * @throws AppError 404 for a project the organization does not have.
 */
export async function listReportPage(ctx: AnalysisContext, orgId: string, projectId: string, limit: number, offset: number) {
  if (!isUuid(projectId)) throw notFound('Project');
  const page = await listReports(ctx.db, orgId, projectId, limit, offset);
  if (page.total === 0) await ctx.testCases.assertProject(orgId, projectId);
  return page;
}

/**
 * The project's live dashboard over the last `days`.
 * @throws AppError 404 for a project the organization does not have.
 */
export async function projectDashboard(ctx: AnalysisContext, orgId: string, projectId: string, days: number) {
  if (!isUuid(projectId)) throw notFound('Project');
  await ctx.testCases.assertProject(orgId, projectId);
  const to = new Date();
  const from = new Date(to.getTime() - days * DAY_MS);
  const [executions, issues] = await Promise.all([ctx.runner.reportResults(orgId, { projectId, from, to }), openIssues(ctx.db, orgId, projectId)]);
  return buildDashboard(projectId, executions, issues, { from, to, days });
}

/**
 * Applies any subset of the definition's fields; the project cannot change.
 * @throws AppError 404 for an unknown report, 400 for a changed project, a bad period or schedule.
 */
export async function changeReport(ctx: AnalysisContext, orgId: string, id: string, body: Partial<ReportInput>): Promise<ReportDefinitionRow> {
  const current = await getReport(ctx, orgId, id);
  if (body.project_id !== undefined && body.project_id !== current.project_id) throw validationError([{ field: 'project_id', message: 'cannot be changed' }]);
  assertPeriod(body.period);
  const patch: Record<string, unknown> = {};
  if (body.name !== undefined) patch.name = body.name.trim();
  if (body.kind !== undefined) patch.kind = body.kind;
  if (body.filters !== undefined) patch.filters = JSON.stringify(body.filters satisfies ReportFilters);
  if (body.period !== undefined) patch.period = JSON.stringify(body.period satisfies ReportPeriod);
  if (body.schedule !== undefined) Object.assign(patch, scheduleColumns(body.schedule, new Date()));
  const row = Object.keys(patch).length ? await updateReport(ctx.db, orgId, current.id, patch) : current;
  if (!row) throw notFound('Report');
  return row;
}

/** Deletes the definition with its snapshots; returns its id. @throws AppError 404 for an unknown report. */
export async function removeReport(ctx: AnalysisContext, orgId: string, id: string): Promise<string> {
  const row = await getReport(ctx, orgId, id);
  await deleteReport(ctx.db, orgId, row.id);
  return row.id;
}

/** A snapshot taken now, by hand. @throws AppError 404 for an unknown report. */
export async function takeManualSnapshot(ctx: AnalysisContext, orgId: string, id: string): Promise<{ report: ReportDefinitionRow; snapshot: ReportSnapshotRow }> {
  const report = await getReport(ctx, orgId, id);
  const snapshot = (await withTransaction(ctx.db, (trx) => takeSnapshot(ctx, trx, report)))!;
  return { report, snapshot };
}

/** A page of the snapshots of a report (found with `getReport`), newest first. */
export function listSnapshotPage(ctx: AnalysisContext, orgId: string, report: ReportDefinitionRow, limit: number, offset: number) {
  return listSnapshots(ctx.db, orgId, report.id, limit, offset);
}

/** One snapshot of a report. @throws AppError 404 for an unknown report or snapshot. */
export async function getSnapshot(ctx: AnalysisContext, orgId: string, reportId: string, snapshotId: string): Promise<{ report: ReportDefinitionRow; snapshot: ReportSnapshotRow }> {
  const report = await getReport(ctx, orgId, reportId);
  const snapshot = isUuid(snapshotId) ? await findSnapshot(ctx.db, orgId, report.id, snapshotId) : undefined;
  if (!snapshot) throw notFound('Report snapshot');
  return { report, snapshot };
}
