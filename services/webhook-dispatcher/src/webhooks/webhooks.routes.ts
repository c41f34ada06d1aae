import type { NextFunction, Request, Response } from 'express';
import { WEBHOOK_EVENT_TYPES } from '@assay/contracts';
import { orgPrincipal, parsePagination, queryString, requireRole, requireScope, serviceRouter, type ServiceRouter, validationError } from '@assay/http';
import type { WebhookContext } from '../context.js';
import type { DeliveryStatus } from '../db/database.js';
import { toDeliveryBody } from '../deliveries/deliveries.service.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhookPage,
  rememberCallerPlan,
  resendDelivery,
  rotateSecret,
  sendTestEvent,
  toWebhookBody,
  updateWebhook,
} from './webhooks.service.js';

const STATUSES: DeliveryStatus[] = ['pending', 'delivered', 'failed'];

export function webhookRoutes(ctx: WebhookContext): ServiceRouter<'webhook-dispatcher'> {
  const router = serviceRouter('webhook-dispatcher');
  // Webhook-related access (spec): Admin or Owner; sk_live_ keys need the webhooks scope.
  const access = [
    requireRole('owner', 'admin'),
    requireScope('webhooks:manage'),
    async (_req: Request, res: Response, next: NextFunction) => {
      const p = orgPrincipal(res);
      await rememberCallerPlan(ctx.db, p.org_id, p.plan);
      next();
    },
  ];
  router.use('/api/v1/webhooks', ...access);

  router.post('/api/v1/webhooks', async (req, res) => {
    const p = orgPrincipal(res);
    res.status(201).json(await createWebhook(ctx, p.org_id, p.plan, req.body));
  });

  router.get('/api/v1/webhooks', async (req, res) => {
    const { limit, offset } = parsePagination(req.query as Record<string, unknown>, { defaultLimit: 50, maxLimit: 100 });
    res.json(await listWebhookPage(ctx, orgPrincipal(res).org_id, limit, offset));
  });

  router.get('/api/v1/webhooks/:id', async (req, res) => {
    res.json(toWebhookBody(await getWebhook(ctx.db, orgPrincipal(res).org_id, req.params.id), ctx.clock.now()));
  });

  router.patch('/api/v1/webhooks/:id', async (req, res) => {
    const p = orgPrincipal(res);
    res.json(await updateWebhook(ctx, p.org_id, p.plan, req.params.id, req.body));
  });

  router.delete('/api/v1/webhooks/:id', async (req, res) => {
    res.json(await deleteWebhook(ctx.db, orgPrincipal(res).org_id, req.params.id));
  });

  router.post('/api/v1/webhooks/:id/test', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const row = await sendTestEvent(ctx, orgId, req.params.id, req.body);
    res.status(202).json(toDeliveryBody(row));
  });

  router.post('/api/v1/webhooks/:id/rotate-secret', async (req, res) => {
    res.json(await rotateSecret(ctx, orgPrincipal(res).org_id, req.params.id, req.body));
  });

  router.get('/api/v1/webhooks/:id/deliveries', async (req, res) => {
    const query = req.query as Record<string, unknown>;
    const { limit, offset } = parsePagination(query, { defaultLimit: 20, maxLimit: 100 });
    const status = queryString(query, 'status');
    if (status !== undefined && !(STATUSES as string[]).includes(status)) throw validationError([{ field: 'status', message: `must be one of ${STATUSES.join(', ')}` }]);
    const event = queryString(query, 'event');
    if (event !== undefined && !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event)) throw validationError([{ field: 'event', message: 'must be a webhook event type' }]);
    res.json(await listWebhookDeliveries(ctx.db, orgPrincipal(res).org_id, req.params.id, { status: status as DeliveryStatus | undefined, event, limit, offset }));
  });

  router.post('/api/v1/webhooks/:id/deliveries/:deliveryId/resend', async (req, res) => {
    res.status(202).json(await resendDelivery(ctx, orgPrincipal(res).org_id, req.params.id, req.params.deliveryId));
  });

  return router;
}
