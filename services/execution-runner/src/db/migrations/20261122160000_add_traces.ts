import { sql, type Kysely } from 'kysely';

// Playwright traces: which runs record them, and where a case's trace is.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('executions')
    .addColumn('trace', 'text', (c) => c.notNull().defaultTo('off').check(sql`trace in ('off','on','retain-on-failure')`))
    .execute();
  await db.schema.alterTable('test_results').addColumn('trace_artifact_id', 'uuid').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('test_results').dropColumn('trace_artifact_id').execute();
  await db.schema.alterTable('executions').dropColumn('trace').execute();
}
