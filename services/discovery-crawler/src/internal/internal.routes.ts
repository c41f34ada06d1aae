import { Router } from 'express';
import { forbidden, requireServicePrincipal } from '@assay/http';
import type { Principal } from '@assay/principal';
import type { DiscoveryContext } from '../context.js';
import { buildSessionCases } from '../generate/generate.service.js';
import { getSession } from '../sessions/sessions.service.js';
import { sessionEvidence, storeEnrichment } from './evidence.service.js';

/** Routes for the analysis service: a session's crawl evidence, and where its enrichment is stored. */
export function internalRoutes(ctx: DiscoveryContext): Router {
  const router = Router();
  router.use('/internal', requireServicePrincipal);
  const session = async (res: { locals: Record<string, unknown> }, id: string) => {
    const orgId = (res.locals.principal as Principal).org_id;
    if (!orgId) throw forbidden('Internal calls must name the organization they act for');
    return getSession(ctx, orgId, id);
  };

  router.get('/internal/sessions/:id/evidence', async (req, res) => {
    const row = await session(res, req.params.id);
    res.json(await sessionEvidence(ctx, row));
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
    await storeEnrichment(ctx, row, req.body);
    res.json({ session_id: row.id, stored: true });
  });

  return router;
}
