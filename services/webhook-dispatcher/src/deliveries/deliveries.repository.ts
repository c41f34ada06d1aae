import { sql, type Kysely } from 'kysely';
import { selectPage } from '@assay/db';
import type { DeliveryRow, DeliveryStatus, NewDeliveryRow, WebhookDatabase } from '../db/database.js';
import { activeTraceparent } from '@assay/telemetry';

type Db = Kysely<WebhookDatabase>;

/**
 * Inserts deliveries and queues them, in one statement; one already made for
 * the same (webhook, event) is skipped.
 */
export async function insertDeliveries(db: Db, rows: NewDeliveryRow[]): Promise<DeliveryRow[]> {
  const out: DeliveryRow[] = [];
  for (let i = 0; i < rows.length; i += 1000) {
    out.push(
      ...(await db
        .with('inserted', (q) =>
          q
            .insertInto('deliveries')
            .values(rows.slice(i, i + 1000))
            .onConflict((oc) => oc.columns(['webhook_id', 'event_id', 'event']).where('event_id', 'is not', null).doNothing())
            .returningAll(),
        )
        .with('queued', (q) =>
          q.insertInto('delivery_queue').columns(['delivery_id', 'next_attempt_at']).expression((eb) => eb.selectFrom('inserted').select(['inserted.id', sql<Date>`coalesce(inserted.next_attempt_at, now())`.as('next_attempt_at')])),
        )
        .selectFrom('inserted')
        .selectAll()
        .execute()),
    );
  }
  return out;
}

export interface DeliveryFilter {
  status?: DeliveryStatus | undefined;
  event?: string | undefined;
  limit: number;
  offset: number;
}

export async function listDeliveries(db: Db, orgId: string, webhookId: string, f: DeliveryFilter): Promise<{ rows: DeliveryRow[]; total: number }> {
  let q = db.selectFrom('deliveries').where('org_id', '=', orgId).where('webhook_id', '=', webhookId);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.event) q = q.where('event', '=', f.event);
  return selectPage(q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).offset(f.offset), q);
}

export async function findDelivery(db: Db, orgId: string, webhookId: string, id: string, lock = false): Promise<DeliveryRow | undefined> {
  let q = db.selectFrom('deliveries').selectAll().where('org_id', '=', orgId).where('webhook_id', '=', webhookId).where('id', '=', id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** A finished delivery goes out once more, at `now`: one attempt more than it had, in the trace of the request that asked. */
export async function requeueDelivery(db: Db, id: string, now: Date): Promise<DeliveryRow> {
  const traceparent = activeTraceparent();
  const row = await db
    .updateTable('deliveries')
    .set({ status: 'pending', next_attempt_at: now, max_attempts: sql`attempt_count + 1`, completed_at: null, ...(traceparent ? { traceparent } : {}) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await db
    .insertInto('delivery_queue')
    .values({ delivery_id: id, next_attempt_at: now })
    .onConflict((oc) => oc.column('delivery_id').doUpdateSet({ next_attempt_at: now }))
    .execute();
  return row;
}

/** Removes finished deliveries whose history period ended, and queue rows whose delivery is gone. */
export async function purgeExpiredDeliveries(db: Db, now: Date): Promise<number> {
  const r = await db.deleteFrom('deliveries').where('status', '<>', 'pending').where('expires_at', '<', now).executeTakeFirst();
  // Left by a webhook deleted while a dispatcher held them (normally that dispatcher removes them itself);
  // a thousand a minute is far more than that leaves, and bounds one sweep's deletes and locks.
  await sql`
    delete from delivery_queue where delivery_id in (
      select q.delivery_id from delivery_queue q
      where not exists (select 1 from deliveries d where d.id = q.delivery_id)
      limit 1000
      for update skip locked)`.execute(db);
  return Number(r.numDeletedRows);
}
