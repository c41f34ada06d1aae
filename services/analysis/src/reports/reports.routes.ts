import { iso, orgPrincipal, parsePagination, requiredQueryString, serviceRouter, type ServiceRouter, validateBody, validationError } from '@assay/http';
import type { AnalysisContext } from '../context.js';
import { dashboardTable, DASHBOARD_TABLES } from './dashboard.js';
import { toCsv, toHtml } from './report-render.js';
import {
  changeReport,
  createReport,
  getReport,
  getSnapshot,
  listReportPage,
  listSnapshotPage,
  projectDashboard,
  removeReport,
  takeManualSnapshot,
  toReportBody,
  toSnapshotBody,
  type ReportData,
  type ReportInput,
} from './reports.service.js';

/** Report definitions and their immutable snapshots (JSON, CSV, self-contained HTML with SVG charts). */
export function reportRoutes(ctx: AnalysisContext): ServiceRouter<'analysis'> {
  const router = serviceRouter('analysis');

  router.post('/api/v1/reports', validateBody('ReportCreateRequest'), async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const row = await createReport(ctx, orgId, req.body as ReportInput);
    res.status(201).location(`/api/v1/reports/${row.id}`).json(toReportBody(row));
  });

  router.get('/api/v1/reports', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const query = req.query as Record<string, unknown>;
    const { limit, offset } = parsePagination(query, { defaultLimit: 20, maxLimit: 100 });
    const projectId = requiredQueryString(query, 'project_id');
    const { rows, total } = await listReportPage(ctx, orgId, projectId, limit, offset);
    res.json({ data: rows.map(toReportBody), pagination: { limit, offset, total } });
  });

  // Before /:id: the project's live dashboard over the last `days`, as JSON or one of its tables as CSV.
  router.get('/api/v1/reports/dashboard', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const query = req.query as Record<string, unknown>;
    const projectId = requiredQueryString(query, 'project_id');
    const days = query.days === undefined ? 30 : Number(query.days);
    if (!Number.isInteger(days) || days < 1 || days > 90) throw validationError([{ field: 'days', message: 'must be a whole number of days from 1 to 90' }]);
    const format = query.format ?? 'json';
    if (format !== 'json' && format !== 'csv') throw validationError([{ field: 'format', message: 'must be one of json, csv' }]);
    const table = query.table ?? 'pass_rate_by_day';
    if (!DASHBOARD_TABLES.includes(table as never)) throw validationError([{ field: 'table', message: `must be one of ${DASHBOARD_TABLES.join(', ')}` }]);
    const dashboard = await projectDashboard(ctx, orgId, projectId, days);
    if (format === 'json') return void res.json(dashboard);
    res.type('text/csv; charset=utf-8').attachment(`dashboard-${projectId}-${table as string}.csv`).send(toCsv(dashboardTable(dashboard, table as (typeof DASHBOARD_TABLES)[number])));
  });

  router.get('/api/v1/reports/:id', async (req, res) => {
    res.json(toReportBody(await getReport(ctx, orgPrincipal(res).org_id, req.params.id)));
  });

  router.put('/api/v1/reports/:id', validateBody('ReportUpdateRequest'), async (req, res) => {
    const row = await changeReport(ctx, orgPrincipal(res).org_id, String(req.params.id), req.body as Partial<ReportInput>);
    res.json(toReportBody(row));
  });

  router.delete('/api/v1/reports/:id', async (req, res) => {
    const id = await removeReport(ctx, orgPrincipal(res).org_id, req.params.id);
    res.json({ id, deleted: true, deleted_at: iso(new Date()) });
  });

  router.post('/api/v1/reports/:id/snapshots', async (req, res) => {
    const { report, snapshot } = await takeManualSnapshot(ctx, orgPrincipal(res).org_id, req.params.id);
    res.status(201).location(`/api/v1/reports/${report.id}/snapshots/${snapshot.id}`).json(toSnapshotBody(snapshot));
  });

  router.get('/api/v1/reports/:id/snapshots', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const report = await getReport(ctx, orgId, req.params.id);
    const { limit, offset } = parsePagination(req.query as Record<string, unknown>, { defaultLimit: 20, maxLimit: 100 });
    const { rows, total } = await listSnapshotPage(ctx, orgId, report, limit, offset);
    res.json({ data: rows.map(toSnapshotBody), pagination: { limit, offset, total } });
  });

  router.get('/api/v1/reports/:id/snapshots/:sid', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const { report, snapshot } = await getSnapshot(ctx, orgId, req.params.id, req.params.sid);
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
