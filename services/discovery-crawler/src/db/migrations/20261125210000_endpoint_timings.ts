import { sql, type Kysely } from 'kysely';

/**
 * Every call's response time (up to 500 per endpoint row), so endpoints
 * templated together at read time get a true min/median/max.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_endpoints')
    .addColumn('response_times_ms', sql`integer[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .execute();
  // Rows from before: their one known timing.
  await sql`update api_endpoints set response_times_ms = array[response_time_ms]`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_endpoints').dropColumn('response_times_ms').execute();
}
