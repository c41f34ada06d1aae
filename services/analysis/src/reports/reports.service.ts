import { iso, isUuid, notFound, validationError } from '@assay/http';
import type { AnalysisContext } from '../context.js';
import type { ReportDefinitionRow, ReportFilters, ReportPeriod, ReportSnapshotRow } from '../db/database.js';
import { flakyTests, passRate, slowestSteps, type ReportKind, type ReportTable } from './report-data.js';
import { countCategories, findReport, insertSnapshot, openIssues } from './reports.repository.js';

const DAY_MS = 86_400_000;

export interface ReportInput {
  project_id: string;
  name: string;
  kind: ReportKind;
  filters?: ReportFilters;
  period?: ReportPeriod;
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

export function toReportBody(r: ReportDefinitionRow) {
  return { id: r.id, project_id: r.project_id, name: r.name, kind: r.kind, filters: r.filters, period: r.period, created_at: iso(r.created_at), updated_at: iso(r.updated_at) };
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
  const executions = await ctx.runner.reportResults(r.org_id, {
    projectId: r.project_id,
    from,
    to,
    ...(r.filters.test_plan_ids ? { testPlanIds: r.filters.test_plan_ids } : {}),
    ...(r.filters.environments ? { environments: r.filters.environments } : {}),
  });
  const counted = { ...base, executions_counted: executions.length };
  switch (kind) {
    case 'pass_rate':
      return { ...counted, tables: passRate(executions) };
    case 'flaky_tests':
      return { ...counted, tables: { tests: flakyTests(executions) } };
    case 'slowest_steps':
      return { ...counted, tables: { steps: slowestSteps(executions) } };
    case 'failure_categories': {
      const counts = await countCategories(ctx.db, r.org_id, executions.map((e) => e.id));
      return { ...counted, tables: { categories: { columns: ['category', 'failures'], rows: counts.map((c) => [c.category, c.n]) } } };
    }
  }
}

/** Freezes the report's data now in a new snapshot row (which never changes afterwards). */
export async function takeSnapshot(ctx: AnalysisContext, r: ReportDefinitionRow): Promise<ReportSnapshotRow> {
  const data = await computeReport(ctx, r, new Date());
  return insertSnapshot(ctx.db, {
    report_id: r.id,
    org_id: r.org_id,
    project_id: r.project_id,
    definition: JSON.stringify(toReportBody(r)),
    period_from: new Date(data.period.from),
    period_to: new Date(data.period.to),
    data: JSON.stringify(data),
  });
}

export function toSnapshotBody(s: Pick<ReportSnapshotRow, 'id' | 'report_id' | 'project_id' | 'period_from' | 'period_to' | 'created_at'> & Partial<Pick<ReportSnapshotRow, 'definition' | 'data'>>) {
  return {
    id: s.id,
    report_id: s.report_id,
    project_id: s.project_id,
    period: { from: iso(s.period_from), to: iso(s.period_to) },
    created_at: iso(s.created_at),
    ...(s.definition ? { definition: s.definition } : {}),
    ...(s.data ? { data: s.data } : {}),
  };
}
