import { randomUUID } from 'node:crypto';
import { PgBus, type EventEnvelope, type Subscription } from '@assay/bus';
import { TOPICS, contractValidator, periodResetsAt, usagePeriod } from '@assay/contracts';
import { createSilentLogger } from '@assay/logger';
import type { Principal } from '@assay/principal';
import { eventually } from '@assay/testing';
import { subscribeMetering } from '../src/usage/usage.consumer.js';
import { startAuth, type AuthHarness } from './harness.js';

// Metering consumes the runner's and the crawler's events from the real bus (pg-boss on the test database).
let auth: AuthHarness;
let bus: PgBus;
let metering: Subscription[];
const logger = createSilentLogger();

beforeAll(async () => {
  auth = await startAuth();
  bus = new PgBus({ connectionString: auth.databaseUrl, logger });
  await bus.start();
  metering = await subscribeMetering({ bus, db: auth.database.db, schema: 'auth', logger });
});
afterAll(async () => {
  for (const s of metering) await s.close();
  await bus.stop();
  await auth.close();
});

/** An envelope as the runner or the crawler writes it, checked against the event catalog. */
function envelope(event: string, orgId: string, data: Record<string, unknown>): EventEnvelope {
  expect({ event, problems: contractValidator().validateEventData(event, data) }).toEqual({ event, problems: [] });
  return { id: randomUUID(), event, timestamp: new Date().toISOString(), organization_id: orgId, data };
}

const caseCompleted = (orgId: string, executionId: string, durationMs: number) =>
  envelope('test.execution.completed', orgId, {
    execution: { id: executionId, test_case_id: randomUUID(), test_case_name: 'Login', project_id: 'p', project_name: 'Shop', status: 'passed', priority: 'medium', duration_ms: durationMs },
  });
const planStarted = (orgId: string, executionId: string) =>
  envelope('test.plan.started', orgId, { execution_id: executionId, test_plan: { id: 'tp', name: 'Plan', project_id: 'p', tests: [{ id: 't', name: 'Login' }] } });
const pageCrawled = (orgId: string) => envelope('discovery.page.crawled', orgId, { session_id: randomUUID(), url: `http://shop.test/${randomUUID()}` });
const pagesCrawled = (orgId: string, pages: number) => envelope('discovery.pages.crawled', orgId, { session_id: randomUUID(), pages });

async function publish(...envelopes: EventEnvelope[]) {
  for (const e of envelopes) {
    const topic = e.event.startsWith('discovery.') ? TOPICS.discoveryEvents : TOPICS.executionEvents;
    await bus.publish(topic, [{ key: e.organization_id, value: e }]);
  }
}

async function usage(owner: Principal) {
  const r = await auth.call('GET', '/api/organizations/current/usage', { principal: owner });
  expect(r.status).toBe(200);
  expect(contractValidator().validate('Usage', r.body)).toEqual([]);
  return r.body;
}
const quota = (body: any, name: string) => body.quotas.find((q: { quota: string }) => q.quota === name);

describe('metering', () => {
  it('counts the pages a crawl reports in batches, each batch once', async () => {
    const a = await auth.newOrganization('starter');
    const batch = pagesCrawled(a.orgId, 50);
    // A redelivered batch adds nothing; an event from a crawler of before the batches still counts one.
    await publish(batch, pagesCrawled(a.orgId, 7), batch, pageCrawled(a.orgId));
    await eventually(async () => quota(await usage(a.owner), 'discovery_pages').used >= 58, 15_000);
    await new Promise((r) => setTimeout(r, 1000)); // time for a wrongly counted redelivery to land
    expect(quota(await usage(a.owner), 'discovery_pages')).toMatchObject({ used: 58, limit: 5000 });
  });

  it('bills browser time per test case run in 30-second units, counts executions once and pages one by one', async () => {
    const a = await auth.newOrganization('starter');
    const exec = randomUUID();
    const started = planStarted(a.orgId, exec);
    const cases = [caseCompleted(a.orgId, exec, 1_200), caseCompleted(a.orgId, exec, 30_000), caseCompleted(a.orgId, exec, 31_000)];
    // A crashed run is started again by the runner: a second test.plan.started with a new event id.
    await publish(started, planStarted(a.orgId, exec), ...cases, pageCrawled(a.orgId), pageCrawled(a.orgId), pageCrawled(a.orgId));
    const body = await eventually(async () => {
      const b = await usage(a.owner);
      return quota(b, 'discovery_pages').used === 3 && quota(b, 'browser_minutes').used === 2 && quota(b, 'executions').used === 1 ? b : undefined;
    }, 15_000);
    // 30 s + 30 s + 60 s = 2 minutes of the Starter plan's 1,000.
    expect(body).toMatchObject({ organization_id: a.orgId, plan: 'starter', period: usagePeriod(new Date()), resets_at: periodResetsAt(new Date()).toISOString() });
    expect(quota(body, 'browser_minutes')).toEqual({ quota: 'browser_minutes', unit: 'minutes', used: 2, limit: 1000, percentage: 0.2, exceeded: false });
    expect(quota(body, 'executions')).toEqual({ quota: 'executions', unit: 'executions', used: 1, limit: 1000, percentage: 0.1, exceeded: false });
    expect(quota(body, 'discovery_pages')).toEqual({ quota: 'discovery_pages', unit: 'pages', used: 3, limit: 5000, percentage: 0.1, exceeded: false });
  });

  it('never counts a replayed event twice', async () => {
    const a = await auth.newOrganization('starter');
    const once = caseCompleted(a.orgId, randomUUID(), 45_000);
    await publish(once, once, once);
    const marker = pageCrawled(a.orgId);
    await publish(marker, marker);
    await eventually(async () => quota(await usage(a.owner), 'discovery_pages').used === 1, 15_000);
    // The later marker was handled, so the replays before it were too.
    await eventually(async () => (await auth.database.db.selectFrom('inbox').select('event_id').where('event_id', '=', once.id).executeTakeFirst()) !== undefined);
    const body = await usage(a.owner);
    expect(quota(body, 'browser_minutes').used).toBe(1);
    expect(quota(body, 'discovery_pages').used).toBe(1);
    const rows = await auth.database.db.selectFrom('usage_counters').selectAll().where('org_id', '=', a.orgId).execute();
    expect(rows.map((r) => [r.quota, Number(r.amount)]).sort()).toEqual([['browser_minutes', 60], ['discovery_pages', 1]]);
  });

  it('meters the events of one bus job in one transaction, adding up exactly', async () => {
    const a = await auth.newOrganization('growth');
    const exec = randomUUID();
    // 60 case runs of 20 s (one 30-second unit each) and a repeat, published together: one job.
    const runs = Array.from({ length: 60 }, () => caseCompleted(a.orgId, exec, 20_000));
    await bus.publish(TOPICS.executionEvents, [...runs, runs[0]!].map((e) => ({ key: a.orgId, value: e })));
    await eventually(async () => quota(await usage(a.owner), 'browser_minutes').used === 30, 15_000);
    const rows = await auth.database.db.selectFrom('inbox').select('handled_at').where('event_id', 'in', runs.map((r) => r.id)).execute();
    expect(rows).toHaveLength(60);
    // now() is the transaction's start: one time for all of them.
    expect(new Set(rows.map((r) => (r.handled_at as Date).toISOString())).size).toBe(1);
    const counters = await auth.database.db.selectFrom('usage_counters').selectAll().where('org_id', '=', a.orgId).execute();
    expect(counters.map((r) => [r.quota, Number(r.amount)])).toEqual([['browser_minutes', 1800]]);
  });

  it('keeps organizations apart', async () => {
    const a = await auth.newOrganization('growth');
    const b = await auth.newOrganization('growth');
    await publish(pageCrawled(a.orgId), pageCrawled(a.orgId));
    await eventually(async () => quota(await usage(a.owner), 'discovery_pages').used === 2, 15_000);
    expect(quota(await usage(b.owner), 'discovery_pages').used).toBe(0);
  });
});

describe('quota alerts and refusals', () => {
  it('warns once at 80%, announces the exceeded quota once at 100%, and reports it with every credential', async () => {
    const a = await auth.newOrganization('starter');
    const key = await auth.call('POST', '/api/service-keys', { principal: a.owner, body: { name: 'ci', environment: 'prod' } });
    const period = usagePeriod(new Date());
    // 798 executions this month already (seeded); the next two reach 80%, the alert comes once.
    await auth.database.db.insertInto('usage_counters').values({ org_id: a.orgId, period, quota: 'executions', amount: '798' }).execute();
    await publish(planStarted(a.orgId, randomUUID()), planStarted(a.orgId, randomUUID()), planStarted(a.orgId, randomUUID()));
    await eventually(async () => quota(await usage(a.owner), 'executions').used === 801, 15_000);
    const warnings = await auth.events('organization.quota.warning', a.orgId);
    expect(warnings).toHaveLength(1);
    // The use when the alert was found: 800, or 801 when the third start came in the same batch (one addition).
    const { used, usage_percent, ...rest } = warnings[0]!.data as { used: number; usage_percent: number };
    expect([800, 801]).toContain(used);
    expect(usage_percent).toBe(used / 10);
    expect(rest).toEqual({ quota: 'executions', limit: 1000, unit: 'executions', period, resets_at: periodResetsAt(new Date()).toISOString(), plan: 'starter' });
    expect(await auth.events('organization.quota.exceeded', a.orgId)).toEqual([]);
    expect((await auth.authenticate(key.body.key)).body.quotas_exceeded).toBeUndefined();

    await auth.database.db.updateTable('usage_counters').set({ amount: '999' }).where('org_id', '=', a.orgId).where('quota', '=', 'executions').execute();
    await publish(planStarted(a.orgId, randomUUID()), planStarted(a.orgId, randomUUID()));
    await eventually(async () => quota(await usage(a.owner), 'executions').used === 1001, 15_000);
    const exceeded = await auth.events('organization.quota.exceeded', a.orgId);
    expect(exceeded).toHaveLength(1);
    const over = exceeded[0]!.data as { used: number; usage_percent: number };
    expect([1000, 1001]).toContain(over.used);
    expect(exceeded[0]!.data).toEqual({ quota: 'executions', usage_percent: over.used / 10, used: over.used, limit: 1000, unit: 'executions', period, resets_at: periodResetsAt(new Date()).toISOString(), plan: 'starter' });
    expect((await auth.events('organization.quota.warning', a.orgId))).toHaveLength(1);
    expect((await auth.events('auth.organization.access_changed', a.orgId)).map((e) => e.data)).toEqual([{ reason: 'quota_exceeded' }]);
    expect(quota(await usage(a.owner), 'executions')).toMatchObject({ used: 1001, limit: 1000, percentage: 100.1, exceeded: true });

    const expected = [{ quota: 'executions', used: 1001, limit: 1000, unit: 'executions', resets_at: periodResetsAt(new Date()).toISOString() }];
    expect((await auth.authenticate(key.body.key)).body.quotas_exceeded).toEqual(expected);
    const login = await auth.call('POST', '/api/auth/login', { body: { email: a.email, password: a.password } });
    expect((await auth.authenticate(login.body.token)).body.quotas_exceeded).toEqual(expected);
    const entitlements = await auth.call('GET', `/internal/organizations/${a.orgId}/entitlements`);
    expect(entitlements.body).toEqual({ organization_id: a.orgId, plan: 'starter', status: 'active', api_access: true, quotas_exceeded: expected });
  });

  it('applies a plan change at once: the higher limit lifts the refusal and the event names both plans', async () => {
    const a = await auth.newOrganization('starter');
    const period = usagePeriod(new Date());
    await auth.database.db.insertInto('usage_counters').values({ org_id: a.orgId, period, quota: 'browser_minutes', amount: String(1000 * 60) }).execute();
    const key = await auth.call('POST', '/api/service-keys', { principal: a.owner, body: { name: 'ci', environment: 'prod' } });
    expect((await auth.authenticate(key.body.key)).body.quotas_exceeded).toMatchObject([{ quota: 'browser_minutes', used: 1000, limit: 1000 }]);

    const changed = await auth.call('PATCH', `/internal/organizations/${a.orgId}/billing`, { body: { plan: 'growth' } });
    expect(changed).toMatchObject({ status: 200, body: { id: a.orgId, plan: 'growth', stripe_customer_id: null } });
    const who = await auth.authenticate(key.body.key);
    expect(who.body.principal.plan).toBe('growth');
    expect(who.body.quotas_exceeded).toBeUndefined();
    const updated = await auth.events('billing.subscription.updated', a.orgId);
    expect(updated.map((e) => e.data)).toEqual([{ old_plan: 'starter', new_plan: 'growth', source: 'operator', changed_at: expect.any(String) }]);
    expect((await auth.events('auth.organization.access_changed', a.orgId)).map((e) => e.data)).toEqual([{ reason: 'plan_changed' }]);
    // The same plan again changes nothing and emits nothing.
    await auth.call('PATCH', `/internal/organizations/${a.orgId}/billing`, { body: { plan: 'growth' } });
    expect(await auth.events('billing.subscription.updated', a.orgId)).toHaveLength(1);
  });

  it('gives the free plan no API access and zero quotas', async () => {
    const a = await auth.newOrganization('pro');
    await auth.call('PATCH', `/internal/organizations/${a.orgId}/billing`, { body: { plan: 'free' } });
    const entitlements = (await auth.call('GET', `/internal/organizations/${a.orgId}/entitlements`)).body;
    expect(entitlements).toMatchObject({ plan: 'free', api_access: false });
    expect(entitlements.quotas_exceeded.map((q: { quota: string }) => q.quota).sort()).toEqual(['browser_minutes', 'discovery_pages', 'executions']);
  });

  it('keeps the operator route to service principals and refuses bad bodies', async () => {
    const a = await auth.newOrganization();
    const refused = await auth.call('PATCH', `/internal/organizations/${a.orgId}/billing`, { principal: a.owner, body: { plan: 'pro' } });
    expect(refused.status).toBe(403);
    for (const body of [{}, { plan: 'platinum' }, { stripe_customer_id: 'not-a-customer' }]) {
      expect((await auth.call('PATCH', `/internal/organizations/${a.orgId}/billing`, { body })).status).toBe(400);
    }
    expect((await auth.call('PATCH', `/internal/organizations/${randomUUID()}/billing`, { body: { plan: 'pro' } })).status).toBe(404);
  });
});
