import { sql, type Kysely } from 'kysely';

/** Members by invitation, the free plan, Stripe customers, usage metering and quota alerts (issue 14). */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table organizations drop constraint if exists organizations_plan_check`.execute(db);
  await sql`alter table organizations add constraint organizations_plan_check check (plan in ('free', 'starter', 'growth', 'pro'))`.execute(db);
  await db.schema.alterTable('organizations').addColumn('stripe_customer_id', 'text', (c) => c.unique()).execute();
  // An invited user has no password until the invitation is accepted.
  await sql`alter table users alter column password_hash drop not null`.execute(db);

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'bytea', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('accepted_at', 'timestamptz')
    .execute();

  // Use per organization, calendar month (UTC) and quota, in base units: browser seconds, pages, executions.
  await db.schema
    .createTable('usage_counters')
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('quota', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('usage_counters_pk', ['org_id', 'period', 'quota'])
    .execute();
  // An execution counts once however many times it starts (a runner crash requeues it).
  await db.schema
    .createTable('metered_executions')
    .addColumn('execution_id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('metered_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // Each warning and each exceeded event once per organization, month and quota.
  await db.schema
    .createTable('quota_alerts')
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('quota', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull().check(sql`level in ('warning', 'exceeded')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('quota_alerts_pk', ['org_id', 'period', 'quota', 'level'])
    .execute();

  // Stripe events handled, by id (Stripe delivers at least once).
  await db.schema
    .createTable('stripe_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('org_id', 'uuid')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['stripe_events', 'quota_alerts', 'metered_executions', 'usage_counters', 'invitations']) await db.schema.dropTable(t).execute();
  await db.schema.alterTable('organizations').dropColumn('stripe_customer_id').execute();
  await sql`update organizations set plan = 'starter' where plan = 'free'`.execute(db);
  await sql`alter table organizations drop constraint if exists organizations_plan_check`.execute(db);
  await sql`alter table organizations add constraint organizations_plan_check check (plan in ('starter', 'growth', 'pro'))`.execute(db);
  await sql`update users set password_hash = '!' where password_hash is null`.execute(db);
  await sql`alter table users alter column password_hash set not null`.execute(db);
}
