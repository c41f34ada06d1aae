import type { Kysely } from 'kysely';
import { forbidden, invalidApiKey } from '@assay/http';
import type { Principal } from '@assay/principal';
import type { AuthDatabase } from '../db/database.js';
import { hashesEqual, hashSecret, parseKey } from '../secrets/keys.format.js';
import { findKeyByHash } from '../keys/keys.repository.js';
import { findMembership, findOrganizationById } from '../organizations/organizations.repository.js';
import { findLiveSession } from '../sessions/sessions.repository.js';
import { verifySessionToken, type SessionConfig } from '../sessions/sessions.service.js';
import { exceededQuotas, type ExceededQuota } from '../usage/usage.service.js';

export interface Authentication {
  principal: Principal;
  /** The key's id, for usage counting and cache eviction; absent for sessions. */
  key_id?: string;
  /** When the credential stops being valid; gateways cache no longer than this. */
  valid_until: string | null;
  /** Monthly quotas the organization used up: the gateway refuses new work of their kind. */
  quotas_exceeded?: ExceededQuota[];
}

async function withQuotas(db: Kysely<AuthDatabase>, answer: Authentication): Promise<Authentication> {
  const { org_id, plan } = answer.principal;
  const exceeded = org_id ? await exceededQuotas(db, org_id, plan) : [];
  return exceeded.length ? { ...answer, quotas_exceeded: exceeded } : answer;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Resolves a credential to a principal.
 * @throws AppError 401 `invalid_api_key` for unknown, revoked, expired or mistyped
 * credentials; 403 `insufficient_permissions` when the organization is suspended.
 */
export async function authenticate(db: Kysely<AuthDatabase>, session: SessionConfig, credential: string): Promise<Authentication> {
  const parsed = parseKey(credential);
  if (parsed) {
    const hash = hashSecret(credential);
    const key = await findKeyByHash(db, hash);
    if (!key || !hashesEqual(key.secret_hash, hash) || key.kind !== parsed.kind) throw invalidApiKey();
    if (key.revoked_at || (key.expires_at && key.expires_at.getTime() <= Date.now())) throw invalidApiKey();
    const org = await findOrganizationById(db, key.org_id);
    if (!org || org.status === 'deleted') throw invalidApiKey();
    if (org.status === 'suspended') throw forbidden('Organization is suspended');
    return withQuotas(db, {
      principal: {
        org_id: org.id,
        sub: key.id,
        kind: key.kind,
        role: 'admin',
        scopes: key.scopes,
        plan: org.plan,
        ...(key.environment ? { environment: key.environment } : {}),
      },
      key_id: key.id,
      valid_until: key.expires_at?.toISOString() ?? null,
    });
  }
  if (credential.startsWith('sk_live_') || credential.startsWith('service_sk_') || !JWT_SHAPE.test(credential)) {
    throw invalidApiKey();
  }
  const claims = await verifySessionToken(session, credential);
  // Signed out, password changed or moved to another organization: the session's tokens end with it.
  const live = await findLiveSession(db, claims.session_id);
  if (!live || live.user_id !== claims.user_id || live.org_id !== claims.org_id) throw invalidApiKey();
  const membership = await findMembership(db, claims.org_id, claims.user_id);
  if (!membership || membership.status === 'deleted') throw invalidApiKey();
  if (membership.status === 'suspended') throw forbidden('Organization is suspended');
  return withQuotas(db, {
    principal: { org_id: membership.org_id, sub: claims.user_id, kind: 'session', role: membership.role, scopes: [], plan: membership.plan, session_id: claims.session_id },
    valid_until: new Date(claims.exp * 1000).toISOString(),
  });
}

