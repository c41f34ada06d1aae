import { idParam, routesOf, type InternalRouteContract } from './route.js';

const wh = routesOf('webhook-dispatcher', 'Webhooks');
const id = idParam('webhook_id');
const manage = 'Admin or Owner role, or an `sk_live_` key with the `webhooks:manage` scope.';

/** The webhook-dispatcher's routes: webhooks, their test events and secrets, the delivery log. */
export const WEBHOOK_DISPATCHER_ROUTES = [
  wh({
    method: 'POST',
    path: '/api/v1/webhooks',
    scope: 'webhooks:manage',
    summary: 'Register a webhook',
    description: `${manage} Sends a test event at once. The secret (given, ≥ 24 characters, or generated) is returned only here. Plan limits: 3/10/unlimited webhooks (Starter/Growth/Pro); conditional rules on Pro.`,
    body: 'WebhookCreateRequest',
    response: { status: 201, schema: 'WebhookCreated' },
    errors: [400],
  }),
  wh({
    method: 'GET',
    path: '/api/v1/webhooks',
    scope: 'webhooks:manage',
    summary: 'List webhooks',
    params: [
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
      { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
    ],
    response: { status: 200, schema: 'WebhookList' },
    errors: [400],
  }),
  wh({ method: 'GET', path: '/api/v1/webhooks/{webhook_id}', scope: 'webhooks:manage', summary: 'Get a webhook', params: [id], response: { status: 200, schema: 'Webhook' }, errors: [404] }),
  wh({ method: 'PATCH', path: '/api/v1/webhooks/{webhook_id}', scope: 'webhooks:manage', summary: 'Change a webhook', description: 'Any subset of the fields; `enabled: true` re-enables a disabled webhook.', params: [id], body: 'WebhookUpdateRequest', response: { status: 200, schema: 'Webhook' }, errors: [400, 404] }),
  wh({ method: 'DELETE', path: '/api/v1/webhooks/{webhook_id}', scope: 'webhooks:manage', summary: 'Delete a webhook and its delivery log', params: [id], response: { status: 200, schema: 'WebhookDeleted' }, errors: [404] }),
  wh({ method: 'POST', path: '/api/v1/webhooks/{webhook_id}/test', scope: 'webhooks:manage', summary: 'Send a test event', params: [id], body: 'WebhookTestRequest', response: { status: 202, schema: 'WebhookDelivery' }, errors: [400, 404, 409] }),
  wh({
    method: 'POST',
    path: '/api/v1/webhooks/{webhook_id}/rotate-secret',
    scope: 'webhooks:manage',
    summary: 'Rotate the signing secret',
    description: 'For 24 hours deliveries carry two Standard Webhooks signatures (new and old secret); X-Service-Signature uses the new one.',
    params: [id],
    body: 'WebhookRotateRequest',
    response: { status: 200, schema: 'WebhookSecretRotated' },
    errors: [400, 404],
  }),
  wh({
    method: 'GET',
    path: '/api/v1/webhooks/{webhook_id}/deliveries',
    scope: 'webhooks:manage',
    summary: 'The delivery log, newest first',
    description: 'Kept for the plan’s history period (7/30/90 days).',
    params: [
      id,
      { name: 'status', in: 'query', schema: { type: 'string', enum: ['pending', 'delivered', 'failed'] } },
      { name: 'event', in: 'query', schema: { type: 'string' } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
    ],
    response: { status: 200, schema: 'WebhookDeliveryList' },
    errors: [400, 404],
  }),
  wh({
    method: 'POST',
    path: '/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/resend',
    scope: 'webhooks:manage',
    summary: 'Send a delivery again at once',
    params: [id, idParam('delivery_id')],
    response: { status: 202, schema: 'WebhookDelivery' },
    errors: [404, 409],
  }),
];

/** The webhook-dispatcher serves no internal route. */
export const WEBHOOK_DISPATCHER_INTERNAL_ROUTES = {} as const satisfies Record<string, InternalRouteContract>;
