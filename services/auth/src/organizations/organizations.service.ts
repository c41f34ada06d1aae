import { sql, type Kysely } from 'kysely';
import { withTransaction } from '@assay/db';
import { enqueueEvent } from '@assay/bus';
import { forbidden, isUuid, notFound, validationError } from '@assay/http';
import type { Plan, Principal } from '@assay/principal';
import type { AuthDatabase, OrganizationRow, OrganizationStatus } from '../db/database.js';
import { revokeAllKeysOfOrg } from '../keys/keys.repository.js';
import { hashPassword } from '../secrets/passwords.js';
import {
  findMembership,
  findOrganizationById,
  findUserByEmail,
  insertMembership,
  insertOrganization,
  insertUser,
  lockOrganization,
  setMemberRole,
  setOrganizationStatus,
} from './organizations.repository.js';

type Db = Kysely<AuthDatabase>;

export function toOrganizationBody(org: OrganizationRow) {
  return { id: org.id, name: org.name, plan: org.plan, status: org.status, created_at: org.created_at.toISOString() };
}

export async function getOrganization(db: Db, orgId: string): Promise<OrganizationRow> {
  const org = await findOrganizationById(db, orgId);
  if (!org) throw notFound('Organization');
  return org;
}

/**
 * Owner-only operations need the owner signed in: keys (service or API) act
 * at Admin level and are refused here (spec, API keys 1).
 */
export function assertOwnerSession(principal: Principal): void {
  if (principal.kind !== 'session' || principal.role !== 'owner') {
    throw forbidden('Only the organization owner, signed in with a session, may do this; keys are refused for owner-only operations');
  }
}

export async function transferOwnership(db: Db, principal: Principal & { org_id: string }, newOwnerId: string) {
  assertOwnerSession(principal);
  if (newOwnerId === principal.sub) throw validationError([{ field: 'user_id', message: 'is already the owner' }]);
  return withTransaction(db, async (trx) => {
    await lockOrganization(trx, principal.org_id);
    const target = isUuid(newOwnerId) ? await findMembership(trx, principal.org_id, newOwnerId) : undefined;
    if (!target) throw notFound('Member');
    // The one-owner index forbids two owners even for a moment: demote first.
    await setMemberRole(trx, principal.org_id, principal.sub, 'admin');
    await setMemberRole(trx, principal.org_id, newOwnerId, 'owner');
    return getOrganization(trx, principal.org_id);
  });
}

/** Marks the organization deleted and revokes every key; gateways evict its credentials. */
export async function deleteOrganization(db: Db, schema: string, principal: Principal & { org_id: string }) {
  assertOwnerSession(principal);
  return changeOrganizationStatus(db, schema, principal.org_id, 'deleted');
}

export async function changeOrganizationStatus(db: Db, schema: string, orgId: string, status: OrganizationStatus) {
  return withTransaction(db, async (trx) => {
    const org = await setOrganizationStatus(trx, orgId, status);
    if (!org) throw notFound('Organization');
    if (status === 'deleted') {
      for (const key of await revokeAllKeysOfOrg(trx, orgId)) {
        await enqueueEvent(trx, schema, { event: 'auth.key.revoked', organization_id: orgId, key: key.id, data: { key_id: key.id, kind: key.kind } });
      }
    }
    await enqueueEvent(trx, schema, { event: 'auth.organization.status_changed', organization_id: orgId, key: orgId, data: { status } });
    return org;
  });
}

export interface NewOrganizationInput {
  name: string;
  plan: Plan;
  owner: { email: string; name: string; password: string };
}

/**
 * Creates an organization with its owner (provisioning and first start).
 * An existing user with that e-mail becomes the owner without a password change.
 */
export async function createOrganizationWithOwner(db: Db, schema: string, input: NewOrganizationInput) {
  const passwordHash = await hashPassword(input.owner.password);
  return withTransaction(db, async (trx) => {
    const org = await insertOrganization(trx, input.name, input.plan);
    const user =
      (await findUserByEmail(trx, input.owner.email)) ??
      (await insertUser(trx, { email: input.owner.email, name: input.owner.name, password_hash: passwordHash }));
    await insertMembership(trx, org.id, user.id, 'owner');
    await enqueueEvent(trx, schema, {
      event: 'organization.member.added',
      organization_id: org.id,
      key: org.id,
      data: { user: { id: user.id, email: user.email, name: user.name }, role: 'owner' },
    });
    return { org, user };
  });
}

/** Serialises first-start bootstrap across concurrent launchers. */
export async function withBootstrapLock<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return withTransaction(db, async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('assay.auth.bootstrap'))`.execute(trx);
    return fn(trx);
  });
}
