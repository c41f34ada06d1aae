import { enqueueEvents } from '@assay/bus';
import { DISCOVERY_LIMITS } from '@assay/contracts';
import { withTransaction } from '@assay/db';
import { conflict, isUuid, iso, notFound, parsePagination, validationError } from '@assay/http';
import type { DiscoveryContext } from '../context.js';
import type { CrawlConfig, SessionRow, SessionStatus } from '../db/database.js';
import { detectPatterns } from '../crawler/patterns.js';
import { discoveryConfidence } from '../crawler/flows/index.js';
import { normaliseUrl } from '../crawler/urls.js';
import { appendStreamEvent, countSession, streamEventsAfter, crawledPages, findSession, insertSession, listEndpoints, listFlows, listGeneratedCases, listSessions, notifySessionsReady, transition, type ListedSession } from './sessions.repository.js';

export interface StartRequest {
  project_id: string;
  target_url: string;
  max_pages?: number;
  max_depth?: number;
  include_patterns?: string[];
  exclude_patterns?: string[];
  headless?: boolean;
  wait_for_navigation?: boolean;
  enable_ai_analysis?: boolean;
  request_delay_ms?: number;
  interactive?: boolean;
  allow_writes?: boolean;
  accessibility?: boolean;
}

/** A rough time per page, for estimates before any page was crawled (ms). */
const PAGE_MS = 400;

/**
 * Checks the target (http(s), not a refused address) and the project, then
 * stores the session `running` with its `discovery.session.started` event;
 * a crawler takes it from there.
 * @throws AppError 400 for a bad or refused target, 404 for a project the organization does not have.
 */
export async function startSession(ctx: DiscoveryContext, orgId: string, req: StartRequest): Promise<SessionRow> {
  const target = normaliseUrl(req.target_url);
  if (!target || !/^https?:\/\//i.test(req.target_url.trim())) throw validationError([{ field: 'target_url', message: 'must be an absolute http or https URL' }]);
  const verdict = await ctx.egress.checkUrl(target);
  if (!verdict.allowed) throw validationError([{ field: 'target_url', message: `blocked by the egress policy (${verdict.reason})` }]);
  if (!isUuid(req.project_id)) throw notFound('Project');
  await ctx.testCases.project(orgId, req.project_id);
  const L = DISCOVERY_LIMITS;
  const config: CrawlConfig = {
    max_pages: req.max_pages ?? L.maxPages.default,
    max_depth: req.max_depth ?? L.maxDepth.default,
    include_patterns: req.include_patterns ?? [],
    exclude_patterns: req.exclude_patterns ?? [],
    headless: req.headless ?? true,
    wait_for_navigation: req.wait_for_navigation ?? true,
    enable_ai_analysis: req.enable_ai_analysis ?? false,
    request_delay_ms: req.request_delay_ms ?? L.requestDelayMs.default,
    interactive: req.interactive ?? false,
    allow_writes: req.allow_writes ?? false,
    accessibility: req.accessibility ?? false,
  };
  const perPage = Math.max(config.request_delay_ms, PAGE_MS / ctx.pagesInParallel);
  return withTransaction(ctx.db, async (trx) => {
    const row = await insertSession(trx, {
      org_id: orgId,
      project_id: req.project_id,
      target_url: target,
      config,
      estimated_completion: new Date(Date.now() + config.max_pages * perPage),
    });
    await enqueueEvents(trx, ctx.schema, [
      {
        event: 'discovery.session.started',
        organization_id: orgId,
        project_id: row.project_id,
        key: row.id,
        data: { session_id: row.id, project_id: row.project_id, target_url: row.target_url, started_at: row.started_at.toISOString(), configuration: config },
      },
    ]);
    await notifySessionsReady(trx);
    return row;
  });
}

export function startedBody(row: SessionRow) {
  return { session_id: row.id, project_id: row.project_id, target_url: row.target_url, status: 'running' as const, started_at: iso(row.started_at), estimated_completion: iso(row.estimated_completion) };
}

export async function getSession(ctx: DiscoveryContext, orgId: string, id: string): Promise<SessionRow> {
  const row = isUuid(id) ? await findSession(ctx.db, orgId, id) : undefined;
  if (!row) throw notFound('Discovery session');
  return row;
}

const STATUSES: SessionStatus[] = ['running', 'paused', 'cancelled', 'completed', 'failed'];

function listedBody(row: ListedSession) {
  return {
    session_id: row.id,
    project_id: row.project_id,
    target_url: row.target_url,
    status: row.status,
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at ?? row.cancelled_at),
    pages_crawled: row.pages_crawled,
    flows_detected: row.flows_detected,
    ...(row.error ? { error: row.error } : {}),
  };
}

/**
 * The organization's sessions, newest first (`project_id`, `status`, `limit`, `offset` from the query).
 * @throws AppError 400 for a bad status or pagination, 404 for a project the organization does not have.
 */
export async function listSessionsBody(ctx: DiscoveryContext, orgId: string, query: Record<string, unknown>) {
  const { limit, offset } = parsePagination(query, { defaultLimit: 20, maxLimit: 100 });
  const { project_id: projectId, status } = query;
  if (projectId !== undefined && (typeof projectId !== 'string' || projectId === '')) throw validationError([{ field: 'project_id', message: 'must be a project id' }]);
  if (status !== undefined && !STATUSES.includes(status as SessionStatus)) throw validationError([{ field: 'status', message: `must be one of ${STATUSES.join(', ')}` }]);
  if (projectId !== undefined && !isUuid(projectId)) throw notFound('Project');
  const { rows, total } = await listSessions(ctx.db, orgId, { ...(projectId ? { projectId } : {}), ...(status ? { status: status as SessionStatus } : {}), limit, offset });
  // No session at all: say whether the project exists (another organization's answers as an unknown one).
  if (total === 0 && projectId) await ctx.testCases.project(orgId, projectId);
  return { data: rows.map(listedBody), pagination: { limit, offset, total } };
}

const endTime = (row: SessionRow) => row.completed_at ?? row.cancelled_at ?? (row.status === 'paused' ? row.paused_at : null) ?? new Date();

export async function progressBody(ctx: DiscoveryContext, row: SessionRow) {
  const counts = await countSession(ctx.db, row.id);
  const config = row.config as CrawlConfig;
  const ended = row.status === 'completed';
  const target = Math.max(1, Math.min(config.max_pages, counts.crawled + counts.pending));
  const percent = ended ? 100 : Math.min(99, Math.floor((counts.crawled / target) * 100));
  const elapsedMs = Math.max(0, endTime(row).getTime() - row.started_at.getTime());
  const left = ended || row.status === 'cancelled' || row.status === 'failed' ? 0 : Math.max(0, target - counts.crawled);
  const perPageMs = counts.crawled ? elapsedMs / counts.crawled : Math.max(config.request_delay_ms, PAGE_MS / ctx.pagesInParallel);
  const remaining = Math.ceil((left * perPageMs) / 1000);
  return {
    session_id: row.id,
    project_id: row.project_id,
    target_url: row.target_url,
    status: row.status,
    started_at: iso(row.started_at),
    estimated_completion: row.status === 'running' ? new Date(Date.now() + remaining * 1000).toISOString() : iso(row.completed_at ?? row.estimated_completion),
    progress: {
      percent,
      pages_discovered: counts.discovered,
      pages_crawled: counts.crawled,
      pages_pending: counts.pending,
      flows_detected: counts.flows,
      patterns_found: row.patterns_found,
      api_endpoints: counts.endpoints,
    },
    current_page: row.current_page ?? (counts.crawled ? null : row.target_url),
    elapsed_seconds: Math.floor(elapsedMs / 1000),
    estimated_remaining_seconds: remaining,
    warnings: row.warnings,
    ...(row.error ? { error: row.error } : {}),
  };
}

const config = (row: SessionRow) => row.config as CrawlConfig;

/** A flow's name and description from the analysis service's enrichment, when the session has one. */
function enrichedFlow(row: SessionRow, flowId: string): { name?: string; description?: string } {
  const flows = (row.enrichment as { flows?: Array<{ flow_id: string; name?: string; description?: string }> } | null)?.flows;
  const f = flows?.find((x) => x.flow_id === flowId);
  return f ? { ...(f.name ? { name: f.name } : {}), ...(f.description ? { description: f.description } : {}) } : {};
}

export async function resultsBody(ctx: DiscoveryContext, row: SessionRow) {
  const [pages, flows, endpoints, generated] = await Promise.all([crawledPages(ctx.db, row.id), listFlows(ctx.db, row.id), listEndpoints(ctx.db, row.id), listGeneratedCases(ctx.db, row.id)]);
  const patterns = detectPatterns(pages.flatMap((p) => (p.analysis ? [{ url: p.url, title: p.title ?? '', analysis: p.analysis }] : [])));
  return {
    session_id: row.id,
    status: row.status,
    summary: {
      total_pages: pages.length,
      unique_flows: flows.length,
      ui_patterns: patterns.length,
      api_endpoints: endpoints.length,
      discovery_confidence: discoveryConfidence(flows, row.warnings),
    },
    warnings: row.warnings,
    pages: pages.map((p) => ({
      url: p.url,
      title: p.title ?? '',
      status_code: p.status_code ?? 0,
      content_type: p.content_type ?? '',
      response_time_ms: p.response_time_ms ?? 0,
      links_found: p.links_found,
      forms_found: p.forms_found,
      api_calls: p.api_calls,
      depth: p.depth,
      reached_by: p.reached_by ?? 'direct',
      ...(p.analysis?.accessibility ? { accessibility: p.analysis.accessibility } : {}),
    })),
    flows: flows.map((f) => ({ flow_id: f.flow_id, type: f.type, pages: f.pages, steps: f.steps, confidence: f.confidence, evidence: f.evidence, ...enrichedFlow(row, f.flow_id) })),
    patterns,
    api_endpoints: endpoints,
    generated_test_cases: generated.map((g) => ({ test_case_id: g.test_case_id, name: g.name, flow_id: g.flow_id, created_at: iso(g.created_at) })),
    ...(config(row).enable_ai_analysis ? { ai_analysis: row.enrichment ?? { status: 'pending' } } : {}),
  };
}

const wrongState = (row: SessionRow, action: string, allowed: SessionStatus[]) =>
  conflict(`Cannot ${action} a ${row.status} discovery session (only ${allowed.join(' or ')})`, { status: row.status });

/** running → paused; the crawler notices within a moment and keeps the frontier. @throws 409 from any other status. */
export async function pauseSession(ctx: DiscoveryContext, orgId: string, id: string) {
  const current = await getSession(ctx, orgId, id);
  const row = await transition(ctx.db, orgId, current.id, ['running'], { status: 'paused', paused_at: new Date(), current_page: null });
  if (!row) throw wrongState(await getSession(ctx, orgId, id), 'pause', ['running']);
  const counts = await countSession(ctx.db, row.id);
  return { session_id: row.id, status: 'paused' as const, pages_crawled: counts.crawled, paused_at: iso(row.paused_at) };
}

/** paused → running; any crawler (this process or another, even after a restart) takes it up. @throws 409 from any other status. */
export async function resumeSession(ctx: DiscoveryContext, orgId: string, id: string) {
  const current = await getSession(ctx, orgId, id);
  const row = await transition(ctx.db, orgId, current.id, ['paused'], { status: 'running', resumed_at: new Date(), attempts: 0 });
  if (!row) throw wrongState(await getSession(ctx, orgId, id), 'resume', ['paused']);
  await notifySessionsReady(ctx.db);
  return { session_id: row.id, status: 'running' as const, resumed_at: iso(row.resumed_at) };
}

/** running or paused → cancelled; its stream ends. @throws 409 once completed or cancelled. */
export async function cancelSession(ctx: DiscoveryContext, orgId: string, id: string) {
  const current = await getSession(ctx, orgId, id);
  return withTransaction(ctx.db, async (trx) => {
    const row = await transition(trx, orgId, current.id, ['running', 'paused'], { status: 'cancelled', cancelled_at: new Date(), current_page: null });
    if (!row) throw wrongState(await getSession({ ...ctx, db: trx }, orgId, id), 'cancel', ['running', 'paused']);
    const counts = await countSession(trx, row.id);
    await appendStreamEvent(trx, row.id, 'completion', { session_id: row.id, status: 'cancelled', pages_crawled: counts.crawled, flows_detected: counts.flows });
    return { session_id: row.id, status: 'cancelled' as const, cancelled_at: iso(row.cancelled_at), pages_crawled: counts.crawled };
  });
}

/** The session's stream events after `afterSeq`, at most 500, oldest first. */
export function sessionEventsAfter(ctx: DiscoveryContext, sessionId: string, afterSeq: number) {
  return streamEventsAfter(ctx.db, sessionId, afterSeq);
}
