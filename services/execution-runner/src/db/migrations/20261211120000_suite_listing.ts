import { sql, type Kysely } from 'kysely';

// Issue 42: a version uploaded to a runner that cannot make the box (the chart's runner pods) is stored as
// `listing` and listed by a suite-shard process (`suite.list.requested`, under a lease like a shard's), then
// `ready` with its tests or `invalid` with why. Versions stored before were listed at upload: `ready`.
// The lease takes the columns of every leased table (`lease_owner`, `lease_expires_at`, `attempts`), so
// `LeasedTable` from @assay/db holds it as it holds the others (issue 41).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('suite_versions')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('ready').check(sql`status in ('listing', 'ready', 'invalid')`))
    .addColumn('error', 'text')
    .addColumn('projects', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'timestamptz')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('listed_at', 'timestamptz')
    .execute();
  await sql`create index suite_versions_listing on suite_versions (lease_expires_at) where status = 'listing'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists suite_versions_listing`.execute(db);
  for (const c of ['listed_at', 'attempts', 'lease_expires_at', 'lease_owner', 'projects', 'error', 'status']) await db.schema.alterTable('suite_versions').dropColumn(c).execute();
}
