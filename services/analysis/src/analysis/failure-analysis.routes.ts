import { orgPrincipal, serviceRouter, type ServiceRouter, validateBody } from '@assay/http';
import type { AnalysisContext } from '../context.js';
import { applySuggestion, getFailureAnalysis, rejectSuggestion } from './failure-analysis.service.js';

export function failureAnalysisRoutes(ctx: AnalysisContext): ServiceRouter<'analysis'> {
  const router = serviceRouter('analysis');

  // The gateway rewrites the unversioned /api/executions/{id}/failure-analysis to this path.
  router.get('/api/v1/executions/:id/failure-analysis', async (req, res) => {
    const reply = await getFailureAnalysis(ctx, orgPrincipal(res).org_id, req.params.id);
    if (reply.status === 202) res.setHeader('Retry-After', String(reply.retryAfter));
    res.status(reply.status).json(reply.body);
  });

  router.post('/api/v1/executions/:id/failure-analysis/:testId/apply', async (req, res) => {
    res.json(await applySuggestion(ctx, orgPrincipal(res).org_id, req.params.id, req.params.testId));
  });

  router.post('/api/v1/executions/:id/failure-analysis/:testId/reject', (req, _res, next) => {
    // The body is optional: an empty POST rejects without a reason.
    if (req.body === undefined) req.body = {};
    next();
  }, validateBody('FailureAnalysisRejectRequest'), async (req, res) => {
    const reason = (req.body as { reason?: string }).reason;
    res.json(await rejectSuggestion(ctx, orgPrincipal(res).org_id, String(req.params.id), String(req.params.testId), reason));
  });

  return router;
}
