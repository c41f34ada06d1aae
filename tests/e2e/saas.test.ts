import Stripe from 'stripe';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import { eventually } from '@assay/testing';
import { startShop } from '../fixtures/shop/server.js';
import { bearer, call } from './support/http.js';
import { launchForFile } from './support/launcher.js';

// The SaaS layer through make run's real processes: members and invitations, metering of a real
// execution, a schedule that fires on the real clock, a Stripe webhook through the gateway, and
// the gateway counting rate limits in the redis-server the launcher started.
jest.setTimeout(240_000);

const STRIPE_SECRET = 'whsec_e2e_0123456789abcdefghijklmnopqrstu';
const launched = launchForFile({ env: { STRIPE_WEBHOOK_SECRET: STRIPE_SECRET } });
let shop: Awaited<ReturnType<typeof startShop>>;

const gw = (method: string, path: string, body?: unknown, credential = launched.assay.serviceKey) =>
  call(launched.assay.gatewayUrl, method, path, { headers: bearer(credential), ...(body !== undefined ? { body } : {}) });

async function plan() {
  const project = await gw('POST', '/api/v1/projects', { name: 'Shop', base_url: shop.url });
  const tc = await gw('POST', '/api/v1/test-cases', { project_id: project.body.id, name: 'Home loads', steps: [{ action: 'navigate', value: '/' }, { action: 'assert_visible', selector: '#title' }] });
  const p = await gw('POST', '/api/v1/test-plans', { project_id: project.body.id, name: 'Nightly', test_case_ids: [tc.body.id] });
  return { projectId: project.body.id as string, planId: p.body.id as string };
}

beforeAll(async () => {
  shop = await startShop();
});
afterAll(async () => {
  await shop?.close();
});

describe('the SaaS layer end to end', () => {
  it('starts redis-server under ASSAY_HOME and hands it to the gateway', async () => {
    expect(launched.assay.output()).toContain(`redis-server for shared rate limits (data in ${launched.assay.home}/redis)`);
    const r = await gw('GET', '/api/auth/me');
    expect(r.headers.get('x-ratelimit-limit')).toBe('60'); // pro 120/min, the bootstrap key is a dev key: half
  });

  it('invites a member through the gateway, who accepts without a credential and signs in', async () => {
    const login = await call(launched.assay.gatewayUrl, 'POST', '/api/auth/login', { body: { email: launched.assay.adminEmail, password: launched.assay.adminPassword } });
    const added = await gw('POST', '/api/organizations/current/members', { email: 'new.tester@example.test', role: 'member', name: 'New Tester' }, login.body.token);
    expect(added.status).toBe(201);
    const accepted = await call(launched.assay.gatewayUrl, 'POST', '/api/auth/accept-invitation', { body: { token: added.body.invitation.token, password: 'tester password 123' } });
    expect(accepted.status).toBe(200);
    const me = await gw('GET', '/api/auth/me', undefined, accepted.body.token);
    expect(me.body.principal).toMatchObject({ kind: 'session', role: 'member', sub: added.body.user_id });
    // A member cannot manage members.
    const refused = await gw('POST', '/api/organizations/current/members', { email: 'x@example.test', role: 'member' }, accepted.body.token);
    expect(refused).toMatchObject({ status: 403, body: { error: 'insufficient_permissions' } });
  });

  it('meters a real execution: one execution and its browser time in 30-second units', async () => {
    const { projectId, planId } = await plan();
    const before = (await gw('GET', '/api/organizations/current/usage')).body;
    const run = await gw('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId });
    expect(run.body.status).toBe('completed');
    const q = (body: any, name: string) => body.quotas.find((x: { quota: string }) => x.quota === name);
    const after = await eventually(async () => {
      const body = (await gw('GET', '/api/organizations/current/usage')).body;
      return q(body, 'executions').used === q(before, 'executions').used + 1 && q(body, 'browser_minutes').used > q(before, 'browser_minutes').used ? body : undefined;
    }, 30_000, 250);
    // One test case of a few seconds: one 30-second unit, half a minute.
    expect(q(after, 'browser_minutes').used - q(before, 'browser_minutes').used).toBe(0.5);
    expect(q(after, 'executions')).toMatchObject({ limit: 50_000, exceeded: false });
  });

  it('fires a schedule on the real clock: one execution per minute, linked from the schedule', async () => {
    const { planId } = await plan();
    const created = await gw('POST', `/api/v1/test-plans/${planId}/schedules`, { cron: '* * * * *', timezone: 'UTC', enabled: true });
    expect(created.status).toBe(201);
    expect(created.body.next_runs).toHaveLength(5);
    // The alias path reaches the same schedule.
    expect((await gw('GET', `/api/test-plans/${planId}/schedules/${created.body.id}`)).body.id).toBe(created.body.id);
    // Polled with the owner's session, so the key's own rate limit is left alone.
    const session = (await call(launched.assay.gatewayUrl, 'POST', '/api/auth/login', { body: { email: launched.assay.adminEmail, password: launched.assay.adminPassword } })).body.token;
    const fired = await eventually(async () => {
      const s = (await gw('GET', `/api/v1/test-plans/${planId}/schedules/${created.body.id}`, undefined, session)).body;
      return s.last_execution_id ? s : undefined;
    }, 100_000, 2000);
    expect(Date.parse(fired.next_run_at)).toBeGreaterThan(Date.parse(created.body.next_run_at));
    const status = await eventually(async () => {
      const r = await gw('GET', `/api/v1/executions/${fired.last_execution_id}/status`, undefined, session);
      return r.body.status === 'completed' ? r.body : undefined;
    }, 60_000, 1000);
    expect(status).toMatchObject({ passed_tests: 1, total_tests: 1 });
    // Pause it so the rest of the file does not race it.
    expect((await gw('PATCH', `/api/v1/test-plans/${planId}/schedules/${created.body.id}`, { enabled: false }, session)).body.enabled).toBe(false);
  });

  it('takes a Stripe plan change through the gateway and applies the new rate limits at once', async () => {
    const session = (await call(launched.assay.gatewayUrl, 'POST', '/api/auth/login', { body: { email: launched.assay.adminEmail, password: launched.assay.adminPassword } })).body.token;
    const key = (await gw('POST', '/api/service-keys', { name: 'prod', environment: 'prod' }, session)).body.key as string;
    expect((await gw('GET', '/api/auth/me', undefined, key)).headers.get('x-ratelimit-limit')).toBe('120');
    const me = (await gw('GET', '/api/auth/me', undefined, key)).body;
    const orgId = me.organization.id as string;
    // The operator links the organization to its Stripe customer (internal route, service principal).
    const link = await fetch(`http://127.0.0.1:${launched.assay.authPort}/internal/organizations/${orgId}/billing`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', [PRINCIPAL_HEADER]: await signPrincipal(launched.assay.internalSecret, servicePrincipal('operator')) },
      body: JSON.stringify({ stripe_customer_id: 'cus_E2Etest01' }),
    });
    expect(link.status).toBe(200);
    const event = { id: 'evt_e2e_1', object: 'event', type: 'customer.subscription.updated', created: Math.floor(Date.now() / 1000), data: { object: { id: 'sub_e2e', object: 'subscription', customer: 'cus_E2Etest01', metadata: { assay_plan: 'growth' }, items: { data: [] } } } };
    const payload = JSON.stringify(event);
    const send = (signature: string) =>
      fetch(`${launched.assay.gatewayUrl}/api/billing/stripe/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: payload });
    const forged = await send(Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_not_the_endpoint_secret_000000' }));
    expect(forged.status).toBe(400);
    const ok = await send(Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET }));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ received: true, event_id: 'evt_e2e_1' });
    expect((await gw('GET', '/api/organizations/current', undefined, session)).body.plan).toBe('growth');
    // The gateway drops its cached answer on auth's event (within its 2 s cache at worst): growth allows 60 per minute.
    const started = Date.now();
    await eventually(async () => (await gw('GET', '/api/auth/me', undefined, key)).headers.get('x-ratelimit-limit') === '60', 5000, 100);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
