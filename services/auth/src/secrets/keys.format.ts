import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import bs58 from 'bs58';
import type { KeyKind } from '../db/database.js';

/**
 * Secret formats (spec, Authentication): service keys are
 * `service_sk_<prod|dev>_<base58>`, API keys `sk_live_<base58>`; the random
 * part is 32 bytes. Only a sha256 of the whole secret is stored: the secret
 * has 256 bits of entropy, so a slow hash would add cost and no safety.
 */
const BASE58 = '[1-9A-HJ-NP-Za-km-z]';
const SERVICE_KEY = new RegExp(`^service_sk_(prod|dev)_${BASE58}{40,50}$`);
const API_KEY = new RegExp(`^sk_live_${BASE58}{40,50}$`);

export function generateServiceKey(environment: 'prod' | 'dev'): string {
  return `service_sk_${environment}_${bs58.encode(randomBytes(32))}`;
}

export function generateApiKey(): string {
  return `sk_live_${bs58.encode(randomBytes(32))}`;
}

export interface ParsedKey {
  kind: KeyKind;
  environment: 'prod' | 'dev' | null;
}

/** The kind of a well-formed key, or null for anything mistyped. */
export function parseKey(secret: string): ParsedKey | null {
  const service = SERVICE_KEY.exec(secret);
  if (service) return { kind: 'service_key', environment: service[1] as 'prod' | 'dev' };
  if (API_KEY.test(secret)) return { kind: 'api_key', environment: null };
  return null;
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Constant-time equality of two stored hashes. */
export function hashesEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
