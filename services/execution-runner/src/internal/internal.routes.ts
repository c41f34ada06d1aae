import { actingOrgId, requireServicePrincipal, serviceRouter, type ServiceRouter } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import { executionFingerprints, executionForRerun, reportResults, testDiagnostics } from './internal.service.js';

/**
 * Routes for other services (the analysis service): an execution with what a
 * re-run needs (base URL, variables, the steps as they ran) and each test's
 * stored diagnostics. The service principal names the organization.
 */
export function internalRoutes(ctx: ExecutionContext): ServiceRouter<'execution-runner'> {
  const router = serviceRouter('execution-runner');
  router.use('/internal', requireServicePrincipal);

  router.get('/internal/executions/:id', async (req, res) => {
    res.json(await executionForRerun(ctx, actingOrgId(res), req.params.id));
  });

  // Fingerprints of the elements every passed step acted on: the "last known" elements failure analysis compares with.
  router.get('/internal/executions/:id/fingerprints', async (req, res) => {
    res.json(await executionFingerprints(ctx, actingOrgId(res), req.params.id));
  });

  router.get('/internal/executions/:id/tests/:testId/diagnostics', async (req, res) => {
    res.json(await testDiagnostics(ctx, actingOrgId(res), req.params.id, req.params.testId));
  });

  // Raw results of finished plan executions in a period, for the analysis service's reports (they count these, nothing else).
  router.get('/internal/report-results', async (req, res) => {
    res.json(await reportResults(ctx, actingOrgId(res), req.query as Record<string, string | undefined>));
  });

  return router;
}
