import { randomUUID } from 'node:crypto';
import type { Plan } from '@assay/principal';
import { activeTraceparent } from '@assay/telemetry';
import type { NewDeliveryRow, WebhookRow } from '../db/database.js';
import { PLAN_LIMITS } from '../shared/plans.js';

export interface DeliveryInput {
  event: string;
  /** The platform event's id; null for test events. */
  eventId: string | null;
  /** When the event happened (the envelope's `timestamp`). */
  timestamp: string;
  data: Record<string, unknown>;
  test?: boolean;
  /** Trace context the sends continue; default: the active span's. */
  traceparent?: string;
}

/**
 * A delivery row with its body fixed once: the spec's envelope
 * `{event, timestamp, organization_id, webhook_id, delivery_id, data}`.
 * Retries and resends send the same bytes.
 */
export function newDelivery(webhook: WebhookRow, input: DeliveryInput, plan: Plan, now: Date): NewDeliveryRow {
  const id = randomUUID();
  const limits = PLAN_LIMITS[plan];
  const body = JSON.stringify({
    event: input.event,
    timestamp: input.timestamp,
    organization_id: webhook.org_id,
    webhook_id: webhook.id,
    delivery_id: id,
    data: input.data,
  });
  return {
    id,
    org_id: webhook.org_id,
    webhook_id: webhook.id,
    event: input.event,
    event_id: input.eventId,
    test: input.test ?? false,
    body,
    // A test event is a check of the endpoint: one attempt, and its failure disables nothing.
    max_attempts: input.test ? 1 : limits.attempts,
    next_attempt_at: now,
    created_at: now,
    expires_at: new Date(now.getTime() + limits.historyDays * 86_400_000),
    traceparent: input.traceparent ?? activeTraceparent() ?? null,
  };
}
