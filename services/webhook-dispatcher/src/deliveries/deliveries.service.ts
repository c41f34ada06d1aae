import type { Kysely } from 'kysely';
import { withTransaction } from '@assay/db';
import { conflict, isUuid, iso, notFound } from '@assay/http';
import type { DeliveryRow, DeliveryStatus, WebhookDatabase } from '../db/database.js';
import type { WebhookContext } from '../context.js';
import { getWebhook } from '../webhooks/webhooks.service.js';
import { findDelivery, listDeliveries, requeueDelivery } from './deliveries.repository.js';

type Db = Kysely<WebhookDatabase>;

export function toDeliveryBody(row: DeliveryRow) {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event: row.event,
    event_id: row.event_id,
    status: row.status,
    test: row.test,
    attempt_count: row.attempt_count,
    max_attempts: row.max_attempts,
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    status_code: row.status_code,
    response_body: row.response_body,
    response_time_ms: row.response_time_ms,
    error: row.error,
    attempts: row.attempts.map((a) => ({ attempt: a.attempt, at: iso(new Date(a.at)), status_code: a.status_code, response_time_ms: a.response_time_ms, error: a.error })),
    created_at: iso(row.created_at),
    completed_at: iso(row.completed_at),
  };
}

export async function listWebhookDeliveries(db: Db, orgId: string, webhookId: string, f: { status?: DeliveryStatus | undefined; event?: string | undefined; limit: number; offset: number }) {
  await getWebhook(db, orgId, webhookId);
  const { rows, total } = await listDeliveries(db, orgId, webhookId, f);
  return { data: rows.map(toDeliveryBody), pagination: { limit: f.limit, offset: f.offset, total } };
}

/**
 * Sends a finished delivery again at once (the same id and body).
 * @throws AppError 404 for unknown ids, 409 while it is still pending or the webhook is disabled.
 */
export async function resendDelivery(ctx: WebhookContext, orgId: string, webhookId: string, id: string) {
  const row = await withTransaction(ctx.db, async (trx) => {
    const webhook = await getWebhook(trx, orgId, webhookId);
    const current = isUuid(id) ? await findDelivery(trx, orgId, webhookId, id, true) : undefined;
    if (!current) throw notFound('Delivery');
    if (current.status === 'pending') throw conflict('The delivery is still pending: it goes out on its own');
    if (!webhook.enabled) throw conflict('The webhook is disabled: enable it first');
    return requeueDelivery(trx, id, ctx.clock.now());
  });
  ctx.deliveriesDue();
  return toDeliveryBody(row);
}
