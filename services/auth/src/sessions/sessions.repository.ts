import { sql, type Kysely } from 'kysely';
import type { AuthDatabase, SessionRow } from '../db/database.js';

type Db = Kysely<AuthDatabase>;

export async function insertSession(db: Db, s: { user_id: string; org_id: string; expires_at: Date }): Promise<SessionRow> {
  return db.insertInto('sessions').values(s).returningAll().executeTakeFirstOrThrow();
}

export async function insertRefreshToken(db: Db, sessionId: string, tokenHash: Buffer): Promise<void> {
  await db.insertInto('refresh_tokens').values({ token_hash: tokenHash, session_id: sessionId }).execute();
}

/** The token and its session, the session row locked (refreshes of one session queue up). */
export async function lockRefreshToken(db: Db, tokenHash: Buffer) {
  const token = await db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  if (!token) return undefined;
  const session = await db.selectFrom('sessions').selectAll().where('id', '=', token.session_id).forUpdate().executeTakeFirst();
  return session ? { token, session } : undefined;
}

export async function markRefreshTokenUsed(db: Db, tokenHash: Buffer): Promise<void> {
  await db.updateTable('refresh_tokens').set({ used_at: sql`now()` }).where('token_hash', '=', tokenHash).where('used_at', 'is', null).execute();
}

export async function touchSession(db: Db, id: string): Promise<void> {
  await db.updateTable('sessions').set({ last_refreshed_at: sql`now()` }).where('id', '=', id).execute();
}

/** A session that is neither revoked nor past its end. */
export async function findLiveSession(db: Db, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('id', '=', id).where('revoked_at', 'is', null).where('expires_at', '>', sql<Date>`now()`).executeTakeFirst();
}

export async function moveSession(db: Db, id: string, orgId: string): Promise<void> {
  await db.updateTable('sessions').set({ org_id: orgId }).where('id', '=', id).execute();
}

/** Revokes sessions (one, or every live one of a user); answers the revoked rows. Their refresh tokens go with them. */
export async function revokeSessions(db: Db, where: { id: string } | { user_id: string }, reason: string): Promise<SessionRow[]> {
  let q = db.updateTable('sessions').set({ revoked_at: sql`now()`, revoked_reason: reason }).where('revoked_at', 'is', null);
  q = 'id' in where ? q.where('id', '=', where.id) : q.where('user_id', '=', where.user_id);
  const rows = await q.returningAll().execute();
  if (rows.length) await db.deleteFrom('refresh_tokens').where('session_id', 'in', rows.map((r) => r.id)).execute();
  return rows;
}
