import { SignJWT, jwtVerify, errors } from 'jose';

/**
 * The caller identity the gateway forwards to services in `x-assay-principal`:
 * a short-lived HS256 JWT signed with INTERNAL_TOKEN_SECRET (DESIGN.md).
 */
export const PRINCIPAL_HEADER = 'x-assay-principal';

export const PRINCIPAL_KINDS = ['service_key', 'api_key', 'session', 'service'] as const;
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];
export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];
/** The plans of the plan catalog (`@assay/contracts` PLAN_CATALOG); `free` has no API access. */
export const PLANS = ['free', 'starter', 'growth', 'pro'] as const;
export type Plan = (typeof PLANS)[number];

export interface Principal {
  /** The organization every query is scoped by; null only for `service` principals. */
  org_id: string | null;
  /** User id, key id, or the calling service's name. */
  sub: string;
  kind: PrincipalKind;
  role: Role;
  /** Empty means full access within the role. */
  scopes: string[];
  plan: Plan;
  /** `prod` or `dev` for service keys. */
  environment?: 'prod' | 'dev';
  /** The console sign-in a `session` principal comes from (sign-out and organization switch act on it). */
  session_id?: string;
}

const ISSUER = 'assay';
const AUDIENCE = 'assay-services';
const DEFAULT_TTL_SECONDS = 60;

function keyOf(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/** Signs a principal token; services accept it for `ttlSeconds`. */
export async function signPrincipal(secret: string, principal: Principal, ttlSeconds = DEFAULT_TTL_SECONDS): Promise<string> {
  const { sub, ...claims } = principal;
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(keyOf(secret));
}

/** A principal for service-to-service calls to `/internal/...` routes. */
export function servicePrincipal(service: string): Principal {
  return { org_id: null, sub: service, kind: 'service', role: 'admin', scopes: [], plan: 'pro' };
}

/** Thrown by `verifyPrincipal` for a missing, forged, expired or malformed token. */
export class InvalidPrincipalError extends Error {
  constructor(reason: string) {
    super(`Invalid principal token: ${reason}`);
    this.name = 'InvalidPrincipalError';
  }
}

/**
 * Verifies a principal token and returns its claims.
 * @throws InvalidPrincipalError when the signature, issuer, audience, expiry or claims are wrong.
 */
export async function verifyPrincipal(secret: string, token: string | undefined): Promise<Principal> {
  if (!token) throw new InvalidPrincipalError('missing');
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, keyOf(secret), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['HS256'],
      // jose checks exp only when present: a token without one would never expire.
      requiredClaims: ['exp', 'iat'],
    }));
  } catch (err) {
    const reason = err instanceof errors.JWTExpired ? 'expired' : 'signature or claims rejected';
    throw new InvalidPrincipalError(reason);
  }
  const { org_id, sub, kind, role, scopes, plan, environment, session_id } = payload;
  const valid =
    (typeof org_id === 'string' || (org_id === null && kind === 'service')) &&
    typeof sub === 'string' &&
    (PRINCIPAL_KINDS as readonly unknown[]).includes(kind) &&
    (ROLES as readonly unknown[]).includes(role) &&
    (PLANS as readonly unknown[]).includes(plan) &&
    Array.isArray(scopes) &&
    scopes.every((s) => typeof s === 'string');
  if (!valid) throw new InvalidPrincipalError('claims are incomplete');
  return {
    org_id: org_id as string | null,
    sub: sub as string,
    kind: kind as PrincipalKind,
    role: role as Role,
    scopes: scopes as string[],
    plan: plan as Plan,
    ...(environment === 'prod' || environment === 'dev' ? { environment } : {}),
    ...(kind === 'session' && typeof session_id === 'string' ? { session_id } : {}),
  };
}

/** True when the principal may use `scope`: an empty scope list is full access. */
export function hasScope(principal: Principal, scope: string): boolean {
  return principal.scopes.length === 0 || principal.scopes.includes(scope);
}
