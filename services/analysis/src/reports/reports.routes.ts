import { Router } from 'express';
import { withTransaction } from '@assay/db';
import { iso, isUuid, notFound, orgPrincipal, parsePagination, validateBody, validationError } from '@assay/http';
import type { AnalysisContext } from '../context.js';
import type { ReportFilters, ReportPeriod } from '../db/database.js';
import { buildDashboard, dashboardTable, DASHBOARD_TABLES } from './dashboard.js';
import { toCsv, toHtml } from './report-render.js';
import { deleteReport, findSnapshot, insertReport, listReports, listSnapshots, openIssues, updateReport } from './reports.repository.js';
import { assertPeriod, getReport, scheduleColumns, takeSnapshot, toReportBody, toSnapshotBody, type ReportData, type ReportInput } from './reports.service.js';

/** Report definitions and their immutable snapshots (JSON, CSV, self-contained HTML with SVG charts). */
export function reportRoutes(ctx: AnalysisContext): Router {
  const router = Router();

  router.post('/api/v1/reports', validateBody('ReportCreateRequest'), async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const body = req.body as ReportInput;
    assertPeriod(body.period);
    const schedule = scheduleColumns(body.schedule ?? null, new Date());
    if (!isUuid(body.project_id)) throw notFound('Project');
    await ctx.testCases.assertProject(orgId, body.project_id);
    const row = await insertReport(ctx.db, {
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
    res.status(201).location(`/api/v1/reports/${row.id}`).json(toReportBody(row));
  });

  router.get('/api/v1/reports', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const query = req.query as Record<string, unknown>;
    const { limit, offset } = parsePagination(query, { defaultLimit: 20, maxLimit: 100 });
    const projectId = query.project_id;
    if (typeof projectId !== 'string' || projectId === '') throw validationError([{ field: 'project_id', message: 'is required' }]);
    if (!isUuid(projectId)) throw notFound('Project');
    const { rows, total } = await listReports(ctx.db, orgId, projectId, limit, offset);
    if (total === 0) await ctx.testCases.assertProject(orgId, projectId);
    res.json({ data: rows.map(toReportBody), pagination: { limit, offset, total } });
  });

  // Before /:id: the project's live dashboard over the last `days`, as JSON or one of its tables as CSV.
  router.get('/api/v1/reports/dashboard', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const query = req.query as Record<string, unknown>;
    const projectId = query.project_id;
    if (typeof projectId !== 'string' || projectId === '') throw validationError([{ field: 'project_id', message: 'is required' }]);
    const days = query.days === undefined ? 30 : Number(query.days);
    if (!Number.isInteger(days) || days < 1 || days > 90) throw validationError([{ field: 'days', message: 'must be a whole number of days from 1 to 90' }]);
    const format = query.format ?? 'json';
    if (format !== 'json' && format !== 'csv') throw validationError([{ field: 'format', message: 'must be one of json, csv' }]);
    const table = query.table ?? 'pass_rate_by_day';
    if (!DASHBOARD_TABLES.includes(table as never)) throw validationError([{ field: 'table', message: `must be one of ${DASHBOARD_TABLES.join(', ')}` }]);
    if (!isUuid(projectId)) throw notFound('Project');
    await ctx.testCases.assertProject(orgId, projectId);
    const to = new Date();
    const from = new Date(to.getTime() - days * 86_400_000);
    const [executions, issues] = await Promise.all([ctx.runner.reportResults(orgId, { projectId, from, to }), openIssues(ctx.db, orgId, projectId)]);
    const dashboard = buildDashboard(projectId, executions, issues, { from, to, days });
    if (format === 'json') return void res.json(dashboard);
    res.type('text/csv; charset=utf-8').attachment(`dashboard-${projectId}-${table as string}.csv`).send(toCsv(dashboardTable(dashboard, table as (typeof DASHBOARD_TABLES)[number])));
  });

  router.get('/api/v1/reports/:id', async (req, res) => {
    res.json(toReportBody(await getReport(ctx, orgPrincipal(res).org_id, req.params.id)));
  });

  router.put('/api/v1/reports/:id', validateBody('ReportUpdateRequest'), async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const current = await getReport(ctx, orgId, String(req.params.id));
    const body = req.body as Partial<ReportInput>;
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
    res.json(toReportBody(row));
  });

  router.delete('/api/v1/reports/:id', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const row = await getReport(ctx, orgId, req.params.id);
    await deleteReport(ctx.db, orgId, row.id);
    res.json({ id: row.id, deleted: true, deleted_at: iso(new Date()) });
  });

  router.post('/api/v1/reports/:id/snapshots', async (req, res) => {
    const report = await getReport(ctx, orgPrincipal(res).org_id, req.params.id);
    const snapshot = (await withTransaction(ctx.db, (trx) => takeSnapshot(ctx, trx, report)))!;
    res.status(201).location(`/api/v1/reports/${report.id}/snapshots/${snapshot.id}`).json(toSnapshotBody(snapshot));
  });

  router.get('/api/v1/reports/:id/snapshots', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const report = await getReport(ctx, orgId, req.params.id);
    const { limit, offset } = parsePagination(req.query as Record<string, unknown>, { defaultLimit: 20, maxLimit: 100 });
    const { rows, total } = await listSnapshots(ctx.db, orgId, report.id, limit, offset);
    res.json({ data: rows.map(toSnapshotBody), pagination: { limit, offset, total } });
  });

  router.get('/api/v1/reports/:id/snapshots/:sid', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const report = await getReport(ctx, orgId, req.params.id);
    const snapshot = isUuid(req.params.sid) ? await findSnapshot(ctx.db, orgId, report.id, req.params.sid) : undefined;
    if (!snapshot) throw notFound('Report snapshot');
    const format = (req.query as Record<string, unknown>).format ?? 'json';
    const data = snapshot.data as unknown as ReportData;
    if (format === 'json') return void res.json(toSnapshotBody(snapshot));
    const definition = snapshot.definition as { name?: string };
    const file = `report-${report.id}-${snapshot.id}`;
    if (format === 'csv') {
      const tableName = (req.query as Record<string, unknown>).table ?? Object.keys(data.tables)[0];
      const table = typeof tableName === 'string' ? data.tables[tableName] : undefined;
      if (!table) throw validationError([{ field: 'table', message: `must be one of ${Object.keys(data.tables).join(', ')}` }]);
      res.type('text/csv; charset=utf-8').attachment(`${file}-${tableName as string}.csv`).send(toCsv(table));
      return;
    }
    if (format === 'html') {
      const html = await toHtml(definition.name ?? 'Report', iso(snapshot.created_at)!, data);
      // Self-contained and script-free: a strict policy costs nothing.
      res.set('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:").type('text/html; charset=utf-8').send(html);
      return;
    }
    throw validationError([{ field: 'format', message: 'must be one of json, csv, html' }]);
  });

  return router;
}
