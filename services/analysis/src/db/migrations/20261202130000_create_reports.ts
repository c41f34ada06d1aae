import { sql, type Kysely } from 'kysely';

// Report definitions, and their snapshots: rows that never change once written (a trigger refuses updates).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('report_definitions')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('filters', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('period', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index report_definitions_list on report_definitions (org_id, project_id, created_at desc, id)`.execute(db);
  await db.schema
    .createTable('report_snapshots')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('report_id', 'uuid', (c) => c.notNull().references('report_definitions.id').onDelete('cascade'))
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('definition', 'jsonb', (c) => c.notNull())
    .addColumn('period_from', 'timestamptz', (c) => c.notNull())
    .addColumn('period_to', 'timestamptz', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index report_snapshots_list on report_snapshots (report_id, created_at desc, id)`.execute(db);
  await sql`create function report_snapshots_immutable() returns trigger language plpgsql as $$
    begin raise exception 'report snapshots never change'; end $$`.execute(db);
  await sql`create trigger report_snapshots_immutable before update on report_snapshots for each row execute function report_snapshots_immutable()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('report_snapshots').execute();
  await sql`drop function if exists report_snapshots_immutable()`.execute(db);
  await db.schema.dropTable('report_definitions').execute();
}
