import type { JsonSchema } from './json-schema.js';

/** The event types a webhook may subscribe to: the spec's 22, the short `test.completed` and `report.snapshot.created`. */
export const WEBHOOK_EVENT_TYPES = [
  'test.execution.started',
  'test.execution.completed',
  'test.execution.passed',
  'test.execution.failed',
  'test.execution.timeout',
  'test.case.created',
  'test.case.updated',
  'test.case.deleted',
  'test.plan.started',
  'test.plan.completed',
  'test.plan.scheduled',
  'discovery.session.started',
  'discovery.session.completed',
  'discovery.flow.detected',
  'organization.member.added',
  'organization.member.removed',
  'organization.quota.warning',
  'organization.quota.exceeded',
  'billing.subscription.updated',
  'billing.subscription.cancelled',
  'billing.payment.succeeded',
  'billing.payment.failed',
  'test.completed',
  'report.snapshot.created',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Fields a conditional rule can test (see the webhook-dispatcher README). */
export const RULE_FIELDS = ['consecutive_failures', 'pass_rate', 'time_of_day', 'environment'] as const;
export const RULE_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'between'] as const;

const timestamp = { type: 'string', format: 'date-time' };
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' };
const secret = { type: 'string', minLength: 24, maxLength: 256, description: 'Signing key, at least 24 characters; generated when omitted.' };
const filters = {
  type: 'object',
  additionalProperties: false,
  properties: {
    projects: { type: 'array', maxItems: 100, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 64 }, description: 'Only events of these projects (events tied to no project pass).' },
    priorities: { type: 'array', uniqueItems: true, items: { type: 'string', enum: ['critical', 'high'] }, description: 'Only events whose test case has one of these priorities (events without a priority pass).' },
  },
};
const rules = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['rules'],
  description: 'Pro plan. Declarative conditions, all (default) or any of which must hold for an event to be sent.',
  properties: {
    match: { type: 'string', enum: ['all', 'any'], default: 'all' },
    rules: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['field', 'op', 'value'],
        properties: {
          field: { type: 'string', enum: [...RULE_FIELDS] },
          op: { type: 'string', enum: [...RULE_OPS] },
          value: { description: 'A number, a string, a list of strings (`in`) or `{from, to}` (`between`; `HH:MM` UTC for time_of_day).' },
        },
      },
    },
  },
};
const events = { type: 'array', minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true, items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] } };
const attempt = {
  type: 'object',
  required: ['attempt', 'at', 'status_code', 'response_time_ms', 'error'],
  properties: {
    attempt: { type: 'integer', minimum: 1 },
    at: timestamp,
    status_code: { type: ['integer', 'null'] },
    response_time_ms: { type: ['integer', 'null'] },
    error: { type: ['string', 'null'] },
  },
};

export const webhookSchemas: Record<string, JsonSchema> = {
  WebhookCreateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'url', 'events'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      url: { type: 'string', minLength: 1, maxLength: 2048, description: 'HTTPS; plain HTTP only to loopback hosts when the deployment allows it (local development).' },
      secret,
      events,
      filters,
      conditional_rules: rules,
      enabled: { type: 'boolean', default: true },
    },
  },
  WebhookUpdateRequest: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      url: { type: 'string', minLength: 1, maxLength: 2048 },
      events,
      filters,
      conditional_rules: rules,
      enabled: { type: 'boolean', description: 'true re-enables a webhook that was disabled after failures.' },
    },
  },
  Webhook: {
    type: 'object',
    required: ['id', 'name', 'url', 'events', 'filters', 'conditional_rules', 'enabled', 'disabled_reason', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'array', items: { type: 'string' } },
      filters: { type: 'object', properties: { projects: { type: 'array', items: { type: 'string' } }, priorities: { type: 'array', items: { type: 'string' } } } },
      conditional_rules: { type: ['object', 'null'] },
      enabled: { type: 'boolean' },
      disabled_reason: { type: ['string', 'null'], description: 'Why the service disabled the webhook (last attempt failed, 410 Gone).' },
      disabled_at: nullableTimestamp,
      previous_secret_expires_at: { ...nullableTimestamp, description: 'Until then deliveries also carry a signature with the secret before the last rotation.' },
      created_at: timestamp,
      updated_at: timestamp,
    },
  },
  WebhookCreated: {
    type: 'object',
    required: ['id', 'secret', 'standard_webhooks_secret', 'test_delivery_id'],
    description: 'The webhook with its secret, shown only here, and the id of the test delivery sent to verify it.',
    properties: {
      id: { type: 'string' },
      secret: { type: 'string', description: 'HMAC key of X-Service-Signature; shown once.' },
      standard_webhooks_secret: { type: 'string', description: 'The same key as `whsec_<base64>`, the form Standard Webhooks libraries take.' },
      test_delivery_id: { type: 'string' },
    },
  },
  WebhookList: {
    type: 'object',
    required: ['data', 'pagination'],
    properties: { data: { type: 'array', items: { $ref: 'Webhook' } }, pagination: { $ref: 'Pagination' } },
  },
  WebhookDeleted: { type: 'object', required: ['id', 'deleted'], properties: { id: { type: 'string' }, deleted: { type: 'boolean' } } },
  WebhookTestRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { event: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES], description: 'Event type of the test event (default: the first subscribed type).' } },
  },
  WebhookRotateRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { secret },
  },
  WebhookSecretRotated: {
    type: 'object',
    required: ['id', 'secret', 'standard_webhooks_secret', 'previous_secret_expires_at'],
    properties: {
      id: { type: 'string' },
      secret: { type: 'string' },
      standard_webhooks_secret: { type: 'string' },
      previous_secret_expires_at: timestamp,
    },
  },
  WebhookDelivery: {
    type: 'object',
    required: ['id', 'webhook_id', 'event', 'status', 'test', 'attempt_count', 'max_attempts', 'next_attempt_at', 'status_code', 'response_body', 'response_time_ms', 'error', 'attempts', 'created_at', 'completed_at'],
    properties: {
      id: { type: 'string', description: 'The delivery id (X-Service-Delivery, webhook-id).' },
      webhook_id: { type: 'string' },
      event: { type: 'string' },
      event_id: { type: ['string', 'null'], description: 'Id of the platform event; null for test events.' },
      status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
      test: { type: 'boolean' },
      attempt_count: { type: 'integer' },
      max_attempts: { type: 'integer' },
      next_attempt_at: nullableTimestamp,
      status_code: { type: ['integer', 'null'], description: 'Of the last attempt.' },
      response_body: { type: ['string', 'null'], description: 'First 4 KB of the last response.' },
      response_time_ms: { type: ['integer', 'null'] },
      error: { type: ['string', 'null'] },
      attempts: { type: 'array', items: attempt },
      created_at: timestamp,
      completed_at: nullableTimestamp,
    },
  },
  WebhookDeliveryList: {
    type: 'object',
    required: ['data', 'pagination'],
    properties: { data: { type: 'array', items: { $ref: 'WebhookDelivery' } }, pagination: { $ref: 'Pagination' } },
  },
};
