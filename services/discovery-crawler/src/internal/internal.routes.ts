import { Router } from 'express';
import { forbidden, isUuid, notFound, requireServicePrincipal, validationError } from '@assay/http';
import type { Principal } from '@assay/principal';
import type { DiscoveryContext } from '../context.js';
import { buildSessionCases } from '../generate/generate.service.js';
import type { CrawlConfig, PageAnalysis } from '../db/database.js';
import { crawledPages, findSession, listEndpoints, listFlows, updateSession } from '../sessions/sessions.repository.js';

/** Routes for the analysis service: a session's crawl evidence, and where its enrichment is stored. */
export function internalRoutes(ctx: DiscoveryContext): Router {
  const router = Router();
  router.use('/internal', requireServicePrincipal);
  const session = async (res: { locals: Record<string, unknown> }, id: string) => {
    const orgId = (res.locals.principal as Principal).org_id;
    if (!orgId) throw forbidden('Internal calls must name the organization they act for');
    const row = isUuid(id) ? await findSession(ctx.db, orgId, id) : undefined;
    if (!row) throw notFound('Discovery session');
    return row;
  };

  router.get('/internal/sessions/:id/evidence', async (req, res) => {
    const row = await session(res, req.params.id);
    const [pages, flows, endpoints] = await Promise.all([crawledPages(ctx.db, row.id), listFlows(ctx.db, row.id), listEndpoints(ctx.db, row.id)]);
    res.json({
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
    });
  });

  // The session's flows as test cases, generated and not saved: what an exploratory run of the session runs.
  router.get('/internal/sessions/:id/test-cases', async (req, res) => {
    const orgId = (res.locals.principal as Principal).org_id;
    if (!orgId) throw forbidden('Internal calls must name the organization they act for');
    const { session, cases } = await buildSessionCases(ctx, orgId, req.params.id);
    res.json({ session_id: session.id, project_id: session.project_id, test_cases: cases });
  });

  router.put('/internal/sessions/:id/enrichment', async (req, res) => {
    const row = await session(res, req.params.id);
    const body = req.body as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object' || body.status !== 'completed' || !Array.isArray(body.flows)) {
      throw validationError([{ field: 'body', message: 'must be a completed enrichment with flows' }]);
    }
    await updateSession(ctx.db, row.id, { enrichment: JSON.stringify(body) });
    res.json({ session_id: row.id, stored: true });
  });

  return router;
}
