import { Router } from 'express';
import { createSilentLogger } from '@assay/logger';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal, type Principal } from '@assay/principal';
import { listen, TEST_INTERNAL_SECRET, type TestServer } from '@assay/testing';
import { actingOrgId, createServiceApp, orgPrincipal, requireServicePrincipal } from './index.js';

const session: Principal = { org_id: 'org_1', sub: 'user_1', kind: 'session', role: 'owner', scopes: [], plan: 'pro' };

interface Ctx {
  greeting: string;
  logger: ReturnType<typeof createSilentLogger>;
}

// Two routers of a service's list: both see the context, in the order given.
// The context a router gets holds neither the secret nor the readiness checks.
const hello = (ctx: Ctx) => Router().get('/hello', (_req, res) => void res.json({ greeting: ctx.greeting, keys: Object.keys(ctx).sort(), org: orgPrincipal(res).org_id }));
const shadowed = (_ctx: Ctx) => Router().get('/hello', (_req, res) => void res.json({ greeting: 'the second router' }));
const big = (_ctx: Ctx) => Router().post('/echo', (req, res) => void res.json(req.body));
const internal = (_ctx: Ctx) => Router().get('/internal/org', requireServicePrincipal, (_req, res) => void res.json({ org: actingOrgId(res) }));

let server: TestServer;

beforeAll(async () => {
  server = await listen(
    createServiceApp<Ctx>(
      { greeting: 'hi', logger: createSilentLogger(), internalTokenSecret: TEST_INTERNAL_SECRET, ready: async () => ({ database: false }) },
      { name: 'test-service', bodyLimit: '1kb', routers: [hello, shadowed, big, internal] },
    ),
  );
});

afterAll(async () => {
  await server.close();
});

describe('createServiceApp', () => {
  it('serves the routers of the list with the context, to a caller whose principal the gateway signed', async () => {
    const res = await fetch(`${server.url}/hello`, { headers: { [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, session) } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ greeting: 'hi', keys: ['greeting', 'logger'], org: 'org_1' });
  });

  it('answers 401 invalid_api_key to a request without a principal, or with one signed by another secret', async () => {
    const bare = await fetch(`${server.url}/hello`);
    expect(bare.status).toBe(401);
    expect(await bare.json()).toMatchObject({ error: 'invalid_api_key' });
    const forged = await fetch(`${server.url}/hello`, { headers: { [PRINCIPAL_HEADER]: await signPrincipal('another-secret-of-32-characters!!', session) } });
    expect(forged.status).toBe(401);
  });

  it('keeps the options of createHttpApp: the body limit, the health routes and the readiness checks', async () => {
    const headers = { 'content-type': 'application/json', [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, session) };
    const small = await fetch(`${server.url}/echo`, { method: 'POST', headers, body: JSON.stringify({ a: 1 }) });
    expect(await small.json()).toEqual({ a: 1 });
    const large = await fetch(`${server.url}/echo`, { method: 'POST', headers, body: JSON.stringify({ a: 'x'.repeat(2000) }) });
    expect(large.status).toBe(413);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    // The checks passed in deps answer /readyz: a database that is down makes the service not ready.
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
  });

  it('tells the organization an internal call acts for, and refuses one that names none with 403', async () => {
    const acting = await fetch(`${server.url}/internal/org`, { headers: { [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, { ...servicePrincipal('analysis'), org_id: 'org_7' }) } });
    expect(await acting.json()).toEqual({ org: 'org_7' });
    const none = await fetch(`${server.url}/internal/org`, { headers: { [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, servicePrincipal('analysis')) } });
    expect(none.status).toBe(403);
    expect(await none.json()).toMatchObject({ error: 'insufficient_permissions', message: 'Internal calls must name the organization they act for' });
  });
});
