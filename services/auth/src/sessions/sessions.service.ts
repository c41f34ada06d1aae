import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Kysely } from 'kysely';
import { enqueueEvents } from '@assay/bus';
import { withTransaction } from '@assay/db';
import { AppError, forbidden, invalidApiKey, isUuid, validationError } from '@assay/http';
import type { AuthDatabase } from '../db/database.js';
import { hashSecret } from '../secrets/keys.format.js';
import { findFirstMembership, findMembership, findUserByEmail, findUserById, listMembershipsOfUser, setUserPassword } from '../organizations/organizations.repository.js';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../secrets/passwords.js';
import { findLiveSession, insertRefreshToken, insertSession, lockRefreshToken, markRefreshTokenUsed, moveSession, revokeSessions, touchSession } from './sessions.repository.js';
import type { SessionConfig } from '../context.js';

const ISSUER = 'assay-auth';
const AUDIENCE = 'assay-session';

export type { SessionConfig } from '../context.js';

export interface SessionClaims {
  user_id: string;
  org_id: string;
  /** The sign-in this access token belongs to: revoking it ends the token. */
  session_id: string;
}

/** A session's new access token and the refresh token for the browser's cookie (never in a body). */
export interface IssuedSession {
  token: string;
  expires_at: string;
  session_id: string;
  refresh: { token: string; max_age_seconds: number };
}

/** A refresh token used a second time within this window is a race between tabs, not a theft. */
const REUSE_GRACE_MS = 10_000;

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
): Promise<IssuedSession> {
  const user = await findUserByEmail(db, input.email);
  const ok = await verifyPassword(input.password, user?.password_hash ?? DUMMY_PASSWORD_HASH);
  if (!user || !ok) throw new AppError('invalid_api_key', BAD_LOGIN);
  const orgId = input.organization_id ?? (await findFirstMembership(db, user.id))?.org_id;
  const membership = orgId && isUuid(orgId) ? await findMembership(db, orgId, user.id) : undefined;
  if (!membership) throw new AppError('invalid_api_key', 'This user is not a member of that organization');
  if (membership.status === 'suspended') throw forbidden('Organization is suspended');
  if (membership.status === 'deleted') throw new AppError('invalid_api_key', BAD_LOGIN);
  return startSession(db, cfg, user.id, membership.org_id);
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
 * Moves the caller's sign-in to another of their organizations (the
 * console's organization switch): the same session, so its refresh cookie
 * now signs in there. An organization the user is not a member of answers
 * exactly like one that does not exist.
 * @throws AppError 403 for a key (it belongs to one organization) or a suspended organization, 404 for a foreign or unknown one.
 */
export async function switchOrganization(
  db: Kysely<AuthDatabase>,
  cfg: SessionConfig,
  principal: { kind: string; sub: string; session_id?: string },
  organizationId: string,
): Promise<{ token: string; expires_at: string; organization_id: string }> {
  if (principal.kind !== 'session') throw forbidden('Only a signed-in user can switch organization: a key belongs to one organization');
  const membership = isUuid(organizationId) ? await findMembership(db, organizationId, principal.sub) : undefined;
  if (!membership || membership.status === 'deleted') throw new AppError('not_found', 'Organization not found');
  if (membership.status === 'suspended') throw forbidden('Organization is suspended');
  const session = principal.session_id ? await findLiveSession(db, principal.session_id) : undefined;
  if (!session || session.user_id !== principal.sub) throw invalidApiKey('The session ended: sign in again');
  await moveSession(db, session.id, membership.org_id);
  return { ...(await signAccessToken(cfg, principal.sub, membership.org_id, session.id)), organization_id: membership.org_id };
}

/**
 * Starts a sign-in: a session row, its first refresh token (for the cookie)
 * and an access token (login, accepted invitations, password changes).
 */
export async function startSession(db: Kysely<AuthDatabase>, cfg: SessionConfig, userId: string, orgId: string): Promise<IssuedSession> {
  const session = await insertSession(db, { user_id: userId, org_id: orgId, expires_at: new Date(Date.now() + cfg.ttlSeconds * 1000) });
  const refresh = newRefreshToken();
  await insertRefreshToken(db, session.id, hashSecret(refresh));
  return { ...(await signAccessToken(cfg, userId, orgId, session.id)), session_id: session.id, refresh: { token: refresh, max_age_seconds: cfg.ttlSeconds } };
}

const newRefreshToken = () => `rt_${randomBytes(32).toString('base64url')}`;
const SIGNED_OUT = () => invalidApiKey('The session ended or was signed out: sign in again');

/**
 * Exchanges a refresh token for a new access token and its successor
 * (rotation). A token used again past a short grace (two tabs refreshing at
 * once) means it was copied: the whole session is revoked.
 * @throws AppError 401 for an unknown, used, revoked or expired token, or a user no longer a member.
 */
export async function refreshSession(db: Kysely<AuthDatabase>, schema: string, cfg: SessionConfig, refreshToken: string | undefined): Promise<IssuedSession & { user_id: string; organization_id: string; email: string }> {
  if (!refreshToken || !/^rt_[A-Za-z0-9_-]{43}$/.test(refreshToken)) throw SIGNED_OUT();
  const hash = hashSecret(refreshToken);
  const outcome = await withTransaction(db, async (trx) => {
    const found = await lockRefreshToken(trx, hash);
    if (!found) return { ok: false as const };
    const { token, session } = found;
    if (session.revoked_at || session.expires_at.getTime() <= Date.now()) return { ok: false as const };
    if (token.used_at && Date.now() - token.used_at.getTime() > REUSE_GRACE_MS) {
      await revokeAndAnnounce(trx, schema, { id: session.id }, 'refresh_token_reused');
      return { ok: false as const };
    }
    const membership = await findMembership(trx, session.org_id, session.user_id);
    if (!membership || membership.status !== 'active') return { ok: false as const };
    await markRefreshTokenUsed(trx, hash);
    await touchSession(trx, session.id);
    const next = newRefreshToken();
    await insertRefreshToken(trx, session.id, hashSecret(next));
    const user = (await findUserById(trx, session.user_id))!;
    return { ok: true as const, session, next, email: user.email, remaining: Math.max(1, Math.floor((session.expires_at.getTime() - Date.now()) / 1000)) };
  });
  if (!outcome.ok) throw SIGNED_OUT();
  const { session, next, email, remaining } = outcome;
  return {
    ...(await signAccessToken(cfg, session.user_id, session.org_id, session.id)),
    session_id: session.id,
    user_id: session.user_id,
    organization_id: session.org_id,
    email,
    refresh: { token: next, max_age_seconds: remaining },
  };
}

/** Revokes sessions and tells the gateways, which drop their cached answers at once. */
async function revokeAndAnnounce(db: Kysely<AuthDatabase>, schema: string, where: { id: string } | { user_id: string }, reason: string): Promise<number> {
  const revoked = await revokeSessions(db, where, reason);
  const orgs = [...new Set(revoked.map((r) => r.org_id))];
  if (orgs.length) await enqueueEvents(db, schema, orgs.map((org) => ({ event: 'auth.organization.access_changed', organization_id: org, data: { reason: 'session_revoked' } })));
  return revoked.length;
}

/**
 * Signs out: this session, or (`everywhere`) every session of the user, in
 * every browser and organization. Access tokens of those sessions stop working at once.
 * @throws AppError 403 for a key (keys are revoked, not signed out).
 */
export async function signOut(db: Kysely<AuthDatabase>, schema: string, principal: { kind: string; sub: string; session_id?: string }, everywhere: boolean): Promise<{ sessions_ended: number }> {
  if (principal.kind !== 'session') throw forbidden('Only a signed-in user can sign out: revoke a key instead');
  const where = everywhere || !principal.session_id ? { user_id: principal.sub } : { id: principal.session_id };
  return { sessions_ended: await withTransaction(db, (trx) => revokeAndAnnounce(trx, schema, where, 'signed_out')) };
}

/**
 * Changes the signed-in user's password: every session of the user ends
 * (every browser, every organization) and the caller gets a new one.
 * @throws AppError 400 when the current password is wrong, 403 for a key.
 */
export async function changePassword(
  db: Kysely<AuthDatabase>,
  schema: string,
  cfg: SessionConfig,
  principal: { kind: string; sub: string; org_id: string },
  input: { current_password: string; new_password: string },
): Promise<IssuedSession & { sessions_ended: number }> {
  if (principal.kind !== 'session') throw forbidden('Only a signed-in user can change their password');
  const user = await findUserById(db, principal.sub);
  if (!user?.password_hash || !(await verifyPassword(input.current_password, user.password_hash))) {
    throw validationError([{ field: 'current_password', message: 'is not this account’s password' }], 'The current password is not right');
  }
  const hash = await hashPassword(input.new_password);
  const ended = await withTransaction(db, async (trx) => {
    await setUserPassword(trx, user.id, hash);
    return revokeAndAnnounce(trx, schema, { user_id: user.id }, 'password_changed');
  });
  return { ...(await startSession(db, cfg, user.id, principal.org_id)), sessions_ended: ended };
}

/** Mints a short-lived access token of a session. */
export async function signAccessToken(cfg: SessionConfig, userId: string, orgId: string, sessionId: string): Promise<{ token: string; expires_at: string }> {
  const expiresAt = new Date(Date.now() + (cfg.accessTtlSeconds ?? 900) * 1000);
  const token = await new SignJWT({ org_id: orgId, sid: sessionId })
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
    // Tokens without a session id predate revocable sessions: they are refused.
    if (typeof payload.sub !== 'string' || typeof payload.org_id !== 'string' || typeof payload.sid !== 'string' || typeof payload.exp !== 'number') {
      throw invalidApiKey();
    }
    return { user_id: payload.sub, org_id: payload.org_id, session_id: payload.sid, exp: payload.exp };
  } catch {
    throw invalidApiKey();
  }
}
