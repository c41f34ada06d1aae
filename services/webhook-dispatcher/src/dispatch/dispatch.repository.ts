import { sql, type Kysely } from 'kysely';
import type { Plan } from '@assay/principal';
import type { WebhookDatabase } from '../db/database.js';

type Db = Kysely<WebhookDatabase>;

/** A delivery a batch took off the queue: what sending it needs. */
export interface Claimed {
  id: string;
  org_id: string;
  webhook_id: string;
  event: string;
  body: string;
  test: boolean;
  attempt_count: number;
  max_attempts: number;
  /** When it was due, as Postgres wrote it (never parsed here): a row put back unsent keeps its place. */
  due_at: string;
  traceparent: string | null;
}

/** The result of one attempt, as `recordOutcomes` writes it. */
export interface Outcome {
  id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempt_count: number;
  next_attempt_at: string | null;
  status_code: number | null;
  response_body: string | null;
  response_time_ms: number;
  error: string | null;
  completed_at: string | null;
  /** When the attempt started (ISO). */
  at: string;
}

/** Postgres ends the transaction (and frees its rows) when it stays idle this long: a frozen process loses its batch. */
export async function limitIdleTransaction(trx: Db, ms: number): Promise<void> {
  await sql`select set_config('idle_in_transaction_session_timeout', ${String(ms)}, true)`.execute(trx);
}

/**
 * Takes up to `limit` due rows of enabled webhooks off the queue, oldest due
 * first, skipping rows other transactions hold. The delete commits with the
 * batch, or is undone if the process dies first.
 */
export async function takeDueDeliveries(trx: Db, now: Date, limit: number): Promise<Claimed[]> {
  const r = await sql<Claimed>`
    with taken as (
      delete from delivery_queue where ctid = any(array(
        select q.ctid from delivery_queue q
        join deliveries d on d.id = q.delivery_id
        join webhooks w on w.id = d.webhook_id
        where q.next_attempt_at <= ${now} and w.enabled
        order by q.next_attempt_at
        limit ${limit}
        for update of q skip locked))
      returning delivery_id, next_attempt_at
    )
    select d.id, d.org_id, d.webhook_id, d.event, d.body, d.test, d.attempt_count, d.max_attempts, t.next_attempt_at::text as due_at, d.traceparent
    from taken t join deliveries d on d.id = t.delivery_id
    order by t.next_attempt_at`.execute(trx);
  return r.rows;
}

/** Deliveries held back by a rate limit: due again at `at`. */
export async function requeueDeliveriesAt(trx: Db, ids: string[], at: Date): Promise<void> {
  await trx.insertInto('delivery_queue').values(ids.map((id) => ({ delivery_id: id, next_attempt_at: at }))).execute();
  await trx.updateTable('deliveries').set({ next_attempt_at: at }).where('id', 'in', ids).execute();
}

/** Rows taken but not sent go back on the queue as they were (unless their delivery was deleted meanwhile). */
export async function putBackUnsent(trx: Db, rows: Claimed[]): Promise<void> {
  await sql`
    insert into delivery_queue (delivery_id, next_attempt_at)
    select d.id, u.due_at
    from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.due_at)}::timestamptz[]) as u(id, due_at)
    join deliveries d on d.id = u.id`.execute(trx);
}

/** URL and sealed secrets of the webhooks. */
export function findWebhookTargets(trx: Db, ids: string[]) {
  return trx.selectFrom('webhooks').select(['id', 'url', 'secret_enc', 'previous_secret_enc', 'previous_secret_expires_at']).where('id', 'in', ids).execute();
}

/** Serialises the counting of these rate keys across replicas, until the transaction ends (lock them in a fixed order). */
export async function lockRateKeys(trx: Db, keys: string[]): Promise<void> {
  for (const key of keys) await sql`select pg_advisory_xact_lock(hashtext(${`assay.webhook.rate.${key}`}))`.execute(trx);
}

/** The counters of these keys in these windows. */
export function findRateCounters(trx: Db, keys: string[], windows: Date[]) {
  return trx.selectFrom('rate_counters').select(['key', 'window_start', 'count']).where('key', 'in', keys).where('window_start', 'in', windows).execute();
}

/** The plan last seen for each organization (absent: never seen). */
export async function findOrgPlans(trx: Db, orgIds: string[]): Promise<Map<string, Plan>> {
  const rows = await trx.selectFrom('org_plans').select(['org_id', 'plan']).where('org_id', 'in', orgIds).execute();
  return new Map(rows.map((p) => [p.org_id, p.plan as Plan]));
}

/** Sets the counters (insert or overwrite). */
export async function saveRateCounters(trx: Db, values: Array<{ key: string; window_start: Date; count: number }>): Promise<void> {
  await trx
    .insertInto('rate_counters')
    .values(values)
    .onConflict((oc) => oc.columns(['key', 'window_start']).doUpdateSet((eb) => ({ count: eb.ref('excluded.count') })))
    .execute();
}

/**
 * Writes a batch's results in one statement: each delivery row gets its status
 * and the attempt appended, and a retried one goes back on the queue at its
 * next time. A delivery deleted meanwhile (with its webhook) records nothing.
 */
export async function recordOutcomes(trx: Db, outcomes: Outcome[]): Promise<void> {
  await sql`
    with v as (
      select * from jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb) as v(
        id uuid, status text, attempt_count int, next_attempt_at timestamptz, status_code int,
        response_body text, response_time_ms int, error text, completed_at timestamptz, at text)
    ), updated as (
      update deliveries d set
        status = v.status, attempt_count = v.attempt_count, next_attempt_at = v.next_attempt_at,
        status_code = v.status_code, response_body = v.response_body, response_time_ms = v.response_time_ms,
        error = v.error, completed_at = v.completed_at,
        attempts = d.attempts || jsonb_build_array(jsonb_build_object(
          'attempt', v.attempt_count, 'at', v.at, 'status_code', v.status_code, 'response_time_ms', v.response_time_ms, 'error', v.error))
      from v
      where d.id = v.id
      returning d.id
    )
    insert into delivery_queue (delivery_id, next_attempt_at)
    select v.id, v.next_attempt_at from v join updated u on u.id = v.id
    where v.status = 'pending'`.execute(trx);
}

/**
 * Disables a webhook that is still enabled and leaves the administrators'
 * notification; undefined when it was disabled already.
 */
export async function disableWebhookWithNotice(trx: Db, w: { orgId: string; webhookId: string }, reason: string, now: Date): Promise<{ id: string; name: string; url: string } | undefined> {
  const disabled = await trx
    .updateTable('webhooks')
    .set({ enabled: false, disabled_reason: reason, disabled_at: now, updated_at: now })
    .where('id', '=', w.webhookId)
    .where('enabled', '=', true)
    .returning(['id', 'name', 'url'])
    .executeTakeFirst();
  if (!disabled) return undefined;
  await trx
    .insertInto('notifications')
    .values({ org_id: w.orgId, webhook_id: w.webhookId, kind: 'webhook.disabled', message: `Webhook "${disabled.name}" (${disabled.url}) was disabled. ${reason}`, created_at: now })
    .execute();
  return disabled;
}

/** Deletes rate windows that started before `before`. */
export async function purgeRateCounters(db: Db, before: Date): Promise<void> {
  await db.deleteFrom('rate_counters').where('window_start', '<', before).execute();
}
