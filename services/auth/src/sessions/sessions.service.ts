import { SignJWT, jwtVerify } from 'jose';
import type { Kysely } from 'kysely';
import { AppError, forbidden, invalidApiKey, isUuid } from '@assay/http';
import type { AuthDatabase } from '../db/database.js';
import { findFirstMembership, findMembership, findUserByEmail, listMembershipsOfUser } from '../organizations/organizations.repository.js';
import { DUMMY_PASSWORD_HASH, verifyPassword } from './passwords.js';

const ISSUER = 'assay-auth';
const AUDIENCE = 'assay-session';

export interface SessionConfig {
  secret: string;
  ttlSeconds: number;
}

export interface SessionClaims {
  user_id: string;
  org_id: string;
}

const BAD_LOGIN = 'E-mail or password is incorrect';

/**
 * Checks e-mail and password and mints an HS256 session token. An unknown
 * e-mail costs the same scrypt work as a wrong password.
 * @throws AppError 401 for wrong credentials, 403 for a suspended organization.
 */
export async function login(
  db: Kysely<AuthDatabase>,
  cfg: SessionConfig,
  input: { email: string; password: string; organization_id?: string },
): Promise<{ token: string; expires_at: string }> {
  const user = await findUserByEmail(db, input.email);
  const ok = await verifyPassword(input.password, user?.password_hash ?? DUMMY_PASSWORD_HASH);
  if (!user || !ok) throw new AppError(401, 'invalid_api_key', BAD_LOGIN);
  const orgId = input.organization_id ?? (await findFirstMembership(db, user.id))?.org_id;
  const membership = orgId && isUuid(orgId) ? await findMembership(db, orgId, user.id) : undefined;
  if (!membership) throw new AppError(401, 'invalid_api_key', 'This user is not a member of that organization');
  if (membership.status === 'suspended') throw forbidden('Organization is suspended');
  if (membership.status === 'deleted') throw new AppError(401, 'invalid_api_key', BAD_LOGIN);
  return signSession(cfg, user.id, membership.org_id);
}

/** The organizations a signed-in user can act in (a key: its own organization only). */
export async function listSessionOrganizations(db: Kysely<AuthDatabase>, principal: { kind: string; sub: string; org_id: string }) {
  const rows = principal.kind === 'session' ? await listMembershipsOfUser(db, principal.sub) : [];
  return {
    current: principal.org_id,
    data: rows.map((r) => ({ id: r.id, name: r.name, plan: r.plan, status: r.status, role: r.role })),
  };
}

/**
 * A new session of the same user in another of their organizations (the
 * console's organization switch). An organization the user is not a member
 * of answers exactly like one that does not exist.
 * @throws AppError 403 for a key (it belongs to one organization) or a suspended organization, 404 for a foreign or unknown one.
 */
export async function switchOrganization(
  db: Kysely<AuthDatabase>,
  cfg: SessionConfig,
  principal: { kind: string; sub: string },
  organizationId: string,
): Promise<{ token: string; expires_at: string; organization_id: string }> {
  if (principal.kind !== 'session') throw forbidden('Only a signed-in user can switch organization: a key belongs to one organization');
  const membership = isUuid(organizationId) ? await findMembership(db, organizationId, principal.sub) : undefined;
  if (!membership || membership.status === 'deleted') throw new AppError(404, 'not_found', 'Organization not found');
  if (membership.status === 'suspended') throw forbidden('Organization is suspended');
  return { ...(await signSession(cfg, principal.sub, membership.org_id)), organization_id: membership.org_id };
}

/** Mints a session token for a member of an organization (login, accepted invitations). */
export async function signSession(cfg: SessionConfig, userId: string, orgId: string): Promise<{ token: string; expires_at: string }> {
  const expiresAt = new Date(Date.now() + cfg.ttlSeconds * 1000);
  const token = await new SignJWT({ org_id: orgId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(new TextEncoder().encode(cfg.secret));
  return { token, expires_at: expiresAt.toISOString() };
}

/**
 * The claims of a valid session token.
 * @throws AppError 401 for a forged, expired or malformed token.
 */
export async function verifySessionToken(cfg: SessionConfig, token: string): Promise<SessionClaims & { exp: number }> {
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(cfg.secret), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['HS256'],
    });
    if (typeof payload.sub !== 'string' || typeof payload.org_id !== 'string' || typeof payload.exp !== 'number') {
      throw invalidApiKey();
    }
    return { user_id: payload.sub, org_id: payload.org_id, exp: payload.exp };
  } catch {
    throw invalidApiKey();
  }
}
