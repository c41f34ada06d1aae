import { sql, type Kysely } from 'kysely';

/**
 * Single-page apps: a session's warnings (what may make its results
 * incomplete), per page how a client-side route is reached in the app
 * (`via`) and how the page was read (`reached_by`); and the test cases
 * generated from a session.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('warnings', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`)).execute();
  await db.schema.alterTable('pages').addColumn('via', 'jsonb').addColumn('reached_by', 'text').execute();
  // The test cases made from a session's flows, so the session lists them after the page that made them is gone.
  await db.schema
    .createTable('generated_cases')
    .addColumn('session_id', 'uuid', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('test_case_id', 'uuid', (c) => c.notNull())
    .addColumn('flow_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('generated_cases_pkey', ['session_id', 'test_case_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('generated_cases').execute();
  await db.schema.alterTable('pages').dropColumn('via').dropColumn('reached_by').execute();
  await db.schema.alterTable('sessions').dropColumn('warnings').execute();
}
