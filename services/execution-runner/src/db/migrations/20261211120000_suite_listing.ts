import { sql, type Kysely } from 'kysely';

// Issue 42: a version uploaded to a runner that cannot make the box (the chart's runner pods) is stored as
// `listing` and listed by a suite-shard process (`suite.list.requested`, under a lease like a shard's), then
// `ready` with its tests or `invalid` with why. Versions stored before were listed at upload: `ready`.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('suite_versions')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('ready').check(sql`status in ('listing', 'ready', 'invalid')`))
    .addColumn('error', 'text')
    .addColumn('projects', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('list_owner', 'text')
    .addColumn('list_expires_at', 'timestamptz')
    .addColumn('list_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('listed_at', 'timestamptz')
    .execute();
  await sql`create index suite_versions_listing on suite_versions (list_expires_at) where status = 'listing'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists suite_versions_listing`.execute(db);
  for (const c of ['listed_at', 'list_attempts', 'list_expires_at', 'list_owner', 'projects', 'error', 'status']) await db.schema.alterTable('suite_versions').dropColumn(c).execute();
}
