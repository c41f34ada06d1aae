import { iso, isUuid, notFound, orgPrincipal, parsePagination, queryOneOf, queryString, serviceRouter, type ServiceRouter, validateBody } from '@assay/http';
import { CATEGORIES } from '../analysis/categories.js';
import { toItemBody } from '../analysis/failure-analysis.service.js';
import type { AnalysisContext } from '../context.js';
import type { IssueRow, IssueStatus } from '../db/database.js';
import { changeIssueStatus, getIssueDetail, listIssuePage } from './issues.service.js';

const STATUSES: IssueStatus[] = ['open', 'acknowledged', 'resolved', 'ignored'];

export function toIssueBody(row: IssueRow) {
  return {
    id: row.id,
    project_id: row.project_id,
    test_case_id: row.test_case_id,
    test_name: row.test_name,
    step: row.step_id ? { step_id: row.step_id, index: row.step_index, description: row.step_description } : null,
    category: row.category,
    triage_type: row.triage_type,
    title: row.title,
    normalized_error: row.normalized_error,
    status: row.status,
    occurrence_count: row.occurrences,
    reopened_count: row.reopened_count,
    first_seen: iso(row.first_seen),
    last_seen: iso(row.last_seen),
    last_execution_id: row.last_execution_id,
    flakiness: row.flakiness,
    resolved_at: iso(row.resolved_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

function uuidQuery(query: Record<string, unknown>, name: string): string | undefined | null {
  const v = queryString(query, name);
  if (v === undefined) return undefined;
  // An id that is no uuid matches nothing: an empty list, as for another organization's project.
  return isUuid(v) ? v : null;
}

export function issueRoutes(ctx: AnalysisContext): ServiceRouter<'analysis'> {
  const router = serviceRouter('analysis');

  router.get('/api/v1/issues', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const query = req.query as Record<string, unknown>;
    const { limit, offset } = parsePagination(query, { defaultLimit: 20, maxLimit: 100 });
    const status = queryOneOf(query, 'status', STATUSES);
    const category = queryOneOf(query, 'category', CATEGORIES);
    const projectId = uuidQuery(query, 'project_id');
    const testCaseId = uuidQuery(query, 'test_case_id');
    if (projectId === null) throw notFound('Project');
    if (testCaseId === null) return void res.json({ data: [], pagination: { limit, offset, total: 0 } });
    const { rows, total } = await listIssuePage(ctx, orgId, { ...(projectId ? { projectId } : {}), ...(status ? { status } : {}), ...(category ? { category } : {}), ...(testCaseId ? { testCaseId } : {}), limit, offset });
    res.json({ data: rows.map(toIssueBody), pagination: { limit, offset, total } });
  });

  router.get('/api/v1/issues/:id', async (req, res) => {
    const { row, occurrences, latest } = await getIssueDetail(ctx.db, orgPrincipal(res).org_id, req.params.id);
    res.json({
      ...toIssueBody(row),
      occurrences: occurrences.map((o) => ({ execution_id: o.execution_id, occurred_at: iso(o.occurred_at), category: o.category, error: o.error, confidence: Math.round(o.confidence * 100) / 100 })),
      latest_analysis: latest ? { execution_id: row.last_execution_id, ...toItemBody(latest) } : null,
    });
  });

  router.patch('/api/v1/issues/:id', validateBody('IssueUpdateRequest'), async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const status = (req.body as { status: IssueStatus }).status;
    const row = await changeIssueStatus(ctx.db, orgId, req.params.id, status);
    res.json(toIssueBody(row));
  });

  return router;
}
