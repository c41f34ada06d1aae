import { SignJWT, UnsecuredJWT } from 'jose';
import {
  InvalidPrincipalError,
  PRINCIPAL_HEADER,
  hasScope,
  servicePrincipal,
  signPrincipal,
  verifyPrincipal,
  type Principal,
} from './index.js';

const SECRET = 'principal-test-secret-0123456789abcdef';
const OTHER_SECRET = 'another-secret-entirely-0123456789abcdef';

const apiKey: Principal = {
  org_id: 'org_1',
  sub: 'key_1',
  kind: 'api_key',
  role: 'admin',
  scopes: ['test_cases:read', 'executions:write'],
  plan: 'growth',
};

const serviceKey: Principal = {
  org_id: 'org_2',
  sub: 'skey_1',
  kind: 'service_key',
  role: 'admin',
  scopes: [],
  plan: 'pro',
  environment: 'dev',
};

/** A token signed like signPrincipal's, with arbitrary claims, for the cases signPrincipal cannot produce. */
function craft(claims: Record<string, unknown>, opts: { secret?: string; issuer?: string; audience?: string; exp?: number | string } = {}) {
  const { sub, ...rest } = claims;
  const jwt = new SignJWT(rest)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(opts.issuer ?? 'assay')
    .setAudience(opts.audience ?? 'assay-services')
    .setIssuedAt()
    .setExpirationTime(opts.exp ?? '60s');
  if (typeof sub === 'string') jwt.setSubject(sub);
  return jwt.sign(new TextEncoder().encode(opts.secret ?? SECRET));
}

async function refusal(token: string | undefined, secret = SECRET): Promise<InvalidPrincipalError> {
  const err: unknown = await verifyPrincipal(secret, token).then(
    (p) => new Error(`expected a refusal, got ${JSON.stringify(p)}`),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvalidPrincipalError);
  return err as InvalidPrincipalError;
}

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('signPrincipal and verifyPrincipal', () => {
  it('names the header the gateway forwards', () => {
    expect(PRINCIPAL_HEADER).toBe('x-assay-principal');
  });

  it('round-trips an API key principal unchanged', async () => {
    const token = await signPrincipal(SECRET, apiKey);
    expect(token.split('.')).toHaveLength(3);
    await expect(verifyPrincipal(SECRET, token)).resolves.toEqual(apiKey);
  });

  it('round-trips the environment of a service key', async () => {
    const token = await signPrincipal(SECRET, serviceKey);
    await expect(verifyPrincipal(SECRET, token)).resolves.toEqual(serviceKey);
  });

  it('round-trips a service principal with a null org_id', async () => {
    const token = await signPrincipal(SECRET, servicePrincipal('gateway'));
    await expect(verifyPrincipal(SECRET, token)).resolves.toEqual({
      org_id: null,
      sub: 'gateway',
      kind: 'service',
      role: 'admin',
      scopes: [],
      plan: 'pro',
    });
  });

  it('signs an HS256 token for issuer assay and audience assay-services that expires after the ttl', async () => {
    const token = await signPrincipal(SECRET, apiKey, 30);
    const [header, payload] = token.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>);
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toMatchObject({ iss: 'assay', aud: 'assay-services', sub: 'key_1', org_id: 'org_1', kind: 'api_key' });
    expect((payload!.exp as number) - (payload!.iat as number)).toBe(30);
  });

  it('drops an environment that is neither prod nor dev', async () => {
    const token = await craft({ ...serviceKey, environment: 'staging' });
    const principal = await verifyPrincipal(SECRET, token);
    expect(principal).toEqual({ ...serviceKey, environment: undefined });
    expect('environment' in principal).toBe(false);
  });

  it('refuses a missing or empty token', async () => {
    expect((await refusal(undefined)).message).toBe('Invalid principal token: missing');
    expect((await refusal('')).message).toBe('Invalid principal token: missing');
  });

  it('refuses a token signed with another secret', async () => {
    const token = await signPrincipal(OTHER_SECRET, apiKey);
    const err = await refusal(token);
    expect(err.name).toBe('InvalidPrincipalError');
    expect(err.message).toBe('Invalid principal token: signature or claims rejected');
  });

  it('refuses an expired token, saying it expired', async () => {
    const token = await craft({ ...apiKey }, { exp: Math.floor(Date.now() / 1000) - 5 });
    expect((await refusal(token)).message).toBe('Invalid principal token: expired');
  });

  it('refuses a token once its ttl has passed', async () => {
    const token = await signPrincipal(SECRET, apiKey, 1);
    await expect(verifyPrincipal(SECRET, token)).resolves.toEqual(apiKey);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect((await refusal(token)).message).toBe('Invalid principal token: expired');
  });

  it('refuses a token whose payload was changed after signing', async () => {
    const token = await signPrincipal(SECRET, { ...apiKey, role: 'member' });
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = [header, b64url({ ...claims, role: 'owner', org_id: 'org_victim' }), signature].join('.');
    expect((await refusal(forged)).message).toBe('Invalid principal token: signature or claims rejected');
  });

  it('refuses an unsigned token with alg none', async () => {
    const unsecured = new UnsecuredJWT({ ...apiKey, sub: undefined })
      .setSubject(apiKey.sub)
      .setIssuer('assay')
      .setAudience('assay-services')
      .setIssuedAt()
      .setExpirationTime('60s')
      .encode();
    expect(unsecured.endsWith('.')).toBe(true);
    expect((await refusal(unsecured)).message).toBe('Invalid principal token: signature or claims rejected');
  });

  it('refuses a token that keeps a valid signature but switches the header to alg none', async () => {
    const token = await signPrincipal(SECRET, apiKey);
    const [, payload, signature] = token.split('.') as [string, string, string];
    const forged = [b64url({ alg: 'none', typ: 'JWT' }), payload, signature].join('.');
    await refusal(forged);
    await refusal([b64url({ alg: 'none', typ: 'JWT' }), payload, ''].join('.'));
  });

  it('refuses a token for another issuer or audience', async () => {
    await refusal(await craft({ ...apiKey }, { issuer: 'someone-else' }));
    await refusal(await craft({ ...apiKey }, { audience: 'browsers' }));
  });

  // jose checks `exp` only when a token has one: verifyPrincipal requires it (and `iat`), so a principal
  // minted without an expiry by code holding INTERNAL_TOKEN_SECRET is not accepted forever.
  it('refuses a token without an expiry', async () => {
    const token = await new SignJWT({ org_id: 'org_1', kind: 'api_key', role: 'admin', scopes: [], plan: 'growth' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject('key_1')
      .setIssuer('assay')
      .setAudience('assay-services')
      .sign(new TextEncoder().encode(SECRET));
    expect((await refusal(token)).message).toBe('Invalid principal token: signature or claims rejected');
  });

  it('refuses text that is not a JWT', async () => {
    expect((await refusal('not-a-token')).message).toBe('Invalid principal token: signature or claims rejected');
  });

  it.each([
    ['org_id', { org_id: undefined }],
    ['sub', { sub: undefined }],
    ['kind', { kind: undefined }],
    ['role', { role: undefined }],
    ['scopes', { scopes: undefined }],
    ['plan', { plan: undefined }],
  ])('refuses a token without %s', async (_claim, change) => {
    const token = await craft({ ...apiKey, ...change });
    expect((await refusal(token)).message).toBe('Invalid principal token: claims are incomplete');
  });

  it.each([
    ['an unknown kind', { kind: 'robot' }],
    ['an unknown role', { role: 'superuser' }],
    ['an unknown plan', { plan: 'enterprise' }],
    ['scopes that are not a list', { scopes: 'test_cases:read' }],
    ['scopes that are not strings', { scopes: ['test_cases:read', 7] }],
    ['a numeric org_id', { org_id: 42 }],
  ])('refuses a token with %s', async (_what, change) => {
    const token = await craft({ ...apiKey, ...change });
    expect((await refusal(token)).message).toBe('Invalid principal token: claims are incomplete');
  });

  it('refuses a null org_id on any principal that is not a service', async () => {
    for (const kind of ['api_key', 'service_key', 'session'] as const) {
      const token = await craft({ ...apiKey, kind, org_id: null });
      expect((await refusal(token)).message).toBe('Invalid principal token: claims are incomplete');
    }
  });

  it('accepts a null org_id on a service principal crafted outside signPrincipal', async () => {
    const token = await craft({ org_id: null, sub: 'auth', kind: 'service', role: 'admin', scopes: [], plan: 'pro' });
    await expect(verifyPrincipal(SECRET, token)).resolves.toEqual(servicePrincipal('auth'));
  });
});

describe('servicePrincipal', () => {
  it('is an admin service principal with full access and no organization', () => {
    expect(servicePrincipal('gateway')).toEqual({
      org_id: null,
      sub: 'gateway',
      kind: 'service',
      role: 'admin',
      scopes: [],
      plan: 'pro',
    });
  });
});

describe('hasScope', () => {
  it('grants every scope to a principal with an empty scope list', () => {
    expect(hasScope(serviceKey, 'keys:manage')).toBe(true);
    expect(hasScope(serviceKey, 'anything:at-all')).toBe(true);
  });

  it('grants only the listed scopes to a scoped principal', () => {
    expect(hasScope(apiKey, 'test_cases:read')).toBe(true);
    expect(hasScope(apiKey, 'executions:write')).toBe(true);
    expect(hasScope(apiKey, 'test_cases:write')).toBe(false);
    expect(hasScope(apiKey, 'keys:manage')).toBe(false);
  });

  it('does not treat a read scope as covering write or a prefix as covering the area', () => {
    const reader: Principal = { ...apiKey, scopes: ['projects:read'] };
    expect(hasScope(reader, 'projects:write')).toBe(false);
    expect(hasScope(reader, 'projects')).toBe(false);
  });
});
