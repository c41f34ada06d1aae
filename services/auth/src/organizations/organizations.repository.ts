import { sql, type Kysely } from 'kysely';
import type { Role } from '@assay/principal';
import type { AuthDatabase, OrganizationRow, OrganizationStatus, UserRow } from '../db/database.js';

type Db = Kysely<AuthDatabase>;

export async function findOrganizationById(db: Db, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Row lock that serialises key creation (and other per-org limits) within one organization. */
export async function lockOrganization(db: Db, id: string): Promise<void> {
  await db.selectFrom('organizations').select('id').where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function insertOrganization(db: Db, name: string, plan: OrganizationRow['plan']): Promise<OrganizationRow> {
  return db.insertInto('organizations').values({ name, plan }).returningAll().executeTakeFirstOrThrow();
}

export async function setOrganizationStatus(db: Db, id: string, status: OrganizationStatus): Promise<OrganizationRow | undefined> {
  return db
    .updateTable('organizations')
    .set({ status, updated_at: sql`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function countOrganizations(db: Db): Promise<number> {
  const row = await db.selectFrom('organizations').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function setUserPassword(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

export async function insertUser(db: Db, user: { email: string; name: string; password_hash: string | null }): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

export async function insertMembership(db: Db, orgId: string, userId: string, role: Role): Promise<void> {
  await db.insertInto('memberships').values({ org_id: orgId, user_id: userId, role }).execute();
}

/** The owner and the admins of an organization, owner first. */
export async function listAdministrators(db: Db, orgId: string): Promise<Array<{ user_id: string; email: string; name: string; role: Role }>> {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id as user_id', 'users.email', 'users.name', 'memberships.role'])
    .where('memberships.org_id', '=', orgId)
    .where('memberships.role', 'in', ['owner', 'admin'])
    .orderBy(sql`memberships.role = 'owner'`, 'desc')
    .orderBy('memberships.created_at')
    .orderBy('users.email')
    .execute();
}

export async function findMembership(db: Db, orgId: string, userId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('organizations', 'organizations.id', 'memberships.org_id')
    .select(['memberships.role', 'organizations.id as org_id', 'organizations.plan', 'organizations.status'])
    .where('memberships.org_id', '=', orgId)
    .where('memberships.user_id', '=', userId)
    .executeTakeFirst();
}

/** Every organization the user is a member of (not deleted), oldest membership first. */
export async function listMembershipsOfUser(db: Db, userId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('organizations', 'organizations.id', 'memberships.org_id')
    .select(['organizations.id', 'organizations.name', 'organizations.plan', 'organizations.status', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .where('organizations.status', '!=', 'deleted')
    .orderBy('memberships.created_at')
    .orderBy('organizations.id')
    .execute();
}

/** The user's oldest membership: the organization a login acts in by default. */
export async function findFirstMembership(db: Db, userId: string) {
  return db
    .selectFrom('memberships')
    .select(['org_id'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('org_id')
    .executeTakeFirst();
}

export async function listMembers(db: Db, orgId: string, limit: number, offset: number) {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select(['users.id as user_id', 'users.email', 'users.name', 'memberships.role', 'memberships.created_at'])
      // Invited and not yet accepted: the account has no password yet.
      .select(sql<boolean>`users.password_hash is null`.as('pending'))
      .where('memberships.org_id', '=', orgId)
      .orderBy('memberships.created_at')
      .orderBy('users.id')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('memberships')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', orgId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

export async function setMemberRole(db: Db, orgId: string, userId: string, role: Role): Promise<number> {
  const res = await db
    .updateTable('memberships')
    .set({ role })
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

export async function findOrganizationByStripeCustomer(db: Db, customerId: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('stripe_customer_id', '=', customerId).executeTakeFirst();
}

export async function updateOrganizationBilling(db: Db, id: string, set: { plan?: OrganizationRow['plan']; stripe_customer_id?: string | null }): Promise<OrganizationRow | undefined> {
  return db
    .updateTable('organizations')
    .set({ ...set, updated_at: sql`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
