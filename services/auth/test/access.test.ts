import { SignJWT } from 'jose';
import { signPrincipal } from '@assay/principal';
import { startAuth, keyPrincipal, SESSION_SECRET } from './harness.js';
import { insertMembership, insertUser } from '../src/organizations/organizations.repository.js';
import { useHarness } from '@assay/testing';

const auth = useHarness(() => startAuth());

describe('login and sessions', () => {
  it('logs in with e-mail and password and the token authenticates as the owner', async () => {
    const { orgId, userId, email, password } = await auth.newOrganization('growth');
    const r = await auth.call('POST', '/api/auth/login', { body: { email: email.toUpperCase(), password } });
    expect(r.status).toBe(200);
    expect(r.body.token.startsWith('sk_live_')).toBe(false);
    expect(r.body.token.split('.')).toHaveLength(3);
    // A short-lived access token (15 minutes); the sign-in itself lasts SESSION_TTL_SECONDS through its refresh cookie.
    expect(Date.parse(r.body.expires_at) - Date.now()).toBeGreaterThan(800_000);
    expect(Date.parse(r.body.expires_at) - Date.now()).toBeLessThanOrEqual(900_000);
    const who = await auth.authenticate(r.body.token);
    expect(who.body.principal).toEqual({ org_id: orgId, sub: userId, kind: 'session', role: 'owner', scopes: [], plan: 'growth', session_id: expect.any(String) });
    expect(who.body.valid_until).toBe(r.body.expires_at.replace(/\.\d{3}Z$/, '.000Z'));
  });

  it('refuses a wrong password and an unknown e-mail with the same 401', async () => {
    const { email } = await auth.newOrganization();
    const wrong = await auth.call('POST', '/api/auth/login', { body: { email, password: 'nope' } });
    const unknown = await auth.call('POST', '/api/auth/login', { body: { email: 'nobody@example.test', password: 'nope' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.message).toBe(unknown.body.message);
    expect((await auth.call('POST', '/api/auth/login', { body: { email: 'not-an-email', password: 'x' } })).status).toBe(400);
  });

  it('refuses forged and expired session tokens, and tokens that name no live sign-in', async () => {
    const { orgId, userId, email, password } = await auth.newOrganization();
    const login = await auth.call('POST', '/api/auth/login', { body: { email, password } });
    const sid = (await auth.authenticate(login.body.token)).body.principal.session_id as string;
    const sign = (secret: string, exp: number, claims: Record<string, unknown> = { org_id: orgId, sid }) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(userId)
        .setIssuer('assay-auth')
        .setAudience('assay-session')
        .setExpirationTime(exp)
        .sign(new TextEncoder().encode(secret));
    const now = Math.floor(Date.now() / 1000);
    expect((await auth.authenticate(await sign(SESSION_SECRET, now + 60))).status).toBe(200);
    for (const token of [
      await sign('another-secret-another-secret-xxxxx', now + 60),
      await sign(SESSION_SECRET, now - 10),
      // Before revocable sessions tokens named none; and a session that never was.
      await sign(SESSION_SECRET, now + 60, { org_id: orgId }),
      await sign(SESSION_SECRET, now + 60, { org_id: orgId, sid: '00000000-0000-4000-8000-000000000000' }),
    ]) {
      const r = await auth.authenticate(token);
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('invalid_api_key');
    }
  });
});

describe('sk_live_ API keys', () => {
  it('creates a scoped key that acts as Admin and lists it with its scopes', async () => {
    const { orgId, owner } = await auth.newOrganization();
    const created = await auth.call('POST', '/api/api-keys', { principal: owner, body: { name: 'MCP', scopes: ['test_cases:read', 'executions:write'] } });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sk_live_[1-9A-HJ-NP-Za-km-z]{40,50}$/);
    const who = await auth.authenticate(created.body.key);
    expect(who.body.principal).toMatchObject({ org_id: orgId, kind: 'api_key', role: 'admin', scopes: ['test_cases:read', 'executions:write'] });
    const list = await auth.call('GET', '/api/api-keys', { principal: owner });
    expect(list.body.keys).toEqual([expect.objectContaining({ id: created.body.id, scopes: ['test_cases:read', 'executions:write'], usage_count: 0 })]);
    expect((await auth.call('POST', '/api/api-keys', { principal: owner, body: { name: 'bad', scopes: ['everything'] } })).status).toBe(400);
  });

  it('refuses owner-only operations to API keys and service keys, and allows them to the owner session', async () => {
    const a = await auth.newOrganization();
    const memberLogin = await auth.call('POST', '/internal/organizations', {
      body: { name: 'other', plan: 'starter', owner: { email: `second-${Date.now()}@example.test`, name: 'Second', password: 'another long password' } },
    });
    const secondUser = memberLogin.body.owner.id as string;
    // Make the second user an admin of org a.
    await auth.database.db.insertInto('memberships').values({ org_id: a.orgId, user_id: secondUser, role: 'admin' }).execute();

    for (const principal of [keyPrincipal(a.orgId, [], 'api_key'), keyPrincipal(a.orgId, [], 'service_key')]) {
      const transfer = await auth.call('POST', '/api/organizations/current/transfer-ownership', { principal, body: { user_id: secondUser } });
      expect(transfer.status).toBe(403);
      expect(transfer.body.error).toBe('insufficient_permissions');
      const del = await auth.call('DELETE', '/api/organizations/current', { principal });
      expect(del.status).toBe(403);
    }
    const members = await auth.call('GET', '/api/organizations/current/members', { principal: a.owner });
    expect(members.body.data.map((m: { role: string }) => m.role).sort()).toEqual(['admin', 'owner']);

    const transfer = await auth.call('POST', '/api/organizations/current/transfer-ownership', { principal: a.owner, body: { user_id: secondUser } });
    expect(transfer.status).toBe(200);
    const after = await auth.call('GET', '/api/organizations/current/members', { principal: a.owner });
    expect(after.body.data.find((m: { user_id: string }) => m.user_id === secondUser).role).toBe('owner');
    expect(after.body.data.find((m: { user_id: string }) => m.user_id === a.userId).role).toBe('admin');
  });

  it('deletes the organization for its owner, and every key of it stops working', async () => {
    const a = await auth.newOrganization();
    const key = await auth.call('POST', '/api/service-keys', { principal: a.owner, body: { name: 'doomed', environment: 'prod' } });
    const del = await auth.call('DELETE', '/api/organizations/current', { principal: a.owner });
    expect(del.status).toBe(200);
    expect(del.body.status).toBe('deleted');
    expect((await auth.authenticate(key.body.key)).status).toBe(401);
    expect((await auth.call('POST', '/api/auth/login', { body: { email: a.email, password: a.password } })).status).toBe(401);
  });
});

describe('suspension', () => {
  it('refuses every credential of a suspended organization with 403, and accepts them again after reactivation', async () => {
    const a = await auth.newOrganization();
    const service = await auth.call('POST', '/api/service-keys', { principal: a.owner, body: { name: 's', environment: 'prod' } });
    const api = await auth.call('POST', '/api/api-keys', { principal: a.owner, body: { name: 'a' } });
    const session = await auth.call('POST', '/api/auth/login', { body: { email: a.email, password: a.password } });

    expect((await auth.call('POST', `/internal/organizations/${a.orgId}/status`, { body: { status: 'suspended' } })).body.status).toBe('suspended');
    for (const credential of [service.body.key, api.body.key, session.body.token]) {
      const r = await auth.authenticate(credential);
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ error: 'insufficient_permissions', message: 'Organization is suspended' });
    }
    expect((await auth.call('POST', '/api/auth/login', { body: { email: a.email, password: a.password } })).status).toBe(403);

    await auth.call('POST', `/internal/organizations/${a.orgId}/status`, { body: { status: 'active' } });
    expect((await auth.authenticate(service.body.key)).status).toBe(200);
  });
});

describe('internal principal', () => {
  it('refuses calls without a principal or with a forged one', async () => {
    const { orgId } = await auth.newOrganization();
    const forged = await signPrincipal('a-forged-secret-that-is-long-enough-123', keyPrincipal(orgId));
    for (const opts of [{ principal: null }, { principal: null, token: forged }, { principal: null, token: 'not.a.jwt' }]) {
      const r = await auth.call('GET', '/api/service-keys', opts);
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('invalid_api_key');
    }
  });

  it('keeps /internal routes to service principals', async () => {
    const { orgId } = await auth.newOrganization();
    for (const [path, body] of [['/internal/authenticate', { credential: 'x' }], ['/internal/bootstrap', {}], ['/internal/organizations', {}]] as const) {
      const r = await auth.call('POST', path, { principal: keyPrincipal(orgId), body });
      expect({ path, status: r.status, error: r.body.error }).toEqual({ path, status: 403, error: 'insufficient_permissions' });
    }
    // Nothing was bootstrapped by the refused call.
    expect((await auth.call('POST', '/internal/bootstrap', { body: {} })).body).toEqual({ created: false });
  });
});

describe('organization administrators (internal)', () => {
  it("lists the owner's and the admins' e-mail addresses, no members, to service principals only", async () => {
    const { orgId, userId, email } = await auth.newOrganization();
    const other = await auth.newOrganization();
    const add = async (role: 'admin' | 'member', address: string) => {
      const user = await insertUser(auth.database.db, { email: address, name: `${role} user`, password_hash: 'x' });
      await insertMembership(auth.database.db, orgId, user.id, role);
      return user.id;
    };
    const adminId = await add('admin', `admin-${orgId}@example.test`);
    await add('member', `member-${orgId}@example.test`);
    const r = await auth.call('GET', `/internal/organizations/${orgId}/administrators`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: [
        { user_id: userId, email, name: expect.any(String), role: 'owner' },
        { user_id: adminId, email: `admin-${orgId}@example.test`, name: 'admin user', role: 'admin' },
      ],
    });
    // Another organization's list names only its own owner.
    expect((await auth.call('GET', `/internal/organizations/${other.orgId}/administrators`)).body.data.map((a: { email: string }) => a.email)).toEqual([other.email]);
    const refused = await auth.call('GET', `/internal/organizations/${orgId}/administrators`, { principal: keyPrincipal(orgId) });
    expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 403, error: 'insufficient_permissions' });
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      const missing = await auth.call('GET', `/internal/organizations/${id}/administrators`);
      expect({ status: missing.status, body: missing.body }).toEqual({ status: 404, body: { error: 'not_found', message: 'Organization not found', request_id: expect.any(String) } });
    }
  });
});

describe('bootstrap', () => {
  it('creates an organization, its owner and a working dev key on an empty database, once', async () => {
    const fresh = await startAuth();
    try {
      const results = await Promise.all([1, 2, 3].map(() => fresh.call('POST', '/internal/bootstrap', { body: {} })));
      const created = results.filter((r) => r.status === 201);
      expect(created).toHaveLength(1);
      expect(results.filter((r) => r.status === 200).map((r) => r.body)).toEqual([{ created: false }, { created: false }]);
      const first = created[0]!.body;
      expect(first.service_key).toMatch(/^service_sk_dev_/);
      expect(first.email).toBe('admin@assay.local');
      const who = await fresh.authenticate(first.service_key);
      expect(who.body.principal).toMatchObject({ org_id: first.organization_id, kind: 'service_key', environment: 'dev', plan: 'pro' });
      const login = await fresh.call('POST', '/api/auth/login', { body: { email: first.email, password: first.password } });
      expect(login.status).toBe(200);
    } finally {
      await fresh.close();
    }
  });

  it('creates nothing when an organization already exists', async () => {
    await auth.newOrganization();
    const r = await auth.call('POST', '/internal/bootstrap', { body: {} });
    expect(r).toEqual({ status: 200, body: { created: false } });
  });
});
