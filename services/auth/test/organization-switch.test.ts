import { keyPrincipal, startAuth } from './harness.js';
import { useHarness } from '@assay/testing';

const auth = useHarness(() => startAuth());

describe('switching organization (the console’s organization menu)', () => {
  it('lists the user’s organizations and mints a session in another one they belong to', async () => {
    const a = await auth.newOrganization('growth');
    const b = await auth.newOrganization('pro');
    await auth.call('POST', '/api/organizations/current/members', { principal: a.owner, body: { email: b.email, role: 'admin' } });

    const list = await auth.call('GET', '/api/auth/organizations', { principal: b.owner });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      current: b.orgId,
      data: [
        { id: b.orgId, name: expect.any(String), plan: 'pro', status: 'active', role: 'owner' },
        { id: a.orgId, name: expect.any(String), plan: 'growth', status: 'active', role: 'admin' },
      ],
    });

    const login = await auth.call('POST', '/api/auth/login', { body: { email: b.email, password: b.password } });
    const session = (await auth.authenticate(login.body.token)).body.principal;
    const switched = await auth.call('POST', '/api/auth/switch-organization', { principal: session, body: { organization_id: a.orgId } });
    expect(switched.status).toBe(200);
    expect(switched.body.organization_id).toBe(a.orgId);
    const who = await auth.authenticate(switched.body.token);
    expect(who.body.principal).toMatchObject({ org_id: a.orgId, sub: b.userId, kind: 'session', role: 'admin', plan: 'growth' });
  });

  it('answers a foreign organization exactly like an unknown one, and refuses keys and bad bodies', async () => {
    const a = await auth.newOrganization();
    const b = await auth.newOrganization();
    const foreign = await auth.call('POST', '/api/auth/switch-organization', { principal: b.owner, body: { organization_id: a.orgId } });
    const unknown = await auth.call('POST', '/api/auth/switch-organization', { principal: b.owner, body: { organization_id: '00000000-0000-4000-8000-000000000000' } });
    const { request_id: _f, ...f } = foreign.body;
    const { request_id: _u, ...u } = unknown.body;
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(f).toEqual(u);

    const byKey = await auth.call('POST', '/api/auth/switch-organization', { principal: keyPrincipal(b.orgId), body: { organization_id: b.orgId } });
    expect(byKey.status).toBe(403);
    expect((await auth.call('GET', '/api/auth/organizations', { principal: keyPrincipal(b.orgId) })).body).toEqual({ current: b.orgId, data: [] });

    const bad = await auth.call('POST', '/api/auth/switch-organization', { principal: b.owner, body: { organization_id: 7 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_error');
  });
});
