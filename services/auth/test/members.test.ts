import { contractValidator } from '@assay/contracts';
import type { Principal } from '@assay/principal';
import { keyPrincipal, startAuth } from './harness.js';
import { useHarness } from '@assay/testing';

const auth = useHarness(() => startAuth());

const email = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.test`;
const asMember = (orgId: string, userId: string, role: Principal['role']): Principal => ({ org_id: orgId, sub: userId, kind: 'session', role, scopes: [], plan: 'pro' });

describe('adding members', () => {
  it('invites a new e-mail: the account gets its password through accept-invitation and signs in', async () => {
    const a = await auth.newOrganization('growth');
    const address = email('new');
    const added = await auth.call('POST', '/api/organizations/current/members', { principal: a.owner, body: { email: address, role: 'member', name: 'New Person' } });
    expect(added.status).toBe(201);
    expect(contractValidator().validate('MemberAdded', added.body)).toEqual([]);
    expect(added.body).toMatchObject({ email: address, name: 'New Person', role: 'member', invitation: { token: expect.stringMatching(/^inv_/) } });
    expect(Date.parse(added.body.invitation.expires_at) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    // Only the token's hash is stored.
    const stored = await auth.database.db.selectFrom('invitations').selectAll().where('user_id', '=', added.body.user_id).execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.token_hash.toString('utf8')).not.toContain(added.body.invitation.token);

    // No password yet: login is refused like a wrong password, and the member list says the invitation is pending.
    expect((await auth.call('POST', '/api/auth/login', { body: { email: address, password: 'anything at all here' } })).status).toBe(401);
    const pendingOf = async () => Object.fromEntries((await auth.call('GET', '/api/organizations/current/members', { principal: a.owner })).body.data.map((m: { email: string; pending: boolean }) => [m.email, m.pending]));
    expect(await pendingOf()).toEqual({ [a.email]: false, [address]: true });

    const accepted = await auth.call('POST', '/api/auth/accept-invitation', { principal: null, body: { token: added.body.invitation.token, password: 'a brand new password' } });
    // Through the gateway the call carries the gateway's own principal; the harness sends none, which auth refuses:
    expect(accepted.status).toBe(401);
    const viaGateway = await auth.call('POST', '/api/auth/accept-invitation', { body: { token: added.body.invitation.token, password: 'a brand new password' } });
    expect(viaGateway.status).toBe(200);
    expect(viaGateway.body).toMatchObject({ user_id: added.body.user_id, email: address, organization_id: a.orgId });
    const who = await auth.authenticate(viaGateway.body.token);
    expect(who.body.principal).toMatchObject({ org_id: a.orgId, sub: added.body.user_id, kind: 'session', role: 'member', plan: 'growth' });
    expect((await auth.call('POST', '/api/auth/login', { body: { email: address, password: 'a brand new password' } })).status).toBe(200);
    expect(await pendingOf()).toEqual({ [a.email]: false, [address]: false });

    // A token works once.
    const again = await auth.call('POST', '/api/auth/accept-invitation', { body: { token: added.body.invitation.token, password: 'another new password' } });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: 'validation_error', details: [{ field: 'token', message: 'is unknown, already used or expired' }] });
    expect((await auth.call('POST', '/api/auth/login', { body: { email: address, password: 'a brand new password' } })).status).toBe(200);
  });

  it('refuses expired and unknown invitation tokens and short passwords, changing nothing', async () => {
    const a = await auth.newOrganization();
    const added = await auth.call('POST', '/api/organizations/current/members', { principal: a.owner, body: { email: email('late'), role: 'admin' } });
    await auth.database.db.updateTable('invitations').set({ expires_at: new Date(Date.now() - 1000) }).where('user_id', '=', added.body.user_id).execute();
    for (const body of [{ token: added.body.invitation.token, password: 'a long enough password' }, { token: 'inv_unknown', password: 'a long enough password' }]) {
      const r = await auth.call('POST', '/api/auth/accept-invitation', { body });
      expect({ status: r.status, error: r.body.error }).toEqual({ status: 400, error: 'validation_error' });
    }
    const short = await auth.call('POST', '/api/auth/accept-invitation', { body: { token: added.body.invitation.token, password: 'short' } });
    expect(short.body.details).toEqual([{ field: 'password', message: 'must NOT have fewer than 12 characters' }]);
    const user = await auth.database.db.selectFrom('users').select('password_hash').where('id', '=', added.body.user_id).executeTakeFirstOrThrow();
    expect(user.password_hash).toBeNull();
  });

  it('adds an existing account at once, without an invitation, and emits organization.member.added', async () => {
    const a = await auth.newOrganization();
    const b = await auth.newOrganization();
    const added = await auth.call('POST', '/api/organizations/current/members', { principal: a.owner, body: { email: b.email.toUpperCase(), role: 'admin' } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ user_id: b.userId, email: b.email, role: 'admin', invitation: null });
    // b's owner can now sign in to a as an admin with their own password.
    const login = await auth.call('POST', '/api/auth/login', { body: { email: b.email, password: b.password, organization_id: a.orgId } });
    expect((await auth.authenticate(login.body.token)).body.principal).toMatchObject({ org_id: a.orgId, role: 'admin' });
    const events = await auth.events('organization.member.added', a.orgId);
    expect(events.map((e) => e.data)).toEqual([
      { user: { id: a.userId, email: a.email, name: expect.any(String) }, role: 'owner' },
      { user: { id: b.userId, email: b.email, name: expect.any(String) }, role: 'admin', invited: false },
    ]);
    const twice = await auth.call('POST', '/api/organizations/current/members', { principal: a.owner, body: { email: b.email, role: 'member' } });
    expect(twice).toMatchObject({ status: 409, body: { error: 'conflict', details: { user_id: b.userId } } });
  });

  it('lets the owner, admins and unscoped keys manage members, and refuses members and scoped keys with 403', async () => {
    const a = await auth.newOrganization();
    const member = await auth.call('POST', '/api/organizations/current/members', { principal: a.owner, body: { email: email('m'), role: 'member' } });
    const admin = await auth.call('POST', '/api/organizations/current/members', { principal: keyPrincipal(a.orgId), body: { email: email('a'), role: 'admin' } });
    expect(admin.status).toBe(201);
    const adminP = asMember(a.orgId, admin.body.user_id, 'admin');
    expect((await auth.call('PATCH', `/api/organizations/current/members/${member.body.user_id}`, { principal: adminP, body: { role: 'admin' } })).body.role).toBe('admin');
    const memberP = asMember(a.orgId, member.body.user_id, 'member');
    const scoped = keyPrincipal(a.orgId, ['organization:read'], 'api_key');
    for (const principal of [memberP, scoped]) {
      for (const [method, path, body] of [
        ['POST', '/api/organizations/current/members', { email: email('x'), role: 'member' }],
        ['PATCH', `/api/organizations/current/members/${admin.body.user_id}`, { role: 'member' }],
        ['DELETE', `/api/organizations/current/members/${admin.body.user_id}`, undefined],
      ] as const) {
        const r = await auth.call(method, path, { principal, ...(body ? { body } : {}) });
        expect({ method, status: r.status, error: r.body.error }).toEqual({ method, status: 403, error: 'insufficient_permissions' });
      }
    }
    const list = await auth.call('GET', '/api/organizations/current/members', { principal: a.owner });
    expect(list.body.data.map((m: { role: string }) => m.role).sort()).toEqual(['admin', 'admin', 'owner']);
  });
});

describe('roles and removal', () => {
  it('changes roles between admin and member, never the owner’s, and evicts cached credentials', async () => {
    const a = await auth.newOrganization();
    const m = await auth.call('POST', '/api/organizations/current/members', { principal: a.owner, body: { email: email('r'), role: 'member' } });
    const up = await auth.call('PATCH', `/api/organizations/current/members/${m.body.user_id}`, { principal: a.owner, body: { role: 'admin' } });
    expect(up).toMatchObject({ status: 200, body: { user_id: m.body.user_id, role: 'admin' } });
    expect(contractValidator().validate('Member', up.body)).toEqual([]);
    const owner = await auth.call('PATCH', `/api/organizations/current/members/${a.userId}`, { principal: keyPrincipal(a.orgId), body: { role: 'member' } });
    expect(owner).toMatchObject({ status: 409, body: { error: 'conflict' } });
    const toOwner = await auth.call('PATCH', `/api/organizations/current/members/${m.body.user_id}`, { principal: a.owner, body: { role: 'owner' } });
    expect(toOwner.status).toBe(400);
    expect((await auth.events('auth.organization.access_changed', a.orgId)).map((e) => e.data)).toEqual([{ reason: 'member_changed' }]);
  });

  it('removes a member (their session stops working) but never the owner, and answers 404 for strangers', async () => {
    const a = await auth.newOrganization();
    const other = await auth.newOrganization();
    const m = await auth.call('POST', '/api/organizations/current/members', { principal: a.owner, body: { email: email('gone'), role: 'member' } });
    const accepted = await auth.call('POST', '/api/auth/accept-invitation', { body: { token: m.body.invitation.token, password: 'password of someone leaving' } });
    expect((await auth.authenticate(accepted.body.token)).status).toBe(200);

    const removed = await auth.call('DELETE', `/api/organizations/current/members/${m.body.user_id}`, { principal: a.owner });
    expect(removed).toMatchObject({ status: 200, body: { user_id: m.body.user_id, removed_at: expect.any(String) } });
    expect((await auth.authenticate(accepted.body.token)).status).toBe(401);
    expect((await auth.events('organization.member.removed', a.orgId)).map((e) => e.data)).toEqual([{ user_id: m.body.user_id }]);

    expect(await auth.call('DELETE', `/api/organizations/current/members/${a.userId}`, { principal: a.owner })).toMatchObject({ status: 409, body: { error: 'conflict' } });
    for (const id of [m.body.user_id, other.userId, 'not-a-uuid']) {
      const r = await auth.call('DELETE', `/api/organizations/current/members/${id}`, { principal: a.owner });
      expect({ id, status: r.status, error: r.body.error }).toEqual({ id, status: 404, error: 'not_found' });
    }
    // The other organization's owner is untouched.
    expect((await auth.call('GET', '/api/organizations/current/members', { principal: other.owner })).body.data).toHaveLength(1);
  });
});

describe('team size per plan', () => {
  it('refuses the member past the Starter plan’s five with 403 naming the limit, even when added at once', async () => {
    const a = await auth.newOrganization('starter');
    // Owner + 4 = 5; seven concurrent adds race for the last slot.
    for (let i = 0; i < 3; i++) expect((await auth.call('POST', '/api/organizations/current/members', { principal: a.owner, body: { email: email(`s${i}`), role: 'member' } })).status).toBe(201);
    const racing = await Promise.all(Array.from({ length: 7 }, (_, i) => auth.call('POST', '/api/organizations/current/members', { principal: a.owner, body: { email: email(`race${i}`), role: 'member' } })));
    expect(racing.filter((r) => r.status === 201)).toHaveLength(1);
    const refused = racing.filter((r) => r.status === 403);
    expect(refused).toHaveLength(6);
    expect(refused[0]!.body).toMatchObject({
      error: 'insufficient_permissions',
      message: 'Team-size limit exceeded: the starter plan allows 5 members',
      details: { limit: 5, members: 5, plan: 'starter' },
    });
    const list = await auth.call('GET', '/api/organizations/current/members', { principal: a.owner });
    expect(list.body.pagination.total).toBe(5);
  });

  it('allows more members on Pro than Growth’s twenty', async () => {
    const a = await auth.newOrganization('pro');
    const adds = [];
    for (let i = 0; i < 21; i++) adds.push(await auth.call('POST', '/api/organizations/current/members', { principal: a.owner, body: { email: email(`p${i}`), role: 'member' } }));
    expect(adds.every((r) => r.status === 201)).toBe(true);
    expect((await auth.call('GET', '/api/organizations/current/members', { principal: a.owner })).body.pagination.total).toBe(22);
  });

  it('refuses bad member bodies with 400 and adds nobody', async () => {
    const a = await auth.newOrganization();
    for (const body of [{ email: 'not-an-email', role: 'member' }, { email: email('o'), role: 'owner' }, { email: email('x'), role: 'member', extra: 1 }, { role: 'member' }]) {
      const r = await auth.call('POST', '/api/organizations/current/members', { principal: a.owner, body });
      expect({ status: r.status, error: r.body.error }).toEqual({ status: 400, error: 'validation_error' });
    }
    expect((await auth.call('GET', '/api/organizations/current/members', { principal: a.owner })).body.pagination.total).toBe(1);
  });
});
