import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull().check(sql`plan in ('starter', 'growth', 'pro')`))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active').check(sql`status in ('active', 'suspended', 'deleted')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index users_email_unique on users (lower(email))`.execute(db);

  await db.schema
    .createTable('memberships')
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'member')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('memberships_pk', ['org_id', 'user_id'])
    .execute();
  await sql`create unique index memberships_one_owner on memberships (org_id) where role = 'owner'`.execute(db);
  await sql`create index memberships_user on memberships (user_id)`.execute(db);

  await db.schema
    .createTable('keys')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('service_key', 'api_key')`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.check(sql`environment in ('prod', 'dev')`))
    .addColumn('scopes', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('secret_hash', 'bytea', (c) => c.notNull().unique())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('last_used', 'timestamptz')
    .addColumn('usage_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`create index keys_active_by_org on keys (org_id, kind, created_at) where revoked_at is null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['keys', 'memberships', 'users', 'organizations']) await db.schema.dropTable(t).execute();
}
