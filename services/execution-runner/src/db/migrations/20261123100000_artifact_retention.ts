import { sql, type Kysely } from 'kysely';

// Screenshots and traces expire after the plan's history period (set per execution
// when it is created; null: kept until deleted, as uploaded files are), and each
// organization's stored bytes are counted so a quota can refuse new ones before the
// disk fills.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('executions').addColumn('history_days', 'integer', (c) => c.notNull().defaultTo(90)).execute();
  await db.schema.alterTable('artifacts').addColumn('expires_at', 'timestamptz').execute();
  await sql`update artifacts set expires_at = created_at + interval '90 days'`.execute(db);
  await sql`create index artifacts_expiry on artifacts (expires_at) where expires_at is not null`.execute(db);
  await db.schema
    .createTable('artifact_usage')
    .addColumn('org_id', 'uuid', (c) => c.primaryKey())
    .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`insert into artifact_usage (org_id, bytes) select org_id, sum(size) from artifacts group by org_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('artifact_usage').execute();
  await db.schema.alterTable('artifacts').dropColumn('expires_at').execute();
  await db.schema.alterTable('executions').dropColumn('history_days').execute();
}
