import { orgPrincipal, serviceRouter, type ServiceRouter } from '@assay/http';
import type { AnalysisContext } from '../context.js';
import { testCaseFlakiness } from './flakiness.service.js';

export function flakinessRoutes(ctx: AnalysisContext): ServiceRouter<'analysis'> {
  const router = serviceRouter('analysis');

  // Served here although the path is under test-cases: the gateway routes it to the analysis service.
  router.get('/api/v1/test-cases/:id/flakiness', async (req, res) => {
    res.json(await testCaseFlakiness(ctx.db, orgPrincipal(res).org_id, req.params.id));
  });

  return router;
}
