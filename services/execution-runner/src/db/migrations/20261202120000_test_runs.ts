import { sql, type Kysely } from 'kysely';

// Exploratory test runs are executions of kind `run`: the steps came with the request, no plan holds them.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('executions')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('plan').check(sql`kind in ('plan', 'run')`))
    .addColumn('name', 'text')
    .addColumn('discovery_session_id', 'uuid')
    .addColumn('saved_test_case_id', 'uuid')
    .execute();
  await sql`create index executions_runs on executions (org_id, project_id, created_at desc, id) where kind = 'run'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists executions_runs`.execute(db);
  await db.schema.alterTable('executions').dropColumn('kind').dropColumn('name').dropColumn('discovery_session_id').dropColumn('saved_test_case_id').execute();
}
