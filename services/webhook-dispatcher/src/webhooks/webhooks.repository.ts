import { sql, type Kysely } from 'kysely';
import { selectPage } from '@assay/db';
import type { Plan } from '@assay/principal';
import type { NewWebhookRow, WebhookDatabase, WebhookRow } from '../db/database.js';

type Db = Kysely<WebhookDatabase>;

export async function insertWebhook(db: Db, row: NewWebhookRow): Promise<WebhookRow> {
  return db.insertInto('webhooks').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findWebhook(db: Db, orgId: string, id: string, lock = false): Promise<WebhookRow | undefined> {
  let q = db.selectFrom('webhooks').selectAll().where('org_id', '=', orgId).where('id', '=', id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function listWebhooks(db: Db, orgId: string, limit: number, offset: number): Promise<{ rows: WebhookRow[]; total: number }> {
  const q = db.selectFrom('webhooks').where('org_id', '=', orgId);
  return selectPage(q.selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset), q);
}

/** Counts under a per-organization advisory lock, so two creates cannot both pass the plan limit. */
export async function lockAndCountWebhooks(db: Db, orgId: string): Promise<number> {
  await sql`select pg_advisory_xact_lock(hashtext(${`assay.webhooks.${orgId}`}))`.execute(db);
  const row = await db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateWebhookRow(db: Db, orgId: string, id: string, patch: Record<string, unknown>): Promise<WebhookRow> {
  return db
    .updateTable('webhooks')
    .set({ ...patch, updated_at: sql`now()` })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Deletes the webhook with its deliveries, and takes its pending deliveries off
 * the queue. Rows a dispatcher holds locked while it sends are skipped, not
 * waited for: the dispatcher removes them when it records its batch.
 */
export async function deleteWebhookRow(db: Db, orgId: string, id: string): Promise<boolean> {
  const r = await sql<{ id: string }>`
    with unqueued as (
      delete from delivery_queue where delivery_id in (
        select q.delivery_id from delivery_queue q join deliveries d on d.id = q.delivery_id
        where d.webhook_id = ${id} and d.org_id = ${orgId}
        for update of q skip locked)
    )
    delete from webhooks where org_id = ${orgId} and id = ${id} returning id`.execute(db);
  return r.rows.length > 0;
}

/** Enabled webhooks of the organizations, with each organization's plan (Starter when never seen). */
export async function findEnabledWebhooks(db: Db, orgIds: string[]): Promise<Map<string, Array<{ webhook: WebhookRow; plan: Plan }>>> {
  const out = new Map<string, Array<{ webhook: WebhookRow; plan: Plan }>>();
  if (orgIds.length === 0) return out;
  const rows = await db
    .selectFrom('webhooks as w')
    .leftJoin('org_plans as p', 'p.org_id', 'w.org_id')
    .selectAll('w')
    .select('p.plan')
    .where('w.org_id', 'in', orgIds)
    .where('w.enabled', '=', true)
    .orderBy('w.created_at')
    .execute();
  for (const { plan, ...webhook } of rows) {
    const list = out.get(webhook.org_id) ?? [];
    list.push({ webhook: webhook as WebhookRow, plan: plan ?? 'starter' });
    out.set(webhook.org_id, list);
  }
  return out;
}

export async function rememberPlan(db: Db, orgId: string, plan: Plan): Promise<void> {
  await db
    .insertInto('org_plans')
    .values({ org_id: orgId, plan })
    .onConflict((oc) => oc.column('org_id').doUpdateSet({ plan, updated_at: sql`now()` }).where('org_plans.plan', '<>', plan))
    .execute();
}

/** The plan last seen for the organization; Starter, the smallest, when none was. */
export async function findPlan(db: Db, orgId: string): Promise<Plan> {
  const row = await db.selectFrom('org_plans').select('plan').where('org_id', '=', orgId).executeTakeFirst();
  return row?.plan ?? 'starter';
}
