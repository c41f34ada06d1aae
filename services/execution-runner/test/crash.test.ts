import { eventually, useHarness } from '@assay/testing';
import { outboxBatch } from '@assay/bus';
import { caseStartedEvent } from '../src/execution-events.js';
import { appendStreamEvent, finishCaseIfHeld, startCaseIfHeld, streamEventsAfter, type CaseWrites } from '../src/executions/executions.repository.js';
import { startRunnerHarness } from './harness.js';

jest.setTimeout(120_000);

// Leases of 2 s so an abandoned execution is noticed quickly.
const h = useHarness(() => startRunnerHarness({ leaseSeconds: 2 }));

describe('a runner that dies mid-run', () => {
  it('leaves no execution running forever: another runner retries it once and completes it', async () => {
    const t = h.tenant();
    const { projectId, planId } = await t.plan({
      slow: [{ action: 'navigate', value: '/slow' }, { action: 'assert_visible', selector: 'body' }],
      quick: [{ action: 'navigate', value: '/about' }, { action: 'assert_text', selector: '#about-text', value: 'We sell things.' }],
    });
    const queued = await t.ex('POST', '/api/v1/executions/async', { test_plan_id: planId, project_id: projectId });
    await eventually(async () => (await t.ex('GET', queued.body.polling_url)).body.status === 'running', 20_000);

    // The first runner stops renewing its lease and drops its browser, as a killed process would.
    await h.runner.stop();
    await h.startRunner({ leaseSeconds: 2 });

    const done = await eventually(async () => {
      const s = await t.ex('GET', `/api/v1/executions/${queued.body.id}`);
      return s.body.status === 'completed' ? s.body : undefined;
    }, 60_000);
    expect(done).toMatchObject({ passed_tests: 2, failed_tests: 0, total_tests: 2 });
    const row = await h.database.db.selectFrom('executions').select('attempts').where('id', '=', queued.body.id).executeTakeFirstOrThrow();
    expect(row.attempts).toBe(2);
    const stream = await t.ex('GET', `/api/v1/executions/${queued.body.id}/stream`);
    expect(stream.body).toContain('retrying once');
  });

  it('marks an execution failed with the reason when its second attempt is abandoned too', async () => {
    const t = h.tenant();
    const { projectId, planId } = await t.plan({ x: [{ action: 'navigate', value: '/about' }] });
    const runner = await h.startRunner({ leaseSeconds: 2 });
    // Arrange the state a twice-abandoned run leaves: held by a worker that is gone, lease expired, second attempt.
    const queued = await t.ex('POST', '/api/v1/executions/async', { test_plan_id: planId, project_id: projectId, timeout_seconds: 60 });
    await h.database.db
      .updateTable('executions')
      .set({ status: 'running', lease_owner: 'gone', lease_expires_at: new Date(Date.now() - 1000), attempts: 2, started_at: new Date() })
      .where('id', '=', queued.body.id)
      .execute();
    await runner.reap();
    const row = await t.ex('GET', `/api/v1/executions/${queued.body.id}`);
    expect(row.body).toMatchObject({ status: 'failed', error: 'The worker running this execution stopped twice (lease expired)' });
    const completed = (await h.events('test.plan.completed')).find((e) => e.data.execution_id === queued.body.id);
    expect(completed.data.status).toBe('failed');
  });

  it('lets a worker that lost its lease write no case start, result, count, stream event or event (one statement each)', async () => {
    const t = h.tenant();
    const { projectId, planId } = await t.plan({ x: [{ action: 'navigate', value: '/about' }] });
    const run = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId });
    expect(run.body.status).toBe('completed');
    const db = h.database.db;
    // Held by another worker now (the reaper gave the run to it): this one's writes must change nothing.
    await db.updateTable('executions').set({ status: 'running', lease_owner: 'the-retry' }).where('id', '=', run.body.id).execute();
    const result = await db.selectFrom('test_results').selectAll().where('execution_id', '=', run.body.id).executeTakeFirstOrThrow();
    const tally = () => db.selectFrom('executions').select(['passed_tests', 'failed_tests']).where('id', '=', run.body.id).executeTakeFirstOrThrow();
    const stream = async () => (await streamEventsAfter(db, run.body.id, 0)).map((e) => [e.type, e.data]);
    const outbox = async () => (await db.selectFrom('outbox').select('envelope').orderBy('seq').execute()).map((r) => r.envelope as { id: string; event: string });
    const execution = await db.selectFrom('executions').selectAll().where('id', '=', run.body.id).executeTakeFirstOrThrow();
    const writes = (type: string, mark: string): CaseWrites => ({
      stream: { type, data: { mark } },
      outbox: { schema: 'execution', batch: outboxBatch([caseStartedEvent(execution, result, new Date(0), 'http://assay.test')]) },
    });
    const [before, streamBefore, outboxBefore] = [await tally(), await stream(), await outbox()];

    expect(await startCaseIfHeld(db, run.body.id, 'lost', result.id, new Date(0), writes('test_started', 'late start'))).toBe(false);
    expect(await finishCaseIfHeld(db, run.body.id, 'lost', result.id, 'failed', { error: 'late', duration_ms: 1 }, writes('test_finished', 'late end'))).toBe(false);
    expect(await db.selectFrom('test_results').selectAll().where('id', '=', result.id).executeTakeFirstOrThrow()).toEqual(result);
    expect(await tally()).toEqual(before);
    expect(await stream()).toEqual(streamBefore);
    expect(await outbox()).toEqual(outboxBefore);

    // The holder's writes land together: the result, its count, its stream event and its event.
    const start = writes('test_started', 'start');
    expect(await startCaseIfHeld(db, run.body.id, 'the-retry', result.id, new Date(0), start)).toBe(true);
    expect(await db.selectFrom('test_results').select(['status', 'started_at']).where('id', '=', result.id).executeTakeFirstOrThrow()).toEqual({ status: 'running', started_at: new Date(0) });
    const end = writes('test_finished', 'end');
    expect(await finishCaseIfHeld(db, run.body.id, 'the-retry', result.id, 'failed', { error: 'boom', duration_ms: 5 }, end)).toBe(true);
    expect(await db.selectFrom('test_results').select(['status', 'error', 'duration_ms']).where('id', '=', result.id).executeTakeFirstOrThrow()).toEqual({ status: 'failed', error: 'boom', duration_ms: 5 });
    expect(await tally()).toEqual({ ...before, failed_tests: before.failed_tests + 1 });
    expect(await stream()).toEqual([...streamBefore, ['test_started', { mark: 'start' }], ['test_finished', { mark: 'end' }]]);
    expect((await outbox()).slice(outboxBefore.length)).toEqual([start.outbox.batch.envelopes[0], end.outbox.batch.envelopes[0]]);
  });

  it('commits an execution’s stream events in seq order, so a reader paging by seq skips none', async () => {
    const t = h.tenant();
    const { projectId, planId } = await t.plan({ x: [{ action: 'navigate', value: '/about' }] });
    const run = await t.ex('POST', '/api/v1/executions', { test_plan_id: planId, project_id: projectId });
    const db = h.database.db;
    const last = async () => Math.max(0, ...(await streamEventsAfter(db, run.body.id, 0)).map((e) => Number(e.seq)));
    const before = await last();
    // One lane's case transaction has appended and not committed yet; the other lane appends meanwhile.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const lane1 = db.transaction().execute(async (trx) => {
      await appendStreamEvent(trx, run.body.id, 'test_finished', { lane: 1 });
      await held;
    });
    await new Promise((r) => setTimeout(r, 100));
    let lane2Done = false;
    const lane2 = appendStreamEvent(db, run.body.id, 'step_finished', { lane: 2 }).then(() => (lane2Done = true));
    await new Promise((r) => setTimeout(r, 300));
    // The second append waits for the first to commit: a reader now sees neither, so it cannot skip lane 1's.
    expect(lane2Done).toBe(false);
    expect(await last()).toBe(before);
    release();
    await Promise.all([lane1, lane2]);
    const events = (await streamEventsAfter(db, run.body.id, before)).map((e) => e.data);
    expect(events).toEqual([{ lane: 1 }, { lane: 2 }]);
  });
});
