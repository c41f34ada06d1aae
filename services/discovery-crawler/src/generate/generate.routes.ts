import { orgPrincipal, serviceRouter, type ServiceRouter, validateBody } from '@assay/http';
import type { DiscoveryContext } from '../context.js';
import { generateTestCases } from './generate.service.js';

export function generateRoutes(ctx: DiscoveryContext): ServiceRouter<'discovery-crawler'> {
  const router = serviceRouter('discovery-crawler');
  router.post('/api/v1/discovery/:id/generate-test-cases', validateBody('DiscoveryGenerateRequest'), async (req, res) => {
    res.status(201).json(await generateTestCases(ctx, orgPrincipal(res).org_id, String(req.params.id), req.body ?? {}));
  });
  return router;
}
