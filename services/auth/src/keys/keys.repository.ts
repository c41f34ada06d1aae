import { sql, type Kysely } from 'kysely';
import type { AuthDatabase, KeyKind, KeyRow, NewKeyRow } from '../db/database.js';

type Db = Kysely<AuthDatabase>;

const activeNow = sql<boolean>`revoked_at is null and (expires_at is null or expires_at > now())`;

export async function countActiveKeys(db: Db, orgId: string, kind: KeyKind): Promise<number> {
  const row = await db
    .selectFrom('keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', orgId)
    .where('kind', '=', kind)
    .where(activeNow)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertKey(db: Db, key: NewKeyRow): Promise<KeyRow> {
  return db.insertInto('keys').values(key).returningAll().executeTakeFirstOrThrow();
}

export async function listActiveKeys(db: Db, orgId: string, kind: KeyKind): Promise<KeyRow[]> {
  return db
    .selectFrom('keys')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('kind', '=', kind)
    .where(activeNow)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Marks an active key revoked; undefined when the org has no such active key. */
export async function revokeKey(db: Db, orgId: string, kind: KeyKind, id: string): Promise<KeyRow | undefined> {
  return db
    .updateTable('keys')
    .set({ revoked_at: sql`now()` })
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .where('kind', '=', kind)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function findKeyByHash(db: Db, hash: Buffer): Promise<KeyRow | undefined> {
  return db.selectFrom('keys').selectAll().where('secret_hash', '=', hash).executeTakeFirst();
}

export interface UsageIncrement {
  key_id: string;
  count: number;
  last_used: string;
}

/** Adds counts atomically, so concurrent reports from several gateways all count. */
export async function addKeyUsage(db: Db, usage: UsageIncrement[]): Promise<void> {
  if (usage.length === 0) return;
  await sql`
    update keys k
       set usage_count = k.usage_count + u.count,
           last_used = greatest(k.last_used, u.last_used)
      from (select unnest(${usage.map((u) => u.key_id)}::uuid[]) as key_id,
                   unnest(${usage.map((u) => u.count)}::bigint[]) as count,
                   unnest(${usage.map((u) => u.last_used)}::timestamptz[]) as last_used) u
     where k.id = u.key_id`.execute(db);
}
