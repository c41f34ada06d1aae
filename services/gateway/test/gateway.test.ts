import net from 'node:net';
import { Agent } from 'undici';
import { ROUTES, type RouteContract } from '@assay/contracts';
import { PgBus, startOutboxRelay, type OutboxRelay } from '@assay/bus';
import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { createSilentLogger } from '@assay/logger';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import {
  bearer,
  call as callUrl,
  createTestDatabase,
  eventually,
  freePortForTests,
  listen,
  rawGet,
  TEST_INTERNAL_SECRET,
  type TestDatabase,
  type TestServer,
} from '@assay/testing';
import { buildApp as buildAuthApp } from '../../auth/src/app.js';
import { migrations as authMigrations } from '../../auth/src/db/migrations/index.js';
import { buildApp as buildTestCaseApp } from '../../test-case/src/app.js';
import { migrations as testCaseMigrations } from '../../test-case/src/db/migrations/index.js';
import { buildApp } from '../src/app.js';
import { Authenticator } from '../src/auth/authenticator.js';
import { subscribeToAuthEvents } from '../src/auth/eviction.js';
import type { UpstreamName } from '../src/config.js';

// The gateway in front of a real auth service (its express app on a real port and a real database).
const logger = createSilentLogger();
let testDb: TestDatabase;
let authDb: Database<any>;
let authServer: TestServer;
let testCaseDb: Database<any>;
let testCaseServer: TestServer;
let relay: OutboxRelay;
const buses: PgBus[] = [];
const closers: Array<() => Promise<unknown>> = [];

interface Gateway {
  url: string;
  authenticator: Authenticator;
}

async function startGateway(opts: { upstreams?: Partial<Record<UpstreamName, string>>; cacheTtlMs?: number; rateLimits?: boolean; routes?: readonly RouteContract[] } = {}): Promise<Gateway> {
  const dispatcher = new Agent({ connect: { timeout: 1000 } });
  const authenticator = new Authenticator({
    authUrl: authServer.url,
    internalTokenSecret: TEST_INTERNAL_SECRET,
    cacheTtlMs: opts.cacheTtlMs ?? 2000,
    usageFlushMs: 60_000,
    dispatcher,
    logger,
  });
  const bus = new PgBus({ connectionString: testDb.url, logger });
  await bus.start();
  buses.push(bus);
  const sub = await subscribeToAuthEvents(bus, authenticator);
  const app = buildApp({
    logger,
    authenticator,
    dispatcher,
    upstreams: opts.upstreams ?? { auth: authServer.url },
    internalTokenSecret: TEST_INTERNAL_SECRET,
    publicBaseUrl: 'http://localhost:8080',
    rateLimitsEnabled: opts.rateLimits ?? false,
    upstreamResponseTimeoutMs: 10_000,
    ...(opts.routes ? { routes: opts.routes } : {}),
  });
  const server = await listen(app);
  closers.push(() => server.close(), () => sub.close(), () => authenticator.close(), () => dispatcher.close());
  return { url: server.url, authenticator };
}

async function provision(plan: 'starter' | 'growth' | 'pro' = 'pro') {
  const email = `o${Date.now()}${Math.random().toString(36).slice(2, 6)}@example.test`;
  const password = 'a long enough password';
  const res = await fetch(`${authServer.url}/internal/organizations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, servicePrincipal('test')) },
    body: JSON.stringify({ name: 'org', plan, owner: { email, name: 'Owner', password } }),
  });
  const body = (await res.json()) as { organization: { id: string } };
  return { orgId: body.organization.id, email, password };
}

const call = (gw: Gateway, method: string, path: string, opts: { headers?: Record<string, string>; body?: unknown } = {}) =>
  callUrl(gw.url, method, path, opts);


/** Logs in through the gateway and creates a service key; returns both credentials. */
async function credentials(gw: Gateway, plan: 'starter' | 'growth' | 'pro' = 'pro', environment: 'prod' | 'dev' = 'prod') {
  const org = await provision(plan);
  const login = await call(gw, 'POST', '/api/auth/login', { body: { email: org.email, password: org.password } });
  const key = await call(gw, 'POST', '/api/service-keys', { headers: bearer(login.body.token), body: { name: 'k', environment } });
  return { ...org, session: login.body.token as string, key: key.body.key as string, keyId: key.body.id as string };
}

beforeAll(async () => {
  testDb = await createTestDatabase();
  authDb = createDatabase({ connectionString: testDb.url, schema: 'auth' });
  await migrateToLatest(authDb, authMigrations);
  const authApp = buildAuthApp({
    db: authDb.db,
    schema: 'auth',
    logger,
    internalTokenSecret: TEST_INTERNAL_SECRET,
    session: { secret: 'gateway-test-session-secret-0123456789', ttlSeconds: 3600 },
  });
  authServer = await listen(authApp);
  const relayBus = new PgBus({ connectionString: testDb.url, logger });
  await relayBus.start();
  buses.push(relayBus);
  relay = startOutboxRelay({ db: authDb.db, listen: authDb.pool, schema: 'auth', bus: relayBus, logger, intervalMs: 200 });
  testCaseDb = createDatabase({ connectionString: testDb.url, schema: 'testcase' });
  await migrateToLatest(testCaseDb, testCaseMigrations);
  testCaseServer = await listen(buildTestCaseApp({ db: testCaseDb.db, schema: 'testcase', logger, internalTokenSecret: TEST_INTERNAL_SECRET }));
});

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await relay.stop();
  for (const b of buses) await b.stop();
  await authServer.close();
  await testCaseServer.close();
  await testCaseDb.close();
  await authDb.close();
  await testDb.drop();
});

describe('gateway', () => {
  it('answers 404 JSON for unknown paths, even without a credential', async () => {
    const gw = await startGateway();
    for (const path of ['/nope', '/api/v2/test-cases', '/internal/authenticate']) {
      const r = await call(gw, 'GET', path);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ error: 'not_found' });
    }
    // fetch() normalises dot segments; send them raw as an attacker would.
    for (const path of ['/api/v1/test-cases/../../service-keys', '/api/v1/test-cases/%2e%2e/%2E%2E/service-keys', '/api/v1/test-cases/..%2fx']) {
      const r = await rawGet(gw.url, path);
      expect(r.status).toBe(404);
      expect(JSON.parse(r.body)).toMatchObject({ error: 'not_found' });
    }
  });

  it('asks for a credential with 401 invalid_api_key in every malformed form', async () => {
    const gw = await startGateway();
    const cases: Array<Record<string, string>> = [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer' }, { 'x-api-key': 'service_sk_prod_x' }, bearer('service_sk_prod_unknownunknownunknownunknownunknownunknown1')];
    for (const headers of cases) {
      const r = await call(gw, 'GET', '/api/service-keys', { headers });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('invalid_api_key');
    }
  });

  it('answers 501 for a service that is not built, after authenticating', async () => {
    const gw = await startGateway();
    const { key } = await credentials(gw);
    for (const path of ['/api/v1/test-cases?project_id=p', '/api/v1/executions/x/failure-analysis', '/v1/projects', '/api/projects', '/api/v1/discovery', '/api/v1/webhooks']) {
      const r = await call(gw, 'GET', path, { headers: bearer(key) });
      expect(r.status).toBe(501);
      expect(r.body.error).toBe('not_implemented');
      expect(r.body.message).toMatch(/service is not part of this deployment yet/);
    }
    expect((await call(gw, 'GET', '/v1/projects')).status).toBe(401);
  });

  it('answers 503 JSON within 5 s when a service is down', async () => {
    const deadPort = await freePortForTests();
    const gw = await startGateway({ upstreams: { auth: authServer.url, 'test-case': `http://127.0.0.1:${deadPort}` } });
    const { key } = await credentials(gw);
    const started = Date.now();
    const r = await call(gw, 'GET', '/api/v1/test-cases?project_id=x', { headers: bearer(key) });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ error: 'service_unavailable', message: expect.stringMatching(/test-case service is unavailable/) });
  });

  it('sends a bodiless idempotent request again when its connection to a stopping replica is lost before an answer; a POST it does not', async () => {
    // test-case behind a Service-like relay; `resetNext` requests meet a replica that is stopping: the request is
    // taken and its connection reset without an answer (a kept-alive connection closed just as a request went out).
    let resetNext = 0;
    let connections = 0;
    const relay = net.createServer((client) => {
      connections++;
      const upstream = net.connect(Number(new URL(testCaseServer.url).port), '127.0.0.1');
      client.on('data', (chunk) => {
        if (resetNext > 0) {
          resetNext--;
          upstream.destroy();
          client.resetAndDestroy();
          return;
        }
        upstream.write(chunk);
      });
      upstream.pipe(client);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', () => r()));
    closers.push(() => new Promise((r) => relay.close(r)));
    const gw = await startGateway({ upstreams: { auth: authServer.url, 'test-case': `http://127.0.0.1:${(relay.address() as net.AddressInfo).port}` } });
    const { key } = await credentials(gw);
    const direct = await call(gw, 'GET', '/api/v1/projects', { headers: bearer(key) });
    expect(direct.status).toBe(200);

    resetNext = 1;
    const before = connections;
    const listed = await call(gw, 'GET', '/api/v1/projects', { headers: bearer(key) });
    expect({ status: listed.status, body: listed.body }).toEqual({ status: 200, body: direct.body });
    // Sent again on a connection of its own.
    expect(connections - before).toBe(1);

    resetNext = 1;
    const created = await call(gw, 'POST', '/api/v1/projects', { headers: bearer(key), body: { name: 'not sent twice' } });
    expect(created.status).toBe(503);
    expect(created.body).toMatchObject({ error: 'service_unavailable', message: expect.stringMatching(/test-case service is unavailable/) });
    const after = await call(gw, 'GET', '/api/v1/projects', { headers: bearer(key) });
    expect(JSON.stringify(after.body)).not.toContain('not sent twice');
  });

  it('answers 503 when auth itself is down', async () => {
    const deadPort = await freePortForTests();
    const dispatcher = new Agent({ connect: { timeout: 1000 } });
    const authenticator = new Authenticator({ authUrl: `http://127.0.0.1:${deadPort}`, internalTokenSecret: TEST_INTERNAL_SECRET, cacheTtlMs: 0, usageFlushMs: 60_000, dispatcher, logger });
    const app = buildApp({ logger, authenticator, dispatcher, upstreams: { auth: `http://127.0.0.1:${deadPort}` }, internalTokenSecret: TEST_INTERNAL_SECRET, publicBaseUrl: 'http://x', rateLimitsEnabled: false, upstreamResponseTimeoutMs: 5000 });
    const server = await listen(app);
    closers.push(() => server.close(), () => authenticator.close(), () => dispatcher.close());
    const r = await call({ url: server.url, authenticator }, 'GET', '/api/service-keys', { headers: bearer('service_sk_prod_x') });
    expect(r.status).toBe(503);
    expect(r.body.error).toBe('service_unavailable');
  });

  it('replaces a forged x-assay-principal: the caller acts only as its own credential', async () => {
    const gw = await startGateway();
    const a = await credentials(gw);
    const b = await credentials(gw);
    const forged = await signPrincipal(TEST_INTERNAL_SECRET, { org_id: b.orgId, sub: 'x', kind: 'service_key', role: 'owner', scopes: [], plan: 'pro' });
    const list = await call(gw, 'GET', '/api/service-keys', { headers: { ...bearer(a.key), [PRINCIPAL_HEADER]: forged } });
    expect(list.status).toBe(200);
    expect(list.body.keys.map((k: { id: string }) => k.id)).toEqual([a.keyId]);
    const anonymous = await call(gw, 'GET', '/api/service-keys', { headers: { [PRINCIPAL_HEADER]: forged } });
    expect(anonymous.status).toBe(401);
  });

  it('evicts a revoked key from its cache through the bus, well before the cache would expire', async () => {
    const gw = await startGateway({ cacheTtlMs: 60_000 });
    const other = await startGateway({ cacheTtlMs: 60_000 });
    const { key, keyId, session } = await credentials(gw);
    expect((await call(gw, 'GET', '/api/auth/me', { headers: bearer(key) })).status).toBe(200);
    expect((await call(other, 'GET', '/api/auth/me', { headers: bearer(key) })).status).toBe(200);
    const revokedAt = Date.now();
    expect((await call(gw, 'DELETE', `/api/service-keys/${keyId}`, { headers: bearer(session) })).status).toBe(200);
    for (const replica of [gw, other]) {
      await eventually(async () => (await call(replica, 'GET', '/api/auth/me', { headers: bearer(key) })).status === 401, 5000);
    }
    expect(Date.now() - revokedAt).toBeLessThan(5000);
  });

  it('passes the refresh cookie to the refresh route alone, auth’s Set-Cookie back, and ends a signed-out session on every replica at once', async () => {
    const gw = await startGateway({ cacheTtlMs: 60_000 });
    const other = await startGateway({ cacheTtlMs: 60_000 });
    const org = await provision();
    const login = await fetch(`${gw.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: org.email, password: org.password }) });
    const cookie = /^(__Secure-assay_refresh=rt_[^;]+)/.exec(login.headers.getSetCookie()[0] ?? '')?.[1];
    expect(cookie).toBeDefined();
    const token = ((await login.json()) as { token: string }).token;
    // No bearer needed: the cookie is the credential; other cookies of the caller stay behind.
    const refreshed = await fetch(`${gw.url}/api/auth/refresh`, { method: 'POST', headers: { cookie: `theme=dark; ${cookie}; other=1`, 'x-assay-refresh': '1' } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.getSetCookie()[0]).toMatch(/^__Secure-assay_refresh=rt_.*; Path=\/api\/auth\/refresh; HttpOnly; Secure; SameSite=Strict$/);
    // The cookie on any other route is dropped: it authenticates nothing there.
    expect((await fetch(`${gw.url}/api/auth/me`, { headers: { cookie: cookie! } })).status).toBe(401);
    expect((await fetch(`${gw.url}/api/auth/refresh`, { method: 'POST', headers: { 'x-assay-refresh': '1' } })).status).toBe(401);

    for (const replica of [gw, other]) expect((await call(replica, 'GET', '/api/auth/me', { headers: bearer(token) })).status).toBe(200);
    const out = await call(gw, 'POST', '/api/auth/logout', { headers: bearer(token), body: {} });
    expect(out.status).toBe(200);
    for (const replica of [gw, other]) {
      await eventually(async () => (await call(replica, 'GET', '/api/auth/me', { headers: bearer(token) })).status === 401, 5000);
    }
  });

  it('counts every call of a key, cached or not, in usage_count and last_used', async () => {
    const gw = await startGateway({ cacheTtlMs: 60_000 });
    const { key, keyId } = await credentials(gw);
    await Promise.all(Array.from({ length: 12 }, () => call(gw, 'GET', '/api/auth/me', { headers: bearer(key) })));
    const list = await call(gw, 'GET', '/api/service-keys', { headers: bearer(key) });
    const mine = list.body.keys.find((k: { id: string }) => k.id === keyId);
    expect(mine.usage_count).toBe(13); // 12 calls and the listing itself
    expect(Date.now() - Date.parse(mine.last_used)).toBeLessThan(10_000);
  });

  it('accepts sk_live_ keys as x-api-key or Bearer and enforces their scopes', async () => {
    const gw = await startGateway();
    const { session } = await credentials(gw);
    const scoped = await call(gw, 'POST', '/api/api-keys', { headers: bearer(session), body: { name: 'read only', scopes: ['projects:read'] } });
    const full = await call(gw, 'POST', '/api/api-keys', { headers: bearer(session), body: { name: 'full' } });
    expect((await call(gw, 'GET', '/v1/projects', { headers: { 'x-api-key': scoped.body.key } })).status).toBe(501);
    expect((await call(gw, 'GET', '/v1/projects', { headers: bearer(scoped.body.key) })).status).toBe(501);
    const write = await call(gw, 'POST', '/api/v1/projects', { headers: { 'x-api-key': scoped.body.key }, body: {} });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ error: 'insufficient_permissions', message: expect.stringContaining('projects:write') });
    const keys = await call(gw, 'GET', '/api/service-keys', { headers: { 'x-api-key': scoped.body.key } });
    expect(keys.status).toBe(403);
    expect((await call(gw, 'GET', '/api/service-keys', { headers: { 'x-api-key': full.body.key } })).status).toBe(200);
  });

  it('limits requests per key by plan with X-RateLimit headers and a 429 carrying Retry-After', async () => {
    const gw = await startGateway({ rateLimits: true });
    const { key } = await credentials(gw, 'starter', 'dev'); // starter: 30/min, dev keys half: 15
    const first = await call(gw, 'GET', '/api/auth/me', { headers: bearer(key) });
    expect(first.headers.get('x-ratelimit-limit')).toBe('15');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('14');
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    for (let i = 0; i < 14; i++) await call(gw, 'GET', '/api/auth/me', { headers: bearer(key) });
    const limited = await call(gw, 'GET', '/api/auth/me', { headers: bearer(key) });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: 'rate_limit_exceeded', retry_after: expect.any(Number) });
    expect(Number(limited.headers.get('retry-after'))).toBe(limited.body.retry_after);
    expect(limited.body.retry_after).toBeGreaterThan(0);
    expect(limited.body.retry_after).toBeLessThanOrEqual(60);
  });

  it('serves the OpenAPI document and the reference page without a credential', async () => {
    const gw = await startGateway();
    const doc = await call(gw, 'GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/api/service-keys', '/api/service-keys/{key_id}', '/api/auth/login', '/api/api-keys']));
    expect(doc.body.paths['/api/service-keys'].post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/ServiceKeyCreateRequest');
    expect(doc.body.components.schemas.ServiceKeyCreateRequest.properties.environment.enum).toEqual(['prod', 'dev']);
    // The page renders this document in the browser (test/clients.test.ts drives it in Chromium).
    const page = await call(gw, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.body).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(page.body).toContain('href="/api/v1/openapi.json"');
  });

  it('serves exactly the route catalogue: an entry removed from it answers 404, its neighbours and aliases still go through', async () => {
    const removed = ROUTES.find((r) => r.method === 'POST' && r.path === '/api/v1/test-cases/bulk-delete')!;
    const gw = await startGateway({ upstreams: { auth: authServer.url, 'test-case': testCaseServer.url }, routes: ROUTES.filter((r) => r !== removed) });
    const { key } = await credentials(gw);
    for (const path of ['/api/v1/test-cases/bulk-delete', '/api/test-cases/bulk-delete']) {
      const gone = await call(gw, 'POST', path, { headers: bearer(key), body: { ids: ['tc_1'] } });
      expect(gone.status).toBe(404);
      expect(gone.body).toMatchObject({ error: 'not_found', message: `No route for POST ${path}` });
    }
    // The same call through the whole catalogue reaches the test-case service, which validates the body.
    const full = await startGateway({ upstreams: { auth: authServer.url, 'test-case': testCaseServer.url } });
    const served = await call(full, 'POST', '/api/test-cases/bulk-delete', { headers: bearer(key), body: {} });
    expect(served.status).toBe(400);
    expect(served.body.error).toBe('validation_error');
    // A method the catalogue does not name for a known path is 404 too, before any credential is asked for.
    expect((await call(gw, 'PATCH', '/api/v1/test-cases')).status).toBe(404);
    // Its neighbour, through the alias: the test-case service answers (its own 404 for an unknown id).
    const neighbour = await call(gw, 'GET', '/api/test-cases/tc_none', { headers: bearer(key) });
    expect(neighbour.status).toBe(404);
    expect(neighbour.body.error).toBe('not_found');
    expect(neighbour.body.message).not.toMatch(/^No route/);
  });

  it('passes bodies and service errors through unchanged', async () => {
    const gw = await startGateway();
    const { session } = await credentials(gw);
    const bad = await call(gw, 'POST', '/api/service-keys', { headers: bearer(session), body: { name: 'x', environment: 'qa' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ field: 'environment', message: 'must be one of prod, dev' }]);
    const res = await fetch(`${gw.url}/api/service-keys`, { method: 'POST', headers: { ...bearer(session), 'content-type': 'text/plain' }, body: 'hello' });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: string }).error).toBe('unsupported_media_type');
  });
});

describe('plans, quotas and the test-case rate limit', () => {
  const setPlan = async (orgId: string, plan: string) => {
    const res = await fetch(`${authServer.url}/internal/organizations/${orgId}/billing`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, servicePrincipal('test')) },
      body: JSON.stringify({ plan }),
    });
    expect(res.status).toBe(200);
  };

  it('refuses every API call of a plan without API access with 403, but keeps the account routes open', async () => {
    const gw = await startGateway({ upstreams: { auth: authServer.url, 'test-case': testCaseServer.url } });
    const { orgId, key, session } = await credentials(gw, 'growth');
    expect((await call(gw, 'GET', '/api/v1/projects', { headers: bearer(key) })).status).toBe(200);
    await setPlan(orgId, 'free');
    // The plan change evicts the cached answer through the bus: no wait for the cache to expire.
    const refused = await eventually(async () => {
      const r = await call(gw, 'GET', '/api/v1/projects', { headers: bearer(key) });
      return r.status === 403 ? r : undefined;
    }, 5000);
    expect(refused.body).toMatchObject({ error: 'insufficient_permissions', message: 'plan lacks access to the resource', details: { plan: 'free', api_access: false } });
    for (const [method, path] of [['POST', '/api/v1/executions'], ['GET', '/api/service-keys'], ['GET', '/v1/projects'], ['POST', '/api/v1/discovery/start']] as const) {
      const r = await call(gw, method, path, { headers: bearer(session), ...(method === 'POST' ? { body: {} } : {}) });
      expect({ path, status: r.status, error: r.body.error }).toEqual({ path, status: 403, error: 'insufficient_permissions' });
    }
    const org = await call(gw, 'GET', '/api/organizations/current', { headers: bearer(session) });
    expect(org).toMatchObject({ status: 200, body: { plan: 'free' } });
    expect((await call(gw, 'GET', '/api/organizations/current/usage', { headers: bearer(key) })).status).toBe(200);
  });

  it('refuses new executions once a quota is used up, naming it and when it resets, and lets other calls through', async () => {
    const gw = await startGateway({ upstreams: { auth: authServer.url, 'test-case': testCaseServer.url } });
    const { orgId, key } = await credentials(gw, 'starter');
    const now = new Date();
    await authDb.db.insertInto('usage_counters').values({ org_id: orgId, period: now.toISOString().slice(0, 7), quota: 'browser_minutes', amount: String(1000 * 60) }).execute();
    const resetsAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    for (const path of ['/api/v1/executions', '/api/v1/executions/async', '/api/executions']) {
      const r = await call(gw, 'POST', path, { headers: bearer(key), body: { test_plan_id: 'x', project_id: 'y' } });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({
        error: 'insufficient_permissions',
        message: `Monthly quota of browser minutes exceeded (1000 of 1000 minutes); new executions are refused until it resets at ${resetsAt}`,
        details: { quota: 'browser_minutes', used: 1000, limit: 1000, unit: 'minutes', resets_at: resetsAt },
      });
    }
    // Discovery has its own quota; reads and other work go on.
    expect((await call(gw, 'POST', '/api/v1/discovery/start', { headers: bearer(key), body: {} })).status).toBe(501);
    expect((await call(gw, 'GET', '/api/v1/executions?project_id=x', { headers: bearer(key) })).status).toBe(501);
    expect((await call(gw, 'GET', '/api/v1/projects', { headers: bearer(key) })).status).toBe(200);
  });

  it('counts the test-case endpoints in a minute bucket of their own, and a bulk delete as one request', async () => {
    const gw = await startGateway({ rateLimits: true, upstreams: { auth: authServer.url, 'test-case': testCaseServer.url } });
    const { key } = await credentials(gw, 'starter', 'dev'); // Starter test-case endpoints: 30/min; dev keys half: 15
    const project = await call(gw, 'POST', '/api/v1/projects', { headers: bearer(key), body: { name: 'p', base_url: 'http://shop.test' } });
    expect(project.status).toBe(201);
    expect(project.headers.get('x-ratelimit-remaining')).toBe('14'); // the general minute bucket
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const tc = await call(gw, 'POST', '/api/v1/test-cases', { headers: bearer(key), body: { project_id: project.body.id, name: `c${i}`, steps: [{ action: 'navigate', value: '/' }] } });
      expect(tc.status).toBe(201);
      expect(tc.headers.get('x-ratelimit-limit')).toBe('15');
      expect(tc.headers.get('x-ratelimit-remaining')).toBe(String(14 - i));
      ids.push(tc.body.id);
    }
    // One bulk delete of 1,000 ids (five real ones) is one request.
    const bulkIds = [...ids, ...Array.from({ length: 995 }, () => crypto.randomUUID())];
    const bulk = await call(gw, 'POST', '/api/v1/test-cases/bulk-delete', { headers: bearer(key), body: { test_case_ids: bulkIds, soft_delete: true } });
    expect(bulk.status).toBe(200);
    expect(bulk.body).toMatchObject({ deleted: 5, failed: 995 });
    expect(bulk.headers.get('x-ratelimit-remaining')).toBe('9');
    for (let i = 0; i < 9; i++) expect((await call(gw, 'GET', `/api/v1/test-cases?project_id=${project.body.id}`, { headers: bearer(key) })).status).toBe(200);
    const limited = await call(gw, 'GET', `/api/v1/test-cases?project_id=${project.body.id}`, { headers: bearer(key) });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: 'rate_limit_exceeded', message: 'Rate limit of 15 requests per minute to the test-case endpoints exceeded', retry_after: expect.any(Number) });
    expect(Number(limited.headers.get('retry-after'))).toBe(limited.body.retry_after);
    // Other endpoints still have their own minute: 15 - 1 (the project) = 14 left before this call.
    const other = await call(gw, 'GET', '/api/v1/projects', { headers: bearer(key) });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('13');
  });
});
