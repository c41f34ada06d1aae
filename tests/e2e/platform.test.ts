import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { PRINCIPAL_HEADER, signPrincipal } from '@assay/principal';
import { eventually } from '@assay/testing';
import { bearer, call, rawGet, type Reply } from './support/http.js';
import { provisionOrganization as provisionOrg } from './support/organizations.js';
import { launchForFile } from './support/launcher.js';

// The launcher, auth and the gateway as real processes on one fresh database,
// shared by every test in this file. Tests run in order: the organization's
// key count carries from one to the next, so each one revokes what it adds.
jest.setTimeout(120_000);

// Registered first so it runs first: jest runs afterAll hooks in order, and the
// pool must close before launchForFile drops the database.
afterAll(async () => {
  await pool?.end();
});
const launched = launchForFile();

const INVALID = { error: 'invalid_api_key', message: 'API key is invalid or expired' };
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

let pool: pg.Pool;
let orgId: string;
let session: string;
/** Every secret a test created; none may reach the launcher's output. */
const secrets: string[] = [];

const gw = (method: string, path: string, opts?: { headers?: Record<string, string>; body?: unknown }) => call(launched.assay.gatewayUrl, method, path, opts);
const asKey = (method: string, path: string, body?: unknown) => gw(method, path, { headers: bearer(launched.assay.serviceKey), body });

async function createServiceKey(body: Record<string, unknown>, credential = launched.assay.serviceKey): Promise<{ id: string; key: string; expires_at: string | null }> {
  const r = await gw('POST', '/api/service-keys', { headers: bearer(credential), body });
  if (r.status !== 201) throw new Error(`creating a key failed: ${r.status} ${JSON.stringify(r.body)}`);
  secrets.push(r.body.key);
  return r.body;
}

async function revokeServiceKey(id: string): Promise<Reply> {
  return asKey('DELETE', `/api/service-keys/${id}`);
}

/** A second organization (auth's internal API); its owner's password is a secret the logs must not show. */
async function provisionOrganization(name: string) {
  const org = await provisionOrg(launched.assay, name);
  secrets.push(org.password);
  return org;
}

async function login(email: string, password: string): Promise<string> {
  const r = await gw('POST', '/api/auth/login', { body: { email, password } });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${JSON.stringify(r.body)}`);
  secrets.push(r.body.token);
  return r.body.token;
}

const idsOf = (r: Reply) => (r.body.keys as Array<{ id: string }>).map((k) => k.id).sort();

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: launched.database.url, max: 2 });
  const me = await asKey('GET', '/api/auth/me');
  if (me.status !== 200) throw new Error(`the printed key does not work: ${JSON.stringify(me.body)}\n${launched.assay.output()}`);
  orgId = me.body.organization.id;
  session = await login(launched.assay.adminEmail, launched.assay.adminPassword);
});

describe('a launched Assay', () => {
  it('prints a dev service key that lists itself with its usage recorded', async () => {
    expect(launched.assay.serviceKey).toMatch(/^service_sk_dev_/);
    expect(launched.assay.serviceKey.slice('service_sk_dev_'.length)).toMatch(BASE58);
    expect(launched.assay.gatewayUrl).toBe(`http://localhost:${launched.assay.gatewayPort}`);

    const list = await asKey('GET', '/api/service-keys');
    expect(list.status).toBe(200);
    expect(list.body.keys).toHaveLength(1);
    const [self] = list.body.keys;
    expect(self).toEqual({
      id: expect.any(String),
      name: 'local bootstrap key',
      environment: 'dev',
      created_at: expect.any(String),
      expires_at: null,
      last_used: expect.any(String),
      usage_count: expect.any(Number),
    });
    // The gateway reports its counts before a listing, so the listing call itself is counted.
    expect(self.usage_count).toBeGreaterThanOrEqual(1);
    expect(Date.now() - Date.parse(self.last_used)).toBeLessThan(60_000);
    expect(JSON.stringify(list.body)).not.toContain(launched.assay.serviceKey);
  });

  it('creates a prod key that works at once, and refuses it within 5 s of its revocation', async () => {
    const created = await createServiceKey({ name: 'CI prod', environment: 'prod' });
    expect(created).toMatchObject({ name: 'CI prod', environment: 'prod', expires_at: null, last_used: null });
    expect(created.key).toMatch(/^service_sk_prod_/);

    const me = await gw('GET', '/api/auth/me', { headers: bearer(created.key) });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ organization: { id: orgId }, principal: { kind: 'service_key', sub: created.id, role: 'admin' } });
    expect(idsOf(await asKey('GET', '/api/service-keys'))).toContain(created.id);

    const revoked = await revokeServiceKey(created.id);
    const revokedAt = Date.now();
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: created.id, revoked_at: expect.any(String) });

    const refused = await eventually(async () => {
      const r = await gw('GET', '/api/auth/me', { headers: bearer(created.key) });
      return r.status === 401 ? r : undefined;
    }, 5000);
    expect(Date.now() - revokedAt).toBeLessThan(5000);
    expect(refused.body).toMatchObject(INVALID);
    expect(idsOf(await asKey('GET', '/api/service-keys'))).not.toContain(created.id);
  });

  it('refuses the 11th active key with 409 conflict and still lists exactly 10', async () => {
    const before = (await asKey('GET', '/api/service-keys')).body.keys.length as number;
    const added: string[] = [];
    try {
      for (let i = before; i < 10; i++) added.push((await createServiceKey({ name: `bulk ${i}`, environment: 'dev' })).id);
      const eleventh = await asKey('POST', '/api/service-keys', { name: 'one too many', environment: 'dev' });
      expect(eleventh.status).toBe(409);
      expect(eleventh.body).toMatchObject({ error: 'conflict', message: expect.stringMatching(/10 active service keys/) });
      expect(eleventh.body.key).toBeUndefined();
      const list = await asKey('GET', '/api/service-keys');
      expect(list.body.keys).toHaveLength(10);
      expect(list.body.keys.map((k: { name: string }) => k.name)).not.toContain('one too many');
    } finally {
      for (const id of added) await revokeServiceKey(id);
    }
    expect((await asKey('GET', '/api/service-keys')).body.keys).toHaveLength(before);
  });

  it('refuses an expired key with 401 invalid_api_key and drops it from the list', async () => {
    const created = await createServiceKey({ name: 'short lived', environment: 'prod', expires_in_days: 1 });
    expect(Date.parse(created.expires_at!) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect((await gw('GET', '/api/auth/me', { headers: bearer(created.key) })).status).toBe(200);

    const updated = await pool.query("UPDATE auth.keys SET expires_at = now() - interval '1 second' WHERE id = $1", [created.id]);
    expect(updated.rowCount).toBe(1);
    // The gateway may reuse its answer for up to AUTH_CACHE_TTL_MS (2 s by default).
    const refused = await eventually(async () => {
      const r = await gw('GET', '/api/service-keys', { headers: bearer(created.key) });
      return r.status === 401 ? r : undefined;
    }, 5000);
    expect(refused.body).toMatchObject(INVALID);
    expect(idsOf(await asKey('GET', '/api/service-keys'))).not.toContain(created.id);
  });

  it('logs the printed admin in with a session token that is not an sk_live_ key and acts as the owner', async () => {
    const r = await gw('POST', '/api/auth/login', { body: { email: launched.assay.adminEmail, password: launched.assay.adminPassword } });
    expect(r.status).toBe(200);
    secrets.push(r.body.token);
    expect(r.body.token.startsWith('sk_live_')).toBe(false);
    expect(r.body.token.split('.')).toHaveLength(3);
    expect(Date.parse(r.body.expires_at)).toBeGreaterThan(Date.now());

    const me = await gw('GET', '/api/auth/me', { headers: bearer(r.body.token) });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ organization: { id: orgId, status: 'active' }, principal: { kind: 'session', role: 'owner' } });

    const wrong = await gw('POST', '/api/auth/login', { body: { email: launched.assay.adminEmail, password: `${launched.assay.adminPassword}x` } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.token).toBeUndefined();
  });

  it('lets an sk_live_ key through x-api-key to /v1/projects, served by the test-case service for its own organization', async () => {
    const created = await gw('POST', '/api/api-keys', { headers: bearer(session), body: { name: 'MCP server' } });
    expect(created.status).toBe(201);
    secrets.push(created.body.key);
    expect(created.body.key).toMatch(/^sk_live_/);
    const apiKey = { 'x-api-key': created.body.key };

    // A project made over P1 with the printed service key shows up over P2 with the API key.
    const project = await asKey('POST', '/api/v1/projects', { name: 'Shop', base_url: 'https://shop.example.invalid' });
    expect(project.status).toBe(201);
    const projects = await gw('GET', '/v1/projects', { headers: apiKey });
    expect(projects.status).toBe(200);
    expect(projects.body).toEqual({
      data: [expect.objectContaining({ id: project.body.id, name: 'Shop', base_url: 'https://shop.example.invalid' })],
      pagination: { limit: 50, offset: 0, total: 1 },
    });
    expect((await gw('GET', '/api/projects', { headers: apiKey })).body.data.map((p: { id: string }) => p.id)).toEqual([project.body.id]);

    const anonymous = await gw('GET', '/v1/projects');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe('invalid_api_key');

    // The analysis service answers for an unknown execution once the caller is authenticated.
    const analysis = await gw('GET', '/api/v1/executions/x/failure-analysis', { headers: apiKey });
    expect(analysis.status).toBe(404);
    expect(analysis.body).toMatchObject({ error: 'not_found', message: 'Execution not found' });

    // The calls above were authenticated, so the key's usage was recorded in auth.
    const list = await gw('GET', '/api/api-keys', { headers: bearer(session) });
    const mine = list.body.keys.find((k: { id: string }) => k.id === created.body.id);
    expect(mine).toMatchObject({ name: 'MCP server', scopes: [], usage_count: 3, last_used: expect.any(String) });
    expect((await gw('DELETE', `/api/api-keys/${created.body.id}`, { headers: bearer(session) })).status).toBe(200);
  });

  it('ignores a forged x-assay-principal signed with the real internal secret', async () => {
    const other = await provisionOrganization('Forgery target');
    const otherSession = await login(other.email, other.password);
    const theirs = await createServiceKey({ name: 'their key', environment: 'prod' }, otherSession);
    const forged = await signPrincipal(launched.assay.internalSecret, { org_id: other.orgId, sub: other.ownerId, kind: 'session', role: 'owner', scopes: [], plan: 'growth' });

    const honest = await asKey('GET', '/api/service-keys');
    const withForgery = await gw('GET', '/api/service-keys', { headers: { ...bearer(launched.assay.serviceKey), [PRINCIPAL_HEADER]: forged } });
    expect(withForgery.status).toBe(200);
    expect(idsOf(withForgery)).toEqual(idsOf(honest));
    expect(idsOf(withForgery)).not.toContain(theirs.id);
    const me = await gw('GET', '/api/auth/me', { headers: { ...bearer(launched.assay.serviceKey), [PRINCIPAL_HEADER]: forged } });
    expect(me.body.organization.id).toBe(orgId);
    // The test-case service, too, sees the caller's organization, not the forged one.
    const projects = await gw('GET', '/api/v1/projects', { headers: { ...bearer(launched.assay.serviceKey), [PRINCIPAL_HEADER]: forged } });
    expect(projects.body.data.map((p: { name: string }) => p.name)).toEqual(['Shop']);

    for (const path of ['/api/service-keys', '/api/auth/me', '/api/v1/projects']) {
      const anonymous = await gw('GET', path, { headers: { [PRINCIPAL_HEADER]: forged } });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error).toBe('invalid_api_key');
    }
  });

  it('keeps a second organization away from the first one’s keys', async () => {
    const mine = await createServiceKey({ name: 'tenant A key', environment: 'prod' });
    const other = await provisionOrganization('Tenant B');
    const otherSession = await login(other.email, other.password);
    const otherMe = await gw('GET', '/api/auth/me', { headers: bearer(otherSession) });
    expect(otherMe.body).toMatchObject({ organization: { id: other.orgId, name: 'Tenant B', plan: 'growth' }, principal: { role: 'owner' } });

    const seen = await gw('GET', '/api/service-keys', { headers: bearer(otherSession) });
    expect(seen.status).toBe(200);
    expect(seen.body.keys).toEqual([]);
    const revoke = await gw('DELETE', `/api/service-keys/${mine.id}`, { headers: bearer(otherSession) });
    expect(revoke.status).toBe(404);
    expect(revoke.body.error).toBe('not_found');

    // B's own key acts for B only; A's key still works and still acts for A.
    const theirs = await createServiceKey({ name: 'tenant B key', environment: 'dev' }, otherSession);
    expect(idsOf(await gw('GET', '/api/service-keys', { headers: bearer(theirs.key) }))).toEqual([theirs.id]);
    expect((await gw('DELETE', `/api/service-keys/${mine.id}`, { headers: bearer(theirs.key) })).status).toBe(404);
    const stillMine = await gw('GET', '/api/auth/me', { headers: bearer(mine.key) });
    expect(stillMine.status).toBe(200);
    expect(stillMine.body.organization.id).toBe(orgId);
    expect(idsOf(await asKey('GET', '/api/service-keys'))).toContain(mine.id);
    expect(idsOf(await asKey('GET', '/api/service-keys'))).not.toContain(theirs.id);
    const theirProjects = await gw('GET', '/api/v1/projects', { headers: bearer(theirs.key) });
    expect(theirProjects.status).toBe(200);
    expect(theirProjects.body.data).toEqual([]);

    expect((await revokeServiceKey(mine.id)).status).toBe(200);
  });

  it('answers 404 JSON for unknown paths, even with dot segments sent raw', async () => {
    const unknown = await gw('GET', '/no/such/path', { headers: bearer(launched.assay.serviceKey) });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/application\/json/);
    expect(unknown.body).toMatchObject({ error: 'not_found', message: expect.stringContaining('/no/such/path') });
    expect((await gw('GET', '/no/such/path')).body).toMatchObject({ error: 'not_found' });

    const traversal = await rawGet(launched.assay.gatewayUrl, '/api/v1/test-cases/../../service-keys');
    expect(traversal.status).toBe(404);
    expect(traversal.contentType).toMatch(/application\/json/);
    expect(JSON.parse(traversal.body)).toMatchObject({ error: 'not_found' });
  });

  it('serves the OpenAPI document and the reference page without a credential, pointing at this gateway', async () => {
    const doc = await gw('GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(doc.body.servers).toEqual([{ url: launched.assay.gatewayUrl }]);
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/api/service-keys', '/api/auth/login', '/api/api-keys']));

    const page = await gw('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.body).toContain('/docs/assets/swagger-ui-bundle.js');
  });

  it('prints no secret except the bootstrap lines', async () => {
    const output = launched.assay.output();
    expect(secrets.length).toBeGreaterThanOrEqual(15);
    for (const secret of secrets) expect(output).not.toContain(secret);
    const homeSecrets = (await readFile(path.join(launched.assay.home, 'secrets.env'), 'utf8')).match(/=(.+)$/gm) ?? [];
    expect(homeSecrets.map((s) => s.slice(1))).toEqual(expect.arrayContaining([launched.assay.internalSecret]));
    for (const s of homeSecrets) expect(output).not.toContain(s.slice(1));
    // The printed key and password appear exactly once each: in their bootstrap line.
    expect(output.split(launched.assay.serviceKey)).toHaveLength(2);
    expect(output).toContain(`\nASSAY_SERVICE_KEY=${launched.assay.serviceKey}\n`);
    expect(output.split(launched.assay.adminPassword)).toHaveLength(2);
    expect(output).toContain(`\nASSAY_ADMIN_PASSWORD=${launched.assay.adminPassword}\n`);
    // It did log the calls, so the check above had something to look at.
    expect(output).toMatch(/"url":"\/api\/service-keys"/);
  });
});
