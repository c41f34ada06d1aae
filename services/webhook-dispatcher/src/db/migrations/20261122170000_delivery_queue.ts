import { sql, type Kysely } from 'kysely';

/**
 * Sending a delivery writes as little as it can (the dispatcher's throughput
 * is bounded by Postgres's work per delivery):
 *
 * - What is due lives in `delivery_queue`, a narrow table of its own. A
 *   dispatcher deletes the rows it takes (skipping rows other transactions
 *   hold) in a transaction it keeps open while it sends, so taking a delivery
 *   writes no lease; a process that dies ends its transaction, the delete is
 *   undone and the rows are due again at once.
 * - The result of an attempt is one update of the delivery row that touches no
 *   indexed column, so Postgres keeps it on its page (a HOT update, no index
 *   entries): the status leaves the indexes (`deliveries_due` is gone, the
 *   expiry index covers every row) and the attempts are a jsonb array in the
 *   row instead of rows of `delivery_attempts`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table delivery_queue (
      -- No foreign key: deleting a webhook (and its deliveries) must not wait for a
      -- dispatcher holding some of their rows; the queue rows left are removed
      -- by that dispatcher, or by the purge.
      delivery_id uuid primary key,
      next_attempt_at timestamptz not null
    )`.execute(db);
  await sql`create index delivery_queue_due on delivery_queue (next_attempt_at)`.execute(db);
  await sql`
    insert into delivery_queue (delivery_id, next_attempt_at)
    select id, coalesce(next_attempt_at, now()) from deliveries where status = 'pending'`.execute(db);

  await sql`alter table deliveries add column attempts jsonb not null default '[]'`.execute(db);
  await sql`
    update deliveries d set attempts = a.list
    from (
      select delivery_id, jsonb_agg(jsonb_build_object('attempt', attempt, 'at', at, 'status_code', status_code, 'response_time_ms', response_time_ms, 'error', error) order by attempt) as list
      from delivery_attempts group by delivery_id
    ) a
    where a.delivery_id = d.id`.execute(db);
  await sql`drop table delivery_attempts`.execute(db);

  await sql`drop index deliveries_due`.execute(db);
  await sql`drop index deliveries_expiry`.execute(db);
  await sql`create index deliveries_expiry on deliveries (expires_at)`.execute(db);
  await sql`alter table deliveries drop column lease_owner, drop column lease_until`.execute(db);
  // A row (about 850 bytes with its body) grows by its first result and attempt:
  // at 45% every row of a page has room for that version on the same page.
  await sql`alter table deliveries set (fillfactor = 45)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table deliveries set (fillfactor = 70)`.execute(db);
  await sql`alter table deliveries add column lease_owner text, add column lease_until timestamptz`.execute(db);
  await sql`drop index deliveries_expiry`.execute(db);
  await sql`create index deliveries_expiry on deliveries (expires_at) where status <> 'pending'`.execute(db);
  await sql`create index deliveries_due on deliveries (next_attempt_at) where status = 'pending'`.execute(db);
  await sql`
    create table delivery_attempts (
      delivery_id uuid not null references deliveries (id) on delete cascade,
      attempt integer not null,
      at timestamptz not null,
      status_code integer,
      response_time_ms integer,
      error text,
      constraint delivery_attempts_pk primary key (delivery_id, attempt)
    )`.execute(db);
  await sql`
    insert into delivery_attempts (delivery_id, attempt, at, status_code, response_time_ms, error)
    select d.id, (a->>'attempt')::int, (a->>'at')::timestamptz, (a->>'status_code')::int, (a->>'response_time_ms')::int, a->>'error'
    from deliveries d, jsonb_array_elements(d.attempts) a`.execute(db);
  await sql`alter table deliveries drop column attempts`.execute(db);
  await sql`drop table delivery_queue`.execute(db);
}
