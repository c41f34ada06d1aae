import type { Kysely } from 'kysely';

// Issue 31: one sentence of what changed and one of what to do, in words a tester uses (older items: null, the description stands in).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('analysis_items').addColumn('summary', 'text').addColumn('next_step', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('analysis_items').dropColumn('summary').dropColumn('next_step').execute();
}
