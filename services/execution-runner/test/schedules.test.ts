import { randomUUID } from 'node:crypto';
import { contractValidator } from '@assay/contracts';
import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { createSilentLogger } from '@assay/logger';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import { createTestDatabase, eventually, listen, TEST_INTERNAL_SECRET, type TestDatabase, type TestServer } from '@assay/testing';
import { buildApp as buildAuthApp } from '../../auth/src/app.js';
import { migrations as authMigrations } from '../../auth/src/db/migrations/index.js';
import { AuthClient } from '../src/clients/auth.client.js';
import { startRunnerHarness, type RunnerHarness, type Tenant } from './harness.js';

jest.setTimeout(120_000);

// Schedules on the real runner (Postgres, bus, Chromium, the real test-case service); the
// scheduler's clock is moved by the test instead of waiting for the minute to turn.
let h: RunnerHarness;
let authDb: Database<any>;
let authServer: TestServer;
let authTestDb: TestDatabase;
beforeAll(async () => {
  h = await startRunnerHarness();
  // The real auth service answers the scheduler's entitlement questions.
  authTestDb = await createTestDatabase();
  authDb = createDatabase({ connectionString: authTestDb.url, schema: 'auth' });
  await migrateToLatest(authDb, authMigrations);
  authServer = await listen(buildAuthApp({ db: authDb.db, schema: 'auth', logger: createSilentLogger(), internalTokenSecret: TEST_INTERNAL_SECRET, session: { secret: 'schedule-test-session-secret-0123456789', ttlSeconds: 3600 } }));
});
afterAll(async () => {
  await authServer.close();
  await authDb.close();
  await authTestDb.drop();
  await h.close();
});

const quick = { Home: [{ action: 'navigate', value: '/login' }, { action: 'assert_visible', selector: '#email' }] };

async function scheduled(t: Tenant, body: Record<string, unknown> = {}) {
  const { planId, projectId } = await t.plan(quick);
  const r = await t.ex('POST', `/api/v1/test-plans/${planId}/schedules`, { cron: '*/5 * * * *', timezone: 'UTC', enabled: true, ...body });
  expect(r.status).toBe(201);
  return { planId, projectId, schedule: r.body };
}

const executionsOf = (orgId: string) => h.database.db.selectFrom('executions').selectAll().where('org_id', '=', orgId).execute();

describe('schedule routes', () => {
  it('creates a schedule with its next five run times, read in its time zone', async () => {
    const t = h.tenant();
    const { planId, projectId, schedule } = await scheduled(t, { cron: '30 9 * * 1-5', timezone: 'Europe/Paris', environment: null, variables: { user: 'ada' } });
    expect(contractValidator().validate('Schedule', schedule)).toEqual([]);
    expect(schedule).toMatchObject({ test_plan_id: planId, project_id: projectId, cron: '30 9 * * 1-5', timezone: 'Europe/Paris', enabled: true, variables: { user: 'ada' }, last_run_at: null });
    expect(schedule.next_runs).toHaveLength(5);
    expect(schedule.next_runs[0]).toBe(schedule.next_run_at);
    for (const run of schedule.next_runs) {
      const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', weekday: 'short', hour: '2-digit', minute: '2-digit', hour12: false }).format(new Date(run));
      expect(local).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 09:30$/);
    }
    expect([...schedule.next_runs].sort()).toEqual(schedule.next_runs);
    expect(Date.parse(schedule.next_run_at)).toBeGreaterThan(Date.now());

    const list = await t.ex('GET', `/api/v1/test-plans/${planId}/schedules`);
    expect(list.body).toMatchObject({ data: [{ id: schedule.id }], pagination: { total: 1 } });
    expect((await t.ex('GET', `/api/v1/test-plans/${planId}/schedules/${schedule.id}`)).body.id).toBe(schedule.id);
  });

  it('refuses malformed crons and time zones, unknown environments, and plans of other organizations', async () => {
    const t = h.tenant();
    const { planId } = await t.plan(quick);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ cron: '* * * *' }, 'cron'],
      [{ cron: '0 * * * * *' }, 'cron'],
      [{ cron: '61 * * * *' }, 'cron'],
      [{ cron: '@daily x y z w' }, 'cron'],
      [{ cron: '0 0 30 2 *' }, 'cron'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ environment: 'staging' }, 'environment'],
      [{ enabled: 'yes' }, 'enabled'],
      [{ extra: true }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const r = await t.ex('POST', `/api/v1/test-plans/${planId}/schedules`, { cron: '0 * * * *', timezone: 'UTC', enabled: true, ...body });
      expect({ body, status: r.status, fields: r.body.details?.map((d: { field: string }) => d.field) }).toEqual({ body, status: 400, fields: expect.arrayContaining([field]) });
    }
    const other = h.tenant();
    for (const id of [planId, randomUUID(), 'nope']) {
      const r = await other.ex('POST', `/api/v1/test-plans/${id}/schedules`, { cron: '0 * * * *', timezone: 'UTC', enabled: true });
      expect(r.status).toBe(404);
    }
    expect((await t.ex('GET', `/api/v1/test-plans/${planId}/schedules`)).body.pagination.total).toBe(0);
  });

  it('updates, pauses and deletes a schedule, and allows ten per plan', async () => {
    const t = h.tenant();
    const { planId, schedule } = await scheduled(t);
    const hourly = await t.ex('PATCH', `/api/v1/test-plans/${planId}/schedules/${schedule.id}`, { cron: '0 * * * *' });
    expect(new Date(hourly.body.next_run_at).getUTCMinutes()).toBe(0);
    expect(hourly.body.next_runs.map((r: string) => new Date(r).getUTCMinutes())).toEqual([0, 0, 0, 0, 0]);
    const paused = await t.ex('PATCH', `/api/v1/test-plans/${planId}/schedules/${schedule.id}`, { enabled: false });
    expect(paused.body).toMatchObject({ enabled: false, next_run_at: null, next_runs: [] });
    expect((await t.ex('PATCH', `/api/v1/test-plans/${planId}/schedules/${schedule.id}`, {})).status).toBe(400);
    for (let i = 0; i < 9; i++) expect((await t.ex('POST', `/api/v1/test-plans/${planId}/schedules`, { cron: '0 0 * * *', timezone: 'UTC', enabled: false })).status).toBe(201);
    const eleventh = await t.ex('POST', `/api/v1/test-plans/${planId}/schedules`, { cron: '0 0 * * *', timezone: 'UTC', enabled: false });
    expect(eleventh).toMatchObject({ status: 409, body: { error: 'conflict', details: { limit: 10 } } });
    expect((await h.tenant().ex('DELETE', `/api/v1/test-plans/${planId}/schedules/${schedule.id}`)).status).toBe(404);
    expect((await t.ex('DELETE', `/api/v1/test-plans/${planId}/schedules/${schedule.id}`)).body).toEqual({ id: schedule.id, deleted: true });
    expect((await t.ex('GET', `/api/v1/test-plans/${planId}/schedules/${schedule.id}`)).status).toBe(404);
  });
});

describe('the scheduler', () => {
  it('fires an occurrence exactly once across three replicas, emits test.plan.scheduled, and the run finishes with test.completed', async () => {
    const t = h.tenant();
    const { planId, schedule } = await scheduled(t);
    const due = new Date(schedule.next_run_at);
    const at = () => new Date(due.getTime() + 1000);
    const replicas = [h.scheduler({ now: at }), h.scheduler({ now: at }), h.scheduler({ now: at })];
    // All three tick at once, twice (other tests' schedules share the database: count this organization's work only).
    await Promise.all(replicas.map((s) => s.tick()));
    await Promise.all(replicas.map((s) => s.tick()));

    const executions = await executionsOf(t.orgId);
    expect(executions).toHaveLength(1);
    const scheduledEvents = (await h.events('test.plan.scheduled')).filter((e) => e.organization_id === t.orgId);
    expect(scheduledEvents).toHaveLength(1);
    expect(scheduledEvents[0].data).toEqual({
      execution_id: executions[0]!.id,
      schedule: { id: schedule.id, cron: '*/5 * * * *', timezone: 'UTC', environment: null, scheduled_for: due.toISOString(), missed_occurrences: 0, next_run_at: new Date(due.getTime() + 5 * 60_000).toISOString() },
      test_plan: { id: planId, name: 'Plan', project_id: executions[0]!.project_id },
    });
    const after = (await t.ex('GET', `/api/v1/test-plans/${planId}/schedules/${schedule.id}`)).body;
    expect(after).toMatchObject({ next_run_at: new Date(due.getTime() + 5 * 60_000).toISOString(), last_execution_id: executions[0]!.id, last_error: null });

    // The execution runs like any other, and its summary follows.
    const done = await eventually(async () => {
      const s = await t.ex('GET', `/api/v1/executions/${executions[0]!.id}/status`);
      return s.body.status === 'completed' ? s.body : undefined;
    }, 60_000, 200);
    expect(done).toMatchObject({ passed_tests: 1, total_tests: 1 });
    // Written with test.plan.completed in the transaction that ends the run (nothing reads it back off the bus): right after it, once, with its duration.
    const ofRun = (await h.events()).filter((e) => e.data?.execution_id === executions[0]!.id).map((e) => e.event);
    expect(ofRun.slice(-2)).toEqual(['test.plan.completed', 'test.completed']);
    const [planCompleted] = (await h.events('test.plan.completed')).filter((e) => e.data.execution_id === executions[0]!.id);
    const summaries = (await h.events('test.completed')).filter((e) => e.data.execution_id === executions[0]!.id);
    expect(summaries.map((e) => e.data)).toEqual([{ execution_id: executions[0]!.id, status: 'completed', duration_ms: planCompleted.data.test_plan.duration_ms }]);
    expect(contractValidator().validateEventData('test.completed', summaries[0].data)).toEqual([]);
  });

  it('runs once on recovery for occurrences missed during downtime, not a burst', async () => {
    const t = h.tenant();
    const { schedule } = await scheduled(t);
    const due = new Date(schedule.next_run_at);
    // Down for an hour and a minute: thirteen occurrences passed.
    const now = new Date(due.getTime() + 61 * 60_000);
    await h.scheduler({ now: () => now }).tick();
    await h.scheduler({ now: () => now }).tick();
    expect(await executionsOf(t.orgId)).toHaveLength(1);
    const [event] = (await h.events('test.plan.scheduled')).filter((e) => e.organization_id === t.orgId);
    expect(event.data.schedule).toMatchObject({ scheduled_for: new Date(due.getTime() + 60 * 60_000).toISOString(), missed_occurrences: 12, next_run_at: new Date(due.getTime() + 65 * 60_000).toISOString() });
    const runs = await h.database.db.selectFrom('schedule_runs').selectAll().where('schedule_id', '=', schedule.id).execute();
    expect(runs).toMatchObject([{ status: 'started', missed_occurrences: 12 }]);
  });

  it('skips an occurrence when the organization’s quota is used up or its plan has no API access, and says why', async () => {
    const provision = async (plan: string) => {
      const res = await fetch(`${authServer.url}/internal/organizations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, servicePrincipal('test')) },
        body: JSON.stringify({ name: 'o', plan, owner: { email: `${randomUUID()}@example.test`, name: 'O', password: 'a long enough password' } }),
      });
      return ((await res.json()) as { organization: { id: string } }).organization.id;
    };
    const auth = new AuthClient(authServer.url, TEST_INTERNAL_SECRET);
    const limited = h.tenant(await provision('starter'), 'starter');
    const { schedule } = await scheduled(limited);
    await authDb.db.insertInto('usage_counters').values({ org_id: limited.orgId, period: new Date().toISOString().slice(0, 7), quota: 'executions', amount: '1000' }).execute();
    const due = new Date(schedule.next_run_at);
    await h.scheduler({ now: () => new Date(due.getTime() + 1000), auth }).tick();
    expect(await executionsOf(limited.orgId)).toEqual([]);
    const row = await h.database.db.selectFrom('schedules').selectAll().where('id', '=', schedule.id).executeTakeFirstOrThrow();
    expect(row.last_error).toMatch(/^Monthly quota of executions exceeded \(1000 of 1000 executions\); it resets at /);
    expect(row.next_run_at!.toISOString()).toBe(new Date(due.getTime() + 5 * 60_000).toISOString());
    expect(row.enabled).toBe(true);

    const free = h.tenant(await provision('free'), 'free');
    const freeSchedule = (await scheduled(free)).schedule;
    await h.scheduler({ now: () => new Date(Date.parse(freeSchedule.next_run_at) + 1000), auth }).tick();
    expect(await executionsOf(free.orgId)).toEqual([]);
    expect((await free.ex('GET', `/api/v1/test-plans/${freeSchedule.test_plan_id}/schedules/${freeSchedule.id}`)).body.last_error).toBe('The free plan has no API access');
    expect((await h.events('test.plan.scheduled')).filter((e) => [limited.orgId, free.orgId].includes(e.organization_id))).toEqual([]);
  });

  it('steps over a schedule whose occurrence fails to be stored, so the schedules due behind it still fire', async () => {
    const t = h.tenant();
    const broken = await scheduled(t);
    const behind = await scheduled(t);
    const due = new Date(behind.schedule.next_run_at);
    // The broken one is claimed first (most overdue), and its occurrence is already recorded, so storing it throws.
    await h.database.db.updateTable('schedules').set({ next_run_at: new Date(due.getTime() - 60_000) }).where('id', '=', broken.schedule.id).execute();
    await h.database.db.insertInto('schedule_runs').values({ schedule_id: broken.schedule.id, scheduled_for: due, status: 'skipped', reason: 'recorded by the test' }).execute();
    await h.scheduler({ now: () => new Date(due.getTime() + 1000) }).tick();
    const executions = await executionsOf(t.orgId);
    expect(executions.map((e) => e.test_plan_id)).toEqual([behind.planId]);
    // Rolled back, not lost: the broken schedule is still due, for the next pass.
    const row = await h.database.db.selectFrom('schedules').selectAll().where('id', '=', broken.schedule.id).executeTakeFirstOrThrow();
    expect(row.next_run_at).toEqual(new Date(due.getTime() - 60_000));
  });

  it('disables a schedule whose test plan was deleted', async () => {
    const t = h.tenant();
    const { planId, schedule } = await scheduled(t);
    expect((await t.tc('DELETE', `/api/v1/test-plans/${planId}`)).status).toBe(200);
    await h.scheduler({ now: () => new Date(Date.parse(schedule.next_run_at) + 1000) }).tick();
    const after = await t.ex('GET', `/api/v1/test-plans/${planId}/schedules/${schedule.id}`);
    expect(after.body).toMatchObject({ enabled: false, next_run_at: null, last_error: 'The test plan no longer exists' });
    expect(await executionsOf(t.orgId)).toEqual([]);
  });
});

describe('test.completed', () => {
  it('summarises a cancelled execution too', async () => {
    const t = h.tenant();
    const { planId, projectId } = await t.plan({ Slow: [{ action: 'navigate', value: '/delayed' }, { action: 'wait', selector: '#never', timeout: 20_000 }] });
    const queued = await t.ex('POST', '/api/v1/executions/async', { test_plan_id: planId, project_id: projectId });
    expect((await t.ex('DELETE', `/api/v1/executions/${queued.body.id}`)).status).toBe(200);
    const summaries = (await h.events('test.completed')).filter((e) => e.data.execution_id === queued.body.id);
    expect(summaries.map((e) => e.data)).toEqual([{ execution_id: queued.body.id, status: 'cancelled', duration_ms: expect.any(Number) }]);
  });
});
