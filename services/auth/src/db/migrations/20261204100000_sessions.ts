import { sql, type Kysely } from 'kysely';

/**
 * Console sign-ins that survive a reload (issue 31): one `sessions` row per
 * sign-in, its refresh tokens (only their sha256 is stored) rotated on every
 * use. Access tokens carry the session's id, so revoking the row ends them too.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_refreshed_at', 'timestamptz')
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('revoked_reason', 'text')
    .execute();
  await sql`create index sessions_by_user on sessions (user_id) where revoked_at is null`.execute(db);

  await db.schema
    .createTable('refresh_tokens')
    .addColumn('token_hash', 'bytea', (c) => c.primaryKey())
    .addColumn('session_id', 'uuid', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('used_at', 'timestamptz')
    .execute();
  await sql`create index refresh_tokens_by_session on refresh_tokens (session_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('refresh_tokens').execute();
  await db.schema.dropTable('sessions').execute();
}
