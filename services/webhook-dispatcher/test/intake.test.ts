import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PgBus, type EventEnvelope, type Subscription } from '@assay/bus';
import { EVENTS, TOPICS } from '@assay/contracts';
import { createSilentLogger } from '@assay/logger';
import { eventually } from '@assay/testing';
import { subscribeToEvents } from '../src/dispatch/consumer.js';
import { findPlan } from '../src/webhooks/webhooks.repository.js';
import { fanOut, PUBLIC_TOPICS } from '../src/dispatch/intake.js';
import { spawnScript, startReceiver, startWebhookService, TEST_SECRET_KEY, type Receiver, type Tenant, type WebhookHarness } from './harness.js';

let svc: WebhookHarness;
let receiver: Receiver;
beforeAll(async () => {
  [svc, receiver] = await Promise.all([startWebhookService(), startReceiver()]);
});
afterAll(async () => {
  await receiver.close();
  await svc.close();
});

const MIN = 60_000;

function envelope(t: Tenant, event: string, data: Record<string, unknown>, projectId?: string): EventEnvelope {
  return { id: randomUUID(), event, timestamp: svc.clock.now().toISOString(), organization_id: t.orgId, ...(projectId ? { project_id: projectId } : {}), data };
}

const execution = (status: string, priority: string, caseId = 'case-1', projectId = 'p-1') => ({
  execution: { id: randomUUID(), test_case_id: caseId, test_case_name: 'Login', project_id: projectId, project_name: 'Shop', status, priority },
});

async function hook(t: Tenant, p: string, overrides: Record<string, unknown> = {}) {
  const h = await t.webhook(`${receiver.url}${p}`, overrides);
  await svc.forgetDeliveries(h.id);
  return h;
}

const deliveredEvents = async (webhookId: string) =>
  (await svc.database.db.selectFrom('deliveries').select(['event', 'body']).where('webhook_id', '=', webhookId).orderBy('created_at').orderBy('event').execute()).map((d) => {
    const body = JSON.parse(d.body);
    return { event: d.event, data: body.data, project: body.data.execution?.project_id as string | undefined };
  });

describe('events to deliveries', () => {
  it('consumes every public event type from the bus once, ignoring internal events and redeliveries', async () => {
    // Every topic that carries a public event of the catalog (more join as services add events).
    expect(PUBLIC_TOPICS).toEqual(expect.arrayContaining([TOPICS.executionEvents, TOPICS.orgEvents, TOPICS.testcases]));
    expect(new Set(PUBLIC_TOPICS)).toEqual(new Set(Object.values(EVENTS).filter((e) => e.visibility === 'public').map((e) => e.topic)));
    expect(PUBLIC_TOPICS).not.toContain(TOPICS.authEvents);
    const t = svc.tenant();
    const h = await hook(t, `/ok/bus-${t.orgId}`, { events: ['test.case.created', 'organization.member.added', 'test.plan.completed', 'test.completed'] });
    const bus = new PgBus({ connectionString: svc.testDb.url, logger: createSilentLogger() });
    await bus.start();
    let subs: Subscription[] = [];
    try {
      subs = await subscribeToEvents({ bus, db: svc.database.db, clock: svc.clock, logger: createSilentLogger(), onDeliveries: () => undefined });
      const created = envelope(t, 'test.case.created', { test_case: { id: 'c1', project_id: 'p-1', name: 'A', status: 'active', priority: 'high', steps: [] } }, 'p-1');
      const member = envelope(t, 'organization.member.added', { user: { id: 'u1', email: 'a@b.test', name: 'A' }, role: 'admin' });
      const plan = envelope(t, 'test.plan.completed', {
        execution_id: 'e1',
        status: 'completed',
        test_plan: { id: 'tp', name: 'Smoke', project_id: 'p-1', project_name: 'Shop', started_at: 'x', completed_at: 'y', duration_ms: 1234, summary: { total: 2, passed: 1, failed: 1, skipped: 0, pass_rate: 50 }, failed_tests: [], url: 'u' },
      });
      const summary = envelope(t, 'test.completed', { execution_id: 'e1', status: 'completed', duration_ms: 1234 });
      const revoked = envelope(t, 'auth.key.revoked', { key_id: 'k', kind: 'api_key' });
      await bus.publish(TOPICS.testcases, [{ key: 'c1', value: created }, { key: 'c1', value: created }]);
      await bus.publish(TOPICS.orgEvents, [{ key: t.orgId, value: member }]);
      await bus.publish(TOPICS.executionEvents, [{ key: 'e1', value: plan }, { key: 'e1', value: summary }]);
      await bus.publish(TOPICS.authEvents, [{ key: 'k', value: revoked }]);
      const events = await eventually(async () => {
        const rows = await deliveredEvents(h.id);
        return rows.length >= 4 ? rows : undefined;
      });
      await new Promise((r) => setTimeout(r, 500)); // a duplicate, if any, would land now
      expect((await deliveredEvents(h.id)).map((e) => e.event).sort()).toEqual(['organization.member.added', 'test.case.created', 'test.completed', 'test.plan.completed']);
      // test.completed comes from the runner as an event of its own: delivered once, never derived again here.
      expect(events.find((e) => e.event === 'test.completed')!.data).toEqual({ execution_id: 'e1', status: 'completed', duration_ms: 1234 });
      expect(events.find((e) => e.event === 'test.case.created')!.data).toEqual(created.data);
    } finally {
      for (const s of subs) await s.close();
      await bus.stop();
    }
  });

  it('applies a plan change from billing.subscription.updated to the organization at once', async () => {
    const t = svc.tenant();
    expect(await findPlan(svc.database.db, t.orgId)).toBe('starter');
    await fanOut(svc.database.db, envelope(t, 'billing.subscription.updated', { old_plan: 'starter', new_plan: 'pro', source: 'stripe' }), svc.clock);
    expect(await findPlan(svc.database.db, t.orgId)).toBe('pro');
  });

  it('filters by event type, project and priority', async () => {
    const t = svc.tenant();
    const critical = await hook(t, '/ok/f1', { events: ['test.execution.failed', 'test.case.deleted'], filters: { priorities: ['critical'] } });
    const project = await hook(t, '/ok/f2', { events: ['test.execution.failed', 'test.case.deleted'], filters: { projects: ['p-2'] } });
    await fanOut(svc.database.db, envelope(t, 'test.execution.failed', execution('failed', 'high'), 'p-1'), svc.clock);
    await fanOut(svc.database.db, envelope(t, 'test.execution.failed', execution('failed', 'critical'), 'p-1'), svc.clock);
    await fanOut(svc.database.db, envelope(t, 'test.execution.failed', execution('failed', 'critical', 'case-1', 'p-2'), 'p-2'), svc.clock);
    await fanOut(svc.database.db, envelope(t, 'test.case.deleted', { test_case_id: 'c', name: 'x', permanent: true }), svc.clock);
    // test-case events carry the case's priority too: a high one stays out of the critical-only webhook.
    await fanOut(svc.database.db, envelope(t, 'test.case.deleted', { test_case_id: 'c', name: 'x', priority: 'high', permanent: true }, 'p-2'), svc.clock);
    await fanOut(svc.database.db, envelope(t, 'test.case.created', { test_case: {} }, 'p-2'), svc.clock);
    // Another organization's events never reach these webhooks.
    await fanOut(svc.database.db, { ...envelope(t, 'test.case.deleted', { test_case_id: 'c', name: 'x', permanent: true }), organization_id: randomUUID() }, svc.clock);
    const c = await deliveredEvents(critical.id);
    expect(c.map((e) => [e.event, (e.data.execution as { priority?: string } | undefined)?.priority ?? null, e.project]).sort()).toEqual([
      ['test.case.deleted', null, undefined],
      ['test.execution.failed', 'critical', 'p-1'],
      ['test.execution.failed', 'critical', 'p-2'],
    ]);
    const p = await deliveredEvents(project.id);
    expect(p.map((e) => [e.event, e.project]).sort()).toEqual([['test.case.deleted', undefined], ['test.case.deleted', undefined], ['test.execution.failed', 'p-2']]);
  });

  it('evaluates conditional rules: repeated failures, pass rate, time of day', async () => {
    const t = svc.tenant({ plan: 'pro' });
    const third = await hook(t, '/ok/r1', { events: ['test.execution.failed'], conditional_rules: { rules: [{ field: 'consecutive_failures', op: 'gte', value: 3 }] } });
    const lowRate = await hook(t, '/ok/r2', { events: ['test.plan.completed'], conditional_rules: { match: 'any', rules: [{ field: 'pass_rate', op: 'lt', value: 80 }, { field: 'environment', op: 'eq', value: 'prod' }] } });
    const office = await hook(t, '/ok/r3', { events: ['test.case.deleted'], conditional_rules: { rules: [{ field: 'time_of_day', op: 'between', value: { from: '09:00', to: '17:00' } }] } });
    const fail = () => fanOut(svc.database.db, envelope(t, 'test.execution.failed', execution('failed', 'low', 'case-r'), 'p-1'), svc.clock);
    await fail();
    await fail();
    expect(await deliveredEvents(third.id)).toHaveLength(0);
    await fail();
    await fail();
    expect(await deliveredEvents(third.id)).toHaveLength(2);
    await fanOut(svc.database.db, envelope(t, 'test.execution.passed', execution('passed', 'low', 'case-r'), 'p-1'), svc.clock);
    await fail();
    expect(await deliveredEvents(third.id)).toHaveLength(2);

    const planDone = (rate: number) => envelope(t, 'test.plan.completed', { execution_id: 'e', test_plan: { id: 'tp', name: 'S', project_id: 'p', summary: { total: 10, passed: rate / 10, failed: 0, skipped: 0, pass_rate: rate } } });
    await fanOut(svc.database.db, planDone(90), svc.clock);
    await fanOut(svc.database.db, planDone(70), svc.clock);
    expect((await deliveredEvents(lowRate.id)).map((e) => (e.data.test_plan as { summary: { pass_rate: number } }).summary.pass_rate)).toEqual([70]);

    const deleted = () => fanOut(svc.database.db, envelope(t, 'test.case.deleted', { test_case_id: 'c', name: 'x', permanent: true }), svc.clock);
    const saved = svc.clock.now();
    svc.clock.set(new Date('2026-11-22T08:59:00Z'));
    await deleted();
    svc.clock.set(new Date('2026-11-22T12:00:00Z'));
    await deleted();
    svc.clock.set(saved);
    expect(await deliveredEvents(office.id)).toHaveLength(1);
  });

  it('queues deliveries over the per-webhook and per-organization minute limits and sends them when the window resets', async () => {
    const t = svc.tenant();
    svc.clock.set(new Date(Math.ceil(Date.now() / MIN) * MIN + 5_000));
    const one = await hook(t, `/ok/rate-${t.orgId}`, { events: ['test.case.deleted'] });
    for (let i = 0; i < 150; i++) await fanOut(svc.database.db, envelope(t, 'test.case.deleted', { test_case_id: `c${i}`, name: 'x', permanent: true }), svc.clock);
    await svc.dispatcher.drain();
    const count = async (status: string) => (await svc.database.db.selectFrom('deliveries').select('id').where('webhook_id', '=', one.id).where('status', '=', status as never).execute()).length;
    expect([await count('delivered'), await count('pending')]).toEqual([100, 50]);
    const waiting = await svc.database.db.selectFrom('deliveries').select('next_attempt_at').where('webhook_id', '=', one.id).where('status', '=', 'pending').execute();
    expect(new Set(waiting.map((w) => w.next_attempt_at!.getTime()))).toEqual(new Set([Math.ceil(svc.clock.now().getTime() / MIN) * MIN]));
    svc.clock.advance(MIN);
    await svc.dispatcher.drain();
    expect([await count('delivered'), await count('pending')]).toEqual([150, 0]);
    expect(await receiver.requests(`/ok/rate-${t.orgId}`)).toHaveLength(150);
    // Held back is not an attempt: every delivery went out once, with one attempt logged.
    const logged = await svc.database.db.selectFrom('deliveries').select('attempts').where('webhook_id', '=', one.id).execute();
    expect(logged.map((d) => d.attempts.length)).toEqual(Array(150).fill(1));

    // Per organization: 1,000 a minute across its webhooks.
    const org = svc.tenant();
    const hooks = [];
    for (let i = 0; i < 11; i++) hooks.push(await hook(org, `/ok/org-${org.orgId}`, { events: ['test.case.deleted'] }));
    for (let i = 0; i < 100; i++) await fanOut(svc.database.db, envelope(org, 'test.case.deleted', { test_case_id: `c${i}`, name: 'x', permanent: true }), svc.clock);
    await svc.dispatcher.drain();
    expect(await receiver.requests(`/ok/org-${org.orgId}`)).toHaveLength(1000);
    svc.clock.advance(MIN);
    await svc.dispatcher.drain();
    expect(await receiver.requests(`/ok/org-${org.orgId}`)).toHaveLength(1100);
  }, 60_000);

  it('lets replicas share the work without sending a delivery twice', async () => {
    const t = svc.tenant();
    svc.clock.advance(2 * MIN);
    const h = await hook(t, `/ok/replicas-${t.orgId}`, { events: ['test.case.deleted'] });
    for (let i = 0; i < 90; i++) await fanOut(svc.database.db, envelope(t, 'test.case.deleted', { test_case_id: `c${i}`, name: 'x', permanent: true }), svc.clock);
    const replicas = [svc.newDispatcher(), svc.newDispatcher(), svc.newDispatcher()];
    await Promise.all(replicas.map((d) => d.drain()));
    const ids = (await receiver.requests(`/ok/replicas-${t.orgId}`)).map((r) => r.headers['x-service-delivery']);
    expect(ids).toHaveLength(90);
    expect(new Set(ids).size).toBe(90);
    const rows = await svc.database.db.selectFrom('deliveries').select(['status', 'attempt_count']).where('webhook_id', '=', h.id).execute();
    expect(rows.every((r) => r.status === 'delivered' && r.attempt_count === 1)).toBe(true);
  });

  it('loses no delivery when a dispatcher process is killed mid-batch', async () => {
    const t = svc.tenant();
    svc.clock.set(new Date());
    const h = await hook(t, `/slow/2000/${t.orgId}`, { events: ['test.case.deleted'] });
    for (let i = 0; i < 40; i++) await fanOut(svc.database.db, envelope(t, 'test.case.deleted', { test_case_id: `c${i}`, name: 'x', permanent: true }), svc.clock);
    let child: ChildProcess | undefined;
    try {
      ({ proc: child } = await spawnScript(path.join(__dirname, 'dispatcher-process.ts'), { DATABASE_URL: svc.testDb.url, WEBHOOK_SECRET_KEY: TEST_SECRET_KEY }));
      // The child has requests in flight: kill it before any answer comes back.
      await eventually(async () => (await receiver.requests(`/slow/2000/${t.orgId}`)).length >= 10, 10_000, 20);
      child.kill('SIGKILL');
      await new Promise((r) => child!.once('exit', r));
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    // Its transaction died with it: nothing is recorded, every row is back on the queue, due now.
    const rows0 = await svc.database.db.selectFrom('deliveries').select(['id', 'status', 'attempt_count']).where('webhook_id', '=', h.id).execute();
    expect(rows0.every((r) => r.status === 'pending' && r.attempt_count === 0)).toBe(true);
    await eventually(async () => (await svc.database.db.selectFrom('delivery_queue').select('delivery_id').where('delivery_id', 'in', rows0.map((r) => r.id)).execute()).length === 40, 10_000, 50);

    // Another dispatcher sends everything at once: no lease to wait out.
    await svc.database.db.updateTable('webhooks').set({ url: `${receiver.url}/ok/after-${t.orgId}` }).where('id', '=', h.id).execute();
    await svc.dispatcher.drain();
    const rows = await svc.database.db.selectFrom('deliveries').select(['id', 'status']).where('webhook_id', '=', h.id).execute();
    expect(rows.filter((r) => r.status === 'delivered')).toHaveLength(40);
    const received = new Set((await receiver.requests(`/ok/after-${t.orgId}`)).map((r) => r.headers['x-service-delivery']));
    for (const r of rows) expect(received.has(r.id)).toBe(true);
    // Starting the child (tsx) takes most of this on a loaded machine; each wait above has its own bound.
  }, 90_000);
});
