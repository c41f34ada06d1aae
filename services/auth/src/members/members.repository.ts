import { sql, type Kysely } from 'kysely';
import type { Role } from '@assay/principal';
import type { AuthDatabase } from '../db/database.js';

type Db = Kysely<AuthDatabase>;

export async function countMembers(db: Db, orgId: string): Promise<number> {
  const row = await db.selectFrom('memberships').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A member with the user's details, or undefined. */
export async function findMember(db: Db, orgId: string, userId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id as user_id', 'users.email', 'users.name', 'memberships.role', 'memberships.created_at'])
    .where('memberships.org_id', '=', orgId)
    .where('memberships.user_id', '=', userId)
    .executeTakeFirst();
}

export async function deleteMembership(db: Db, orgId: string, userId: string): Promise<void> {
  await db.deleteFrom('memberships').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
}

export async function insertMembershipWithRole(db: Db, orgId: string, userId: string, role: Role) {
  return db.insertInto('memberships').values({ org_id: orgId, user_id: userId, role }).returning(['created_at']).executeTakeFirstOrThrow();
}

export async function insertInvitation(db: Db, invitation: { org_id: string; user_id: string; token_hash: Buffer; expires_at: Date }): Promise<void> {
  await db.insertInto('invitations').values(invitation).execute();
}

/** A pending (not accepted, not expired) invitation by token hash, locked for the caller's transaction. */
export async function lockPendingInvitation(db: Db, tokenHash: Buffer) {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .forUpdate()
    .executeTakeFirst();
}

export async function markInvitationAccepted(db: Db, id: string): Promise<void> {
  await db.updateTable('invitations').set({ accepted_at: sql`now()` }).where('id', '=', id).execute();
}

export async function deletePendingInvitations(db: Db, orgId: string, userId: string): Promise<void> {
  await db.deleteFrom('invitations').where('org_id', '=', orgId).where('user_id', '=', userId).where('accepted_at', 'is', null).execute();
}

