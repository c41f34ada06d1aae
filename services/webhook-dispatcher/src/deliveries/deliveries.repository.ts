import { sql, type Kysely } from 'kysely';
import type { DeliveryAttemptRow, DeliveryRow, DeliveryStatus, NewDeliveryRow, WebhookDatabase } from '../db/database.js';

type Db = Kysely<WebhookDatabase>;

/** Inserts deliveries; one already made for the same (webhook, event) is skipped. */
export async function insertDeliveries(db: Db, rows: NewDeliveryRow[]): Promise<DeliveryRow[]> {
  const out: DeliveryRow[] = [];
  for (let i = 0; i < rows.length; i += 1000) {
    out.push(
      ...(await db
        .insertInto('deliveries')
        .values(rows.slice(i, i + 1000))
        .onConflict((oc) => oc.columns(['webhook_id', 'event_id', 'event']).where('event_id', 'is not', null).doNothing())
        .returningAll()
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
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).offset(f.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function findDelivery(db: Db, orgId: string, webhookId: string, id: string, lock = false): Promise<DeliveryRow | undefined> {
  let q = db.selectFrom('deliveries').selectAll().where('org_id', '=', orgId).where('webhook_id', '=', webhookId).where('id', '=', id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function findAttempts(db: Db, deliveryIds: string[]): Promise<DeliveryAttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db.selectFrom('delivery_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('delivery_id').orderBy('attempt').execute();
}

/** A finished delivery goes out once more, at `now`: one attempt more than it had. */
export async function requeueDelivery(db: Db, id: string, now: Date): Promise<DeliveryRow> {
  return db
    .updateTable('deliveries')
    .set({ status: 'pending', next_attempt_at: now, max_attempts: sql`attempt_count + 1`, completed_at: null, lease_owner: null, lease_until: null })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Removes finished deliveries whose history period ended. */
export async function purgeExpiredDeliveries(db: Db, now: Date): Promise<number> {
  const r = await db.deleteFrom('deliveries').where('status', '<>', 'pending').where('expires_at', '<', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
