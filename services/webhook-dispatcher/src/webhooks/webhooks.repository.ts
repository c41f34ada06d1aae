import { sql, type Kysely } from 'kysely';
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
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
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

export async function deleteWebhookRow(db: Db, orgId: string, id: string): Promise<boolean> {
  const r = await db.deleteFrom('webhooks').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Enabled webhooks of an organization subscribed to `event`. */
export async function findSubscribedWebhooks(db: Db, orgId: string, event: string): Promise<WebhookRow[]> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('enabled', '=', true)
    .where(sql<boolean>`${event} = any(events)`)
    .execute();
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
