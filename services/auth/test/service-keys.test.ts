import { sql } from 'kysely';
import { startAuth, keyPrincipal } from './harness.js';
import { useHarness } from '@assay/testing';

const auth = useHarness(() => startAuth());

describe('service keys', () => {
  it('creates a key whose secret is shown once, lists it with usage, and authenticates with it', async () => {
    const { orgId, owner } = await auth.newOrganization();
    const created = await auth.call('POST', '/api/service-keys', { principal: owner, body: { name: 'CI', environment: 'prod', expires_in_days: 90 } });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^service_sk_prod_[1-9A-HJ-NP-Za-km-z]{40,50}$/);
    expect(created.body).toMatchObject({ name: 'CI', environment: 'prod', last_used: null });
    const expiresIn = new Date(created.body.expires_at).getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(89.9 * 86_400_000);
    expect(expiresIn).toBeLessThan(90.1 * 86_400_000);

    const list = await auth.call('GET', '/api/service-keys', { principal: owner });
    expect(list.status).toBe(200);
    expect(list.body.keys).toEqual([
      {
        id: created.body.id,
        name: 'CI',
        environment: 'prod',
        created_at: created.body.created_at,
        expires_at: created.body.expires_at,
        last_used: null,
        usage_count: 0,
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);

    const who = await auth.authenticate(created.body.key);
    expect(who.status).toBe(200);
    expect(who.body).toMatchObject({
      key_id: created.body.id,
      principal: { org_id: orgId, sub: created.body.id, kind: 'service_key', role: 'admin', scopes: [], plan: 'pro', environment: 'prod' },
    });
  });

  it('stores only a hash of the secret', async () => {
    const { owner } = await auth.newOrganization();
    const created = await auth.call('POST', '/api/service-keys', { principal: owner, body: { name: 'hash check', environment: 'dev' } });
    const rows = await sql<{ row: string }>`select row_to_json(k)::text as row from keys k where id = ${created.body.id}`.execute(auth.database.db);
    expect(rows.rows[0]!.row).not.toContain(created.body.key.slice('service_sk_dev_'.length));
  });

  it('refuses the 11th active key with a clear 409, and counts only active keys', async () => {
    const { owner } = await auth.newOrganization();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await auth.call('POST', '/api/service-keys', { principal: owner, body: { name: `k${i}`, environment: 'dev' } });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    const eleventh = await auth.call('POST', '/api/service-keys', { principal: owner, body: { name: 'k10', environment: 'dev' } });
    expect(eleventh.status).toBe(409);
    expect(eleventh.body).toMatchObject({ error: 'conflict', details: { active: 10, limit: 10 } });
    expect(eleventh.body.message).toMatch(/10 active service keys/);

    expect((await auth.call('DELETE', `/api/service-keys/${ids[0]}`, { principal: owner })).status).toBe(200);
    expect((await auth.call('POST', '/api/service-keys', { principal: owner, body: { name: 'k10', environment: 'dev' } })).status).toBe(201);
  });

  it('never lets concurrent creates pass the limit of 10', async () => {
    const { orgId, owner } = await auth.newOrganization();
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => auth.call('POST', '/api/service-keys', { principal: owner, body: { name: `c${i}`, environment: 'dev' } })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 409)).toHaveLength(6);
    const n = await auth.database.db.selectFrom('keys').select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', orgId).executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(10);
  });

  it('revokes a key: it leaves the list, stops authenticating, and emits auth.key.revoked', async () => {
    const { orgId, owner } = await auth.newOrganization();
    const created = await auth.call('POST', '/api/service-keys', { principal: owner, body: { name: 'temp', environment: 'dev' } });
    const revoked = await auth.call('DELETE', `/api/service-keys/${created.body.id}`, { principal: owner });
    expect(revoked.status).toBe(200);
    expect(revoked.body.id).toBe(created.body.id);
    expect(Date.parse(revoked.body.revoked_at)).not.toBeNaN();

    expect((await auth.call('GET', '/api/service-keys', { principal: owner })).body.keys).toEqual([]);
    const who = await auth.authenticate(created.body.key);
    expect(who).toEqual({ status: 401, body: expect.objectContaining({ error: 'invalid_api_key', message: 'API key is invalid or expired' }) });

    const events = await auth.database.db.selectFrom('outbox').select(['envelope', 'topic', 'key']).where('key', '=', created.body.id).execute();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      topic: 'assay.auth.events',
      envelope: { event: 'auth.key.revoked', organization_id: orgId, data: { key_id: created.body.id, kind: 'service_key' } },
    });

    expect((await auth.call('DELETE', `/api/service-keys/${created.body.id}`, { principal: owner })).status).toBe(404);
  });

  it('answers 404 for another organization’s key, a malformed id, and an unknown id, and changes nothing', async () => {
    const a = await auth.newOrganization();
    const b = await auth.newOrganization();
    const key = await auth.call('POST', '/api/service-keys', { principal: a.owner, body: { name: 'a-key', environment: 'prod' } });
    for (const id of [key.body.id, 'not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      const r = await auth.call('DELETE', `/api/service-keys/${id}`, { principal: b.owner });
      expect(r.status).toBe(404);
      expect(r.body.error).toBe('not_found');
    }
    expect((await auth.call('GET', '/api/service-keys', { principal: b.owner })).body.keys).toEqual([]);
    expect((await auth.authenticate(key.body.key)).status).toBe(200);
  });

  it('refuses an expired key, a mistyped key and an unknown key with the spec’s 401', async () => {
    const { owner } = await auth.newOrganization();
    const created = await auth.call('POST', '/api/service-keys', { principal: owner, body: { name: 'old', environment: 'prod', expires_in_days: 1 } });
    await auth.database.db.updateTable('keys').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', created.body.id).execute();
    const key: string = created.body.key;
    const mistyped = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
    for (const credential of [key, mistyped, 'service_sk_prod_short', 'service_sk_test_' + key.slice(16), 'sk_live_nope', 'garbage']) {
      const r = await auth.authenticate(credential);
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ error: 'invalid_api_key', message: 'API key is invalid or expired' });
    }
    // Expired keys are not active: they leave the list.
    expect((await auth.call('GET', '/api/service-keys', { principal: owner })).body.keys).toEqual([]);
  });

  it('validates the create body and names the failing fields', async () => {
    const { owner } = await auth.newOrganization();
    const cases: Array<[unknown, string]> = [
      [{ environment: 'prod' }, 'name'],
      [{ name: 'x', environment: 'staging' }, 'environment'],
      [{ name: 'x', environment: 'prod', expires_in_days: 0 }, 'expires_in_days'],
      [{ name: 'x', environment: 'prod', expires_in_days: 1.5 }, 'expires_in_days'],
      [{ name: '   ', environment: 'prod' }, 'name'],
      [{ name: 'x', environment: 'prod', extra: true }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const r = await auth.call('POST', '/api/service-keys', { principal: owner, body });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('validation_error');
      expect(r.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await auth.call('POST', '/api/service-keys', { principal: owner, body: '{"name": ' })).status).toBe(400);
    expect((await auth.call('GET', '/api/service-keys', { principal: owner })).body.keys).toEqual([]);
  });

  it('adds usage reported concurrently without losing counts and keeps the latest last_used', async () => {
    const { owner } = await auth.newOrganization();
    const created = await auth.call('POST', '/api/service-keys', { principal: owner, body: { name: 'busy', environment: 'prod' } });
    const base = Date.now();
    const reports = Array.from({ length: 25 }, (_, i) =>
      auth.call('POST', '/internal/usage', { body: { usage: [{ key_id: created.body.id, count: 4, last_used: new Date(base + i * 1000).toISOString() }] } }),
    );
    expect((await Promise.all(reports)).every((r) => r.status === 204)).toBe(true);
    const [key] = (await auth.call('GET', '/api/service-keys', { principal: owner })).body.keys;
    expect(key.usage_count).toBe(100);
    expect(key.last_used).toBe(new Date(base + 24_000).toISOString());
  });

  it('refuses key management to members and to scoped keys without keys:manage', async () => {
    const { orgId } = await auth.newOrganization();
    const member = { org_id: orgId, sub: '00000000-0000-4000-8000-00000000000a', kind: 'session' as const, role: 'member' as const, scopes: [], plan: 'pro' as const };
    for (const principal of [member, keyPrincipal(orgId, ['test_cases:read'], 'api_key')]) {
      for (const [method, path] of [['GET', '/api/service-keys'], ['POST', '/api/service-keys'], ['GET', '/api/api-keys']] as const) {
        const r = await auth.call(method, path, { principal, ...(method === 'POST' ? { body: { name: 'x', environment: 'dev' } } : {}) });
        expect(r.status).toBe(403);
        expect(r.body.error).toBe('insufficient_permissions');
      }
    }
    expect((await auth.call('GET', '/api/service-keys', { principal: keyPrincipal(orgId, ['keys:manage'], 'api_key') })).status).toBe(200);
  });
});
