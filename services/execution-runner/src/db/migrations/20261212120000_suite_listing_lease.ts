import type { Kysely } from 'kysely';

// Issue 41: the listing lease of a suite version takes the columns of every leased table
// (`lease_owner`, `lease_expires_at`, `attempts`), so `LeasedTable` from @assay/db holds it as it holds the others.
const RENAMES = [
  ['list_owner', 'lease_owner'],
  ['list_expires_at', 'lease_expires_at'],
  ['list_attempts', 'attempts'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [from, to] of RENAMES) await db.schema.alterTable('suite_versions').renameColumn(from, to).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [from, to] of RENAMES) await db.schema.alterTable('suite_versions').renameColumn(to, from).execute();
}
