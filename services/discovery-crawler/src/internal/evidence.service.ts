import { validationError } from '@assay/http';
import type { DiscoveryContext } from '../context.js';
import type { CrawlConfig, PageAnalysis, SessionRow } from '../db/database.js';
import { crawledPages, listEndpoints, listFlows, updateSession } from '../sessions/sessions.repository.js';

/** A session's crawl evidence, as the analysis service enriches it: pages with their structure, flows and API endpoints. */
export async function sessionEvidence(ctx: DiscoveryContext, row: SessionRow) {
  const [pages, flows, endpoints] = await Promise.all([crawledPages(ctx.db, row.id), listFlows(ctx.db, row.id), listEndpoints(ctx.db, row.id)]);
  return {
    session_id: row.id,
    project_id: row.project_id,
    target_url: row.target_url,
    status: row.status,
    enable_ai_analysis: (row.config as CrawlConfig).enable_ai_analysis,
    pages: pages.map((p) => {
      const a = p.analysis as PageAnalysis | null;
      return { url: p.url, title: p.title ?? '', status_code: p.status_code ?? 0, headings: a?.headings ?? [], forms: a?.forms ?? [], lists: a?.lists ?? [] };
    }),
    flows: flows.map((f) => ({ flow_id: f.flow_id, type: f.type, pages: f.pages, steps: f.steps, confidence: f.confidence, evidence: f.evidence })),
    api_endpoints: endpoints,
  };
}

/**
 * Stores the analysis service's enrichment of a session.
 * @throws AppError 400 unless the body is a completed enrichment with flows.
 */
export async function storeEnrichment(ctx: DiscoveryContext, row: SessionRow, body: unknown): Promise<void> {
  const b = body as Record<string, unknown> | undefined;
  if (!b || typeof b !== 'object' || b.status !== 'completed' || !Array.isArray(b.flows)) {
    throw validationError([{ field: 'body', message: 'must be a completed enrichment with flows' }]);
  }
  await updateSession(ctx.db, row.id, { enrichment: JSON.stringify(b) });
}
