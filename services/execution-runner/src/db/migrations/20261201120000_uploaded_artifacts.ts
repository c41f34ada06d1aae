import type { Kysely } from 'kysely';

// Files uploaded for `upload` steps: artifacts of the organization that belong to no execution, with their file name.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('artifacts').alterColumn('execution_id', (c) => c.dropNotNull()).execute();
  await db.schema.alterTable('artifacts').addColumn('filename', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('artifacts').where('execution_id', 'is', null).execute();
  await db.schema.alterTable('artifacts').dropColumn('filename').execute();
  await db.schema.alterTable('artifacts').alterColumn('execution_id', (c) => c.setNotNull()).execute();
}
