import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import type { Kysely } from 'kysely';
import { enqueueEvents } from '@assay/bus';
import { planLimits } from '@assay/contracts';
import { withTransaction } from '@assay/db';
import { AppError, conflict, forbidden, isUuid, notFound, validationError } from '@assay/http';
import type { Principal, Role } from '@assay/principal';
import type { AuthDatabase } from '../db/database.js';
import { hashSecret } from '../secrets/keys.format.js';
import { findOrganizationById, findUserByEmail, findUserById, insertUser, lockOrganization, setMemberRole, setUserPassword } from '../organizations/organizations.repository.js';
import { hashPassword, verifyPassword } from '../secrets/passwords.js';
import { startSession, type SessionConfig } from '../sessions/sessions.service.js';
import {
  countMembers,
  deleteMembership,
  deletePendingInvitations,
  findMember,
  insertInvitation,
  insertMembershipWithRole,
  lockPendingInvitation,
  markInvitationAccepted,
} from './members.repository.js';

type Db = Kysely<AuthDatabase>;
type OrgPrincipal = Principal & { org_id: string };

/** How long an invitation token can be accepted. */
export const INVITATION_TTL_DAYS = 7;

/**
 * Owner and admins manage members; unscoped keys act as Admin (spec, API keys 1).
 * Scoped API keys never reach here (the gateway asks them for `organization:write`,
 * which no scope grants); refused again for safety.
 */
export function assertMemberManager(p: Principal): void {
  if (p.role === 'member') throw forbidden('Managing members requires the owner or admin role');
  if (p.kind === 'api_key' && p.scopes.length > 0) throw forbidden('Managing members needs an unscoped key');
}

const toMemberBody = (m: { user_id: string; email: string; name: string; role: Role; created_at: Date }) => ({
  user_id: m.user_id,
  email: m.email,
  name: m.name,
  role: m.role,
  created_at: m.created_at.toISOString(),
});

/**
 * Adds a user to the organization. A new e-mail gets an account without a
 * password and an invitation token (returned once); an existing account
 * joins at once. The team size of the plan is checked under the
 * organization's row lock, so concurrent adds cannot pass it.
 * @throws AppError 403 past the team size, 409 for an existing member.
 */
export async function addMember(db: Db, schema: string, principal: OrgPrincipal, input: { email: string; role: 'admin' | 'member'; name?: string }) {
  assertMemberManager(principal);
  const email = input.email.trim();
  return withTransaction(db, async (trx) => {
    await lockOrganization(trx, principal.org_id);
    const org = await findOrganizationById(trx, principal.org_id);
    if (!org) throw notFound('Organization');
    let user = await findUserByEmail(trx, email);
    if (user && (await findMember(trx, org.id, user.id))) throw conflict('This user is already a member of the organization', { user_id: user.id });
    const limit = planLimits(org.plan).teamSize;
    const members = await countMembers(trx, org.id);
    if (limit !== null && members >= limit) {
      throw new AppError('insufficient_permissions', `Team-size limit exceeded: the ${org.plan} plan allows ${limit} member${limit === 1 ? '' : 's'}`, {
        limit,
        members,
        plan: org.plan,
      });
    }
    user ??= await insertUser(trx, { email, name: input.name?.trim() || email.split('@')[0]!, password_hash: null });
    let invitation: { token: string; expires_at: string } | null = null;
    if (user.password_hash === null) {
      const token = `inv_${bs58.encode(randomBytes(32))}`;
      const expiresAt = new Date(Date.now() + INVITATION_TTL_DAYS * 86_400_000);
      await insertInvitation(trx, { org_id: org.id, user_id: user.id, token_hash: hashSecret(token), expires_at: expiresAt });
      invitation = { token, expires_at: expiresAt.toISOString() };
    }
    const { created_at } = await insertMembershipWithRole(trx, org.id, user.id, input.role);
    await enqueueEvents(trx, schema, [
      {
        event: 'organization.member.added',
        organization_id: org.id,
        data: { user: { id: user.id, email: user.email, name: user.name }, role: input.role, invited: invitation !== null },
      },
    ]);
    return { ...toMemberBody({ user_id: user.id, email: user.email, name: user.name, role: input.role, created_at }), invitation };
  });
}

/**
 * Changes a member's role between admin and member; the owner's role moves
 * only by transfer-ownership. Gateways drop the organization's cached answers.
 * @throws AppError 404 for a user who is not a member, 409 for the owner.
 */
export async function changeMemberRole(db: Db, schema: string, principal: OrgPrincipal, userId: string, role: 'admin' | 'member') {
  assertMemberManager(principal);
  if (!isUuid(userId)) throw notFound('Member');
  return withTransaction(db, async (trx) => {
    await lockOrganization(trx, principal.org_id);
    const member = await findMember(trx, principal.org_id, userId);
    if (!member) throw notFound('Member');
    if (member.role === 'owner') throw conflict('The owner’s role changes only by transferring ownership', { role: 'owner' });
    await setMemberRole(trx, principal.org_id, userId, role);
    await enqueueEvents(trx, schema, [{ event: 'auth.organization.access_changed', organization_id: principal.org_id, data: { reason: 'member_changed' } }]);
    return toMemberBody({ ...member, role });
  });
}

/**
 * Removes a member (the owner cannot be removed) and any invitation of theirs
 * still pending; their sessions stop working in this organization at once.
 * @throws AppError 404 for a user who is not a member, 409 for the owner.
 */
export async function removeMember(db: Db, schema: string, principal: OrgPrincipal, userId: string) {
  assertMemberManager(principal);
  if (!isUuid(userId)) throw notFound('Member');
  return withTransaction(db, async (trx) => {
    await lockOrganization(trx, principal.org_id);
    const member = await findMember(trx, principal.org_id, userId);
    if (!member) throw notFound('Member');
    if (member.role === 'owner') throw conflict('The owner cannot be removed; transfer ownership first', { role: 'owner' });
    await deleteMembership(trx, principal.org_id, userId);
    await deletePendingInvitations(trx, principal.org_id, userId);
    await enqueueEvents(trx, schema, [
      { event: 'organization.member.removed', organization_id: principal.org_id, data: { user_id: userId } },
      { event: 'auth.organization.access_changed', organization_id: principal.org_id, data: { reason: 'member_changed' } },
    ]);
    return { user_id: userId, removed_at: new Date().toISOString() };
  });
}

const BAD_INVITATION = () => validationError([{ field: 'token', message: 'is unknown, already used or expired' }], 'This invitation is unknown, already used or expired');

/**
 * Accepts an invitation: sets the account's password (an account that
 * already has one must give it) and signs the user in to the organization.
 * @throws AppError 400 for an unknown, used or expired token, or the wrong password of an existing account.
 */
export async function acceptInvitation(db: Db, session: SessionConfig, input: { token: string; password: string }) {
  const tokenHash = hashSecret(input.token);
  const newHash = await hashPassword(input.password);
  const accepted = await withTransaction(db, async (trx) => {
    const invitation = await lockPendingInvitation(trx, tokenHash);
    if (!invitation) throw BAD_INVITATION();
    const member = await findMember(trx, invitation.org_id, invitation.user_id);
    if (!member) throw BAD_INVITATION();
    const user = (await findUserById(trx, invitation.user_id))!;
    if (user.password_hash === null) await setUserPassword(trx, user.id, newHash);
    else if (!(await verifyPassword(input.password, user.password_hash))) {
      throw validationError([{ field: 'password', message: 'is not this account’s password' }], 'This account already has a password: give it to accept the invitation');
    }
    await markInvitationAccepted(trx, invitation.id);
    return { user_id: user.id, email: user.email, organization_id: invitation.org_id };
  });
  return { ...accepted, ...(await startSession(db, session, accepted.user_id, accepted.organization_id)) };
}
