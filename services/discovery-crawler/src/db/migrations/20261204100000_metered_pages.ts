import type { Kysely } from 'kysely';

/**
 * Pages crawled that auth has not been told of yet: the crawler reports pages
 * in batches (`discovery.pages.crawled`), and this counter, changed under the
 * session's row lock, makes every page count exactly once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('pages_unmetered', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('pages_unmetered').execute();
}
