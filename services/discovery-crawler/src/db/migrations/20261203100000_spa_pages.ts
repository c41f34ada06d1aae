import { sql, type Kysely } from 'kysely';

/**
 * Single-page apps: a session's warnings (what may make its results
 * incomplete), and per page how a client-side route is reached in the app
 * (`via`) and how the page was read (`reached_by`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('warnings', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`)).execute();
  await db.schema.alterTable('pages').addColumn('via', 'jsonb').addColumn('reached_by', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('pages').dropColumn('via').dropColumn('reached_by').execute();
  await db.schema.alterTable('sessions').dropColumn('warnings').execute();
}
