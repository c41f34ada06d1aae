import type { Kysely } from 'kysely';

/** The analysis service's enrichment of a session started with enable_ai_analysis. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('enrichment', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('enrichment').execute();
}
