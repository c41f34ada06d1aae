import { servicePrincipal, signPrincipal } from '@assay/principal';
import { TEST_INTERNAL_SECRET, useHarness } from '@assay/testing';
import { startAuth, keyPrincipal } from './harness.js';

// Console sign-ins that survive a reload: the access token in the body, the
// refresh token in an HttpOnly cookie scoped to the refresh route, rotated on
// use, ended by sign-out (here or everywhere) and by a password change.
const auth = useHarness(() => startAuth());

const COOKIE = '__Secure-assay_refresh';

async function post(path: string, opts: { cookie?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(`${auth.server.url}${path}`, {
    method: 'POST',
    // As the gateway forwards a public route: its own principal.
    headers: { 'content-type': 'application/json', 'x-assay-principal': await signPrincipal(TEST_INTERNAL_SECRET, servicePrincipal('gateway')), ...(opts.cookie ? { cookie: `${COOKIE}=${opts.cookie}` } : {}), ...opts.headers },
    body: JSON.stringify(opts.body ?? {}),
  });
  const setCookie = res.headers.getSetCookie();
  return { status: res.status, body: (await res.json()) as any, setCookie, refresh: /__Secure-assay_refresh=([^;]*)/.exec(setCookie.join('\n'))?.[1] };
}
const refresh = (cookie: string | undefined, headers: Record<string, string> = { 'x-assay-refresh': '1', 'sec-fetch-site': 'same-origin' }) => post('/api/auth/refresh', { ...(cookie ? { cookie } : {}), headers });
async function signIn(email: string, password: string) {
  const r = await post('/api/auth/login', { body: { email, password } });
  expect(r.status).toBe(200);
  return r;
}
const principalOf = async (token: string) => (await auth.authenticate(token)).body.principal;

describe('console sessions', () => {
  it('sets the refresh token only as an HttpOnly, Secure, SameSite=Strict cookie of the refresh route, and rotates it on use', async () => {
    const org = await auth.newOrganization();
    const login = await signIn(org.email, org.password);
    expect(login.setCookie).toHaveLength(1);
    expect(login.setCookie[0]).toMatch(/^__Secure-assay_refresh=rt_[A-Za-z0-9_-]{43}; Max-Age=3600; Path=\/api\/auth\/refresh; HttpOnly; Secure; SameSite=Strict$/);
    expect(JSON.stringify(login.body)).not.toContain(login.refresh!);
    expect(Object.keys(login.body).sort()).toEqual(['expires_at', 'token']);
    // The access token lives 15 minutes and names its sign-in.
    expect(new Date(login.body.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(900_000);
    const principal = await principalOf(login.body.token);
    expect(principal).toMatchObject({ kind: 'session', sub: org.userId, org_id: org.orgId, session_id: expect.any(String) });
    // Only the refresh token's hash is stored.
    const stored = await auth.database.db.selectFrom('refresh_tokens').selectAll().where('session_id', '=', principal.session_id).execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.token_hash.toString('utf8')).not.toContain(login.refresh!);

    const first = await refresh(login.refresh);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ user_id: org.userId, organization_id: org.orgId, email: org.email, token: expect.any(String) });
    expect(first.refresh).toMatch(/^rt_/);
    expect(first.refresh).not.toBe(login.refresh);
    expect((await principalOf(first.body.token)).session_id).toBe(principal.session_id);
    const second = await refresh(first.refresh);
    expect(second.status).toBe(200);

    // The first token again, long after it was exchanged: a copy is in use, so the whole sign-in ends.
    await auth.database.db.updateTable('refresh_tokens').set({ used_at: new Date(Date.now() - 60_000) }).where('session_id', '=', principal.session_id).where('used_at', 'is not', null).execute();
    const replayed = await refresh(login.refresh);
    expect(replayed.status).toBe(401);
    expect(replayed.setCookie[0]).toMatch(/^__Secure-assay_refresh=; Max-Age=0; Path=\/api\/auth\/refresh/);
    expect((await refresh(second.refresh)).status).toBe(401);
    expect((await auth.authenticate(second.body.token)).status).toBe(401);
    expect((await auth.events('auth.organization.access_changed', org.orgId)).map((e) => e.data.reason)).toContain('session_revoked');
  });

  it('lets two tabs refresh with the same token at once (a short grace), and refuses requests that could come from another site', async () => {
    const org = await auth.newOrganization();
    const login = await signIn(org.email, org.password);
    const [a, b] = await Promise.all([refresh(login.refresh), refresh(login.refresh)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await refresh(a.refresh)).status).toBe(200);
    expect((await refresh(b.refresh)).status).toBe(200);

    const fresh = await signIn(org.email, org.password);
    for (const headers of [{} as Record<string, string>, { 'x-assay-refresh': '1', 'sec-fetch-site': 'cross-site' }, { 'x-assay-refresh': '1', 'sec-fetch-site': 'same-site' }]) {
      const refused = await refresh(fresh.refresh, headers);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toBe('insufficient_permissions');
    }
    // Nothing was used up by the refused calls.
    expect((await refresh(fresh.refresh)).status).toBe(200);
    for (const cookie of [undefined, 'rt_nope', `rt_${'A'.repeat(43)}`]) {
      const r = await refresh(cookie);
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('invalid_api_key');
    }
  });

  it('signs out this sign-in only, or every sign-in of the user, ending their access tokens at once', async () => {
    const org = await auth.newOrganization();
    const [tab, laptop, phone] = [await signIn(org.email, org.password), await signIn(org.email, org.password), await signIn(org.email, org.password)];
    const out = await auth.call('POST', '/api/auth/logout', { principal: await principalOf(tab.body.token), body: {} });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ sessions_ended: 1 });
    expect((await auth.authenticate(tab.body.token)).status).toBe(401);
    expect((await refresh(tab.refresh)).status).toBe(401);
    expect((await auth.authenticate(laptop.body.token)).status).toBe(200);

    const everywhere = await auth.call('POST', '/api/auth/logout', { principal: await principalOf(laptop.body.token), body: { everywhere: true } });
    expect(everywhere.body).toEqual({ sessions_ended: 2 });
    for (const s of [laptop, phone]) {
      expect((await auth.authenticate(s.body.token)).status).toBe(401);
      expect((await refresh(s.refresh)).status).toBe(401);
    }
    expect((await auth.call('POST', '/api/auth/logout', { principal: keyPrincipal(org.orgId), body: {} })).status).toBe(403);
    expect((await auth.call('POST', '/api/auth/logout', { principal: keyPrincipal(org.orgId), body: { everywhere: 'yes' } })).status).toBe(400);
  });

  it('ends every sign-in of the user on a password change and starts a new one for the caller', async () => {
    const org = await auth.newOrganization();
    const [here, elsewhere] = [await signIn(org.email, org.password), await signIn(org.email, org.password)];
    const wrong = await auth.call('POST', '/api/auth/password', { principal: await principalOf(here.body.token), body: { current_password: 'not it at all', new_password: 'a much better password' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toEqual([{ field: 'current_password', message: 'is not this account’s password' }]);
    expect((await auth.authenticate(elsewhere.body.token)).status).toBe(200);

    const changed = await post('/api/auth/password', {
      headers: { 'x-assay-principal': await signPrincipal(TEST_INTERNAL_SECRET, await principalOf(here.body.token)) },
      body: { current_password: org.password, new_password: 'a much better password' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.sessions_ended).toBe(2);
    expect(changed.refresh).toMatch(/^rt_/);
    for (const s of [here, elsewhere]) {
      expect((await auth.authenticate(s.body.token)).status).toBe(401);
      expect((await refresh(s.refresh)).status).toBe(401);
    }
    expect((await auth.authenticate(changed.body.token)).status).toBe(200);
    expect((await refresh(changed.refresh)).status).toBe(200);
    expect((await post('/api/auth/login', { body: { email: org.email, password: org.password } })).status).toBe(401);
    expect((await post('/api/auth/login', { body: { email: org.email, password: 'a much better password' } })).status).toBe(200);
  });

  it('moves the sign-in on an organization switch: a refresh lands in the new organization and the old token stops', async () => {
    const a = await auth.newOrganization('growth');
    const b = await auth.newOrganization('pro');
    await auth.call('POST', '/api/organizations/current/members', { principal: a.owner, body: { email: b.email, role: 'admin' } });
    const login = await signIn(b.email, b.password);
    const switched = await auth.call('POST', '/api/auth/switch-organization', { principal: await principalOf(login.body.token), body: { organization_id: a.orgId } });
    expect(switched.status).toBe(200);
    expect(await principalOf(switched.body.token)).toMatchObject({ org_id: a.orgId, role: 'admin' });
    expect((await auth.authenticate(login.body.token)).status).toBe(401);
    const r = await refresh(login.refresh);
    expect(r.body.organization_id).toBe(a.orgId);
  });
});
