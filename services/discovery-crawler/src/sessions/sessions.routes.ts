import { orgPrincipal, serveEventStream, serviceRouter, type ServiceRouter, validateBody } from '@assay/http';
import type { DiscoveryContext } from '../context.js';
import { cancelSession, getSession, listSessionsBody, pauseSession, progressBody, resultsBody, resumeSession, sessionEventsAfter, startSession, startedBody, type StartRequest } from './sessions.service.js';

export function sessionRoutes(ctx: DiscoveryContext): ServiceRouter<'discovery-crawler'> {
  const router = serviceRouter('discovery-crawler');

  router.post('/api/v1/discovery/start', validateBody('DiscoveryStartRequest'), async (req, res) => {
    const row = await startSession(ctx, orgPrincipal(res).org_id, req.body as StartRequest);
    res.status(201).location(`/api/v1/discovery/${row.id}/progress`).json(startedBody(row));
  });

  router.get('/api/v1/discovery', async (req, res) => {
    res.json(await listSessionsBody(ctx, orgPrincipal(res).org_id, req.query as Record<string, unknown>));
  });

  router.get('/api/v1/discovery/:id/progress', async (req, res) => {
    res.json(await progressBody(ctx, await getSession(ctx, orgPrincipal(res).org_id, req.params.id)));
  });

  router.get('/api/v1/discovery/:id/results', async (req, res) => {
    res.json(await resultsBody(ctx, await getSession(ctx, orgPrincipal(res).org_id, req.params.id)));
  });

  router.post('/api/v1/discovery/:id/pause', async (req, res) => {
    res.json(await pauseSession(ctx, orgPrincipal(res).org_id, req.params.id));
  });

  router.post('/api/v1/discovery/:id/resume', async (req, res) => {
    res.json(await resumeSession(ctx, orgPrincipal(res).org_id, req.params.id));
  });

  router.delete('/api/v1/discovery/:id', async (req, res) => {
    res.json(await cancelSession(ctx, orgPrincipal(res).org_id, req.params.id));
  });

  // page_discovered, flow_detected and completion as they happen, replayed from Last-Event-ID; ends after completion.
  router.get('/api/v1/discovery/:id/stream', async (req, res) => {
    const row = await getSession(ctx, orgPrincipal(res).org_id, req.params.id);
    await serveEventStream(req, res, {
      read: (afterSeq) => sessionEventsAfter(ctx, row.id, afterSeq),
      subscribe: (wake) => ctx.notifier.on(row.id, wake),
      isLast: (e) => e.type === 'completion',
      format: (e) => ({ session_id: row.id, ...(e.data as Record<string, unknown>) }),
      onError: (err) => ctx.logger.warn({ err }, 'discovery stream read failed'),
      ...(ctx.keepAliveMs ? { keepAliveMs: ctx.keepAliveMs } : {}),
    });
  });

  return router;
}
