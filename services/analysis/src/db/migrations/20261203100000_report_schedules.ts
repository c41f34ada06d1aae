import { sql, type Kysely } from 'kysely';

// A cron schedule per report definition, and what took each snapshot. One
// snapshot per (report, occurrence): the unique index makes a schedule fire
// once across replicas even if two claimed the same occurrence.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('report_definitions')
    .addColumn('schedule_cron', 'text')
    .addColumn('schedule_timezone', 'text')
    .addColumn('next_snapshot_at', 'timestamptz')
    .addColumn('last_snapshot_at', 'timestamptz')
    .addColumn('last_schedule_error', 'text')
    .execute();
  await sql`create index report_definitions_due on report_definitions (next_snapshot_at) where next_snapshot_at is not null`.execute(db);
  await db.schema
    .alterTable('report_snapshots')
    .addColumn('trigger', 'text', (c) => c.notNull().defaultTo('manual'))
    .addColumn('scheduled_for', 'timestamptz')
    .execute();
  await sql`create unique index report_snapshots_occurrence on report_snapshots (report_id, scheduled_for) where scheduled_for is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists report_snapshots_occurrence`.execute(db);
  await db.schema.alterTable('report_snapshots').dropColumn('trigger').dropColumn('scheduled_for').execute();
  await sql`drop index if exists report_definitions_due`.execute(db);
  await db.schema
    .alterTable('report_definitions')
    .dropColumn('schedule_cron')
    .dropColumn('schedule_timezone')
    .dropColumn('next_snapshot_at')
    .dropColumn('last_snapshot_at')
    .dropColumn('last_schedule_error')
    .execute();
}
