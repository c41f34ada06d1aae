import { actingOrgId, requireServicePrincipal, serviceRouter, type ServiceRouter } from '@assay/http';
import type { DiscoveryContext } from '../context.js';
import { buildSessionCases } from '../generate/generate.service.js';
import { getSession } from '../sessions/sessions.service.js';
import { sessionEvidence, storeEnrichment } from './evidence.service.js';

/** Routes for the analysis service: a session's crawl evidence, and where its enrichment is stored. */
export function internalRoutes(ctx: DiscoveryContext): ServiceRouter<'discovery-crawler'> {
  const router = serviceRouter('discovery-crawler');
  router.use('/internal', requireServicePrincipal);

  router.get('/internal/sessions/:id/evidence', async (req, res) => {
    const row = await getSession(ctx, actingOrgId(res), req.params.id);
    res.json(await sessionEvidence(ctx, row));
  });

  // The session's flows as test cases, generated and not saved: what an exploratory run of the session runs.
  router.get('/internal/sessions/:id/test-cases', async (req, res) => {
    const { session, cases } = await buildSessionCases(ctx, actingOrgId(res), req.params.id);
    res.json({ session_id: session.id, project_id: session.project_id, test_cases: cases });
  });

  router.put('/internal/sessions/:id/enrichment', async (req, res) => {
    const row = await getSession(ctx, actingOrgId(res), req.params.id);
    await storeEnrichment(ctx, row, req.body);
    res.json({ session_id: row.id, stored: true });
  });

  return router;
}
