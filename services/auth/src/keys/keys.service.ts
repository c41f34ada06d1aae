import type { Kysely } from 'kysely';
import { withTransaction } from '@assay/db';
import { enqueueEvent } from '@assay/bus';
import { conflict, isUuid, notFound } from '@assay/http';
import type { Principal } from '@assay/principal';
import type { AuthDatabase, KeyKind, KeyRow } from '../db/database.js';
import { lockOrganization } from '../organizations/organizations.repository.js';
import { generateApiKey, generateServiceKey, hashSecret } from '../secrets/keys.format.js';
import { countActiveKeys, insertKey, listActiveKeys, revokeKey } from './keys.repository.js';

/** Active keys per organization (spec, Limits: 10 service keys; API keys: our choice, documented). */
export const MAX_ACTIVE_KEYS: Record<KeyKind, number> = { service_key: 10, api_key: 25 };


export interface CreateKeyInput {
  name: string;
  environment?: 'prod' | 'dev';
  scopes?: string[];
  expires_in_days?: number;
}

const LABEL: Record<KeyKind, string> = { service_key: 'service key', api_key: 'API key' };

/**
 * Creates a key and returns its row and secret. The organization row is
 * locked for the check and insert, so concurrent creates cannot pass the limit.
 * @throws AppError 409 when the organization already has its maximum of active keys.
 */
export async function createKey(
  db: Kysely<AuthDatabase>,
  principal: Principal & { org_id: string },
  kind: KeyKind,
  input: CreateKeyInput,
): Promise<{ row: KeyRow; secret: string }> {
  return withTransaction(db, async (trx) => {
    await lockOrganization(trx, principal.org_id);
    const active = await countActiveKeys(trx, principal.org_id, kind);
    const max = MAX_ACTIVE_KEYS[kind];
    if (active >= max) {
      throw conflict(`This organization already has ${max} active ${LABEL[kind]}s, the maximum; revoke one before creating another`, {
        active,
        limit: max,
      });
    }
    const secret = kind === 'service_key' ? generateServiceKey(input.environment ?? 'prod') : generateApiKey();
    const expiresAt = input.expires_in_days ? new Date(Date.now() + input.expires_in_days * 86_400_000) : null;
    const row = await insertKey(trx, {
      org_id: principal.org_id,
      kind,
      name: input.name.trim(),
      environment: kind === 'service_key' ? (input.environment ?? 'prod') : null,
      scopes: kind === 'api_key' ? (input.scopes ?? []) : [],
      secret_hash: hashSecret(secret),
      created_by: `${principal.kind}:${principal.sub}`,
      expires_at: expiresAt,
      revoked_at: null,
      last_used: null,
    });
    return { row, secret };
  });
}

export function listKeys(db: Kysely<AuthDatabase>, orgId: string, kind: KeyKind): Promise<KeyRow[]> {
  return listActiveKeys(db, orgId, kind);
}

/**
 * Revokes a key and publishes `auth.key.revoked` so every gateway evicts it.
 * @throws AppError 404 for an unknown, foreign or already revoked key.
 */
export async function revokeKeyById(db: Kysely<AuthDatabase>, schema: string, orgId: string, kind: KeyKind, id: string): Promise<KeyRow> {
  if (!isUuid(id)) throw notFound(LABEL[kind]);
  return withTransaction(db, async (trx) => {
    const row = await revokeKey(trx, orgId, kind, id);
    if (!row) throw notFound(LABEL[kind]);
    await enqueueEvent(trx, schema, { event: 'auth.key.revoked', organization_id: orgId, key: id, data: { key_id: id, kind } });
    return row;
  });
}
