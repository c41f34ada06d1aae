import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { createSilentLogger } from '@assay/logger';
import { TOPICS } from '@assay/contracts';
import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase, eventually, testDatabaseAdminUrl, type TestDatabase } from '@assay/testing';
import { enqueueEvent, handleManyOnce, handleOnce, MESSAGES_PER_JOB, outboxMigration, outboxTraceparentMigration, PgBus, startOutboxRelay, type EventEnvelope } from '@assay/bus';

const logger = createSilentLogger();
let testDb: TestDatabase;
let database: Database<any>;
const buses: PgBus[] = [];

async function newBus(opts: { pollingIntervalSeconds?: number } = {}): Promise<PgBus> {
  const bus = new PgBus({ connectionString: testDb.url, logger, ...opts });
  await bus.start();
  buses.push(bus);
  return bus;
}

function envelope(n: number): EventEnvelope {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    event: 'organization.member.removed',
    timestamp: new Date().toISOString(),
    organization_id: 'org-1',
    data: { user_id: `u${n}` },
  };
}

beforeAll(async () => {
  testDb = await createTestDatabase();
  database = createDatabase({ connectionString: testDb.url, schema: 'svc' });
  await migrateToLatest(database, { '20261122000000_outbox': outboxMigration, '20261202100000_outbox_traceparent': outboxTraceparentMigration });
});

afterAll(async () => {
  for (const b of buses) await b.stop();
  await database.close();
  await testDb.drop();
});

describe('pg bus', () => {
  it('delivers each message to every consumer group, and once within a group', async () => {
    const publisher = await newBus();
    const [a1, a2, b1] = [await newBus(), await newBus(), await newBus()];
    const seenA: string[] = [];
    const seenB: string[] = [];
    const record = (list: string[]) => async (e: EventEnvelope) => {
      list.push(e.id);
    };
    await a1.subscribe({ topic: TOPICS.orgEvents, group: 'group-a', handler: record(seenA) });
    await a2.subscribe({ topic: TOPICS.orgEvents, group: 'group-a', handler: record(seenA) });
    await b1.subscribe({ topic: TOPICS.orgEvents, group: 'group-b', handler: record(seenB) });

    const messages = Array.from({ length: 20 }, (_, i) => ({ key: 'org-1', value: envelope(i) }));
    await publisher.publish(TOPICS.orgEvents, messages);

    await eventually(async () => seenA.length >= 20 && seenB.length >= 20);
    await new Promise((r) => setTimeout(r, 1200)); // time for any duplicate to show up
    expect(new Set(seenA).size).toBe(20);
    expect(seenA).toHaveLength(20);
    expect([...seenB].sort()).toEqual(messages.map((m) => m.value.id).sort());
  });

  it('redelivers a message whose handler failed (at-least-once)', async () => {
    const bus = await newBus();
    let calls = 0;
    const done: string[] = [];
    await bus.subscribe({
      topic: TOPICS.authEvents,
      group: 'flaky',
      handler: async (e) => {
        calls += 1;
        if (calls === 1) throw new Error('first attempt fails');
        done.push(e.id);
      },
    });
    await bus.publish(TOPICS.authEvents, [{ key: 'k', value: envelope(100) }]);
    await eventually(async () => done.length === 1, 15_000);
    expect(calls).toBe(2);
  });

  it('gives every process of a broadcast group every message, and forgets the queue on close', async () => {
    const publisher = await newBus();
    const [r1, r2] = [await newBus(), await newBus()];
    const got1: string[] = [];
    const got2: string[] = [];
    const s1 = await r1.subscribe({ topic: TOPICS.authEvents, group: 'gw', broadcast: true, handler: async (e) => void got1.push(e.id) });
    const s2 = await r2.subscribe({ topic: TOPICS.authEvents, group: 'gw', broadcast: true, handler: async (e) => void got2.push(e.id) });
    await publisher.publish(TOPICS.authEvents, [{ key: 'k', value: envelope(200) }]);
    await eventually(async () => got1.length === 1 && got2.length === 1);
    await s1.close();
    await s2.close();
    const { rows } = await database.pool.query(`select count(*)::int as n from bus.subscription where name like 'assay_auth_events__gw__%'`);
    expect(rows[0].n).toBe(0);
  });
});

describe('pg bus jobs', () => {
  const jobsOf = async (queue: string) =>
    (await database.pool.query<{ n: number; messages: number }>(
      `select count(*)::int as n, coalesce(sum(case when data ? 'batch' then jsonb_array_length(data->'batch') else 1 end), 0)::int as messages from bus.job where name = $1`,
      [queue],
    )).rows[0]!;

  it('carries the events of one publish in jobs of up to MESSAGES_PER_JOB, each handled once', async () => {
    const bus = await newBus();
    const seen: string[] = [];
    await bus.subscribe({ topic: TOPICS.orgEvents, group: 'batched', concurrency: 50, handler: async (e) => void seen.push(e.id) });
    const n = 2 * MESSAGES_PER_JOB + 7;
    const messages = Array.from({ length: n }, (_, i) => ({ key: `k${i % 5}`, value: envelope(10_000 + i) }));
    await bus.publish(TOPICS.orgEvents, messages);
    expect(await jobsOf('assay_org_events__batched')).toEqual({ n: 3, messages: n });
    await eventually(async () => seen.length >= n, 30_000);
    await new Promise((r) => setTimeout(r, 1000)); // time for any duplicate to show up
    expect(seen).toHaveLength(n);
    expect(new Set(seen).size).toBe(n);
  });

  it('makes a group jobs only of the event types it names, and its handler sees only those when an older publisher sends it all', async () => {
    const publisher = await newBus();
    const bus = await newBus();
    const subscriptions = async (queue: string) => (await database.pool.query<{ event: string }>(`select event from bus.subscription where name = $1 order by event`, [queue])).rows.map((r) => r.event);
    // An earlier version of the group named another event type: that one is dropped, the topic row stays.
    const old = await bus.subscribe({ topic: TOPICS.orgEvents, group: 'picky', events: ['organization.quota.warning'], handler: async () => undefined });
    await old.close();
    const seen: string[] = [];
    const picky = await bus.subscribe({ topic: TOPICS.orgEvents, group: 'picky', events: ['organization.member.removed'], handler: async (e) => void seen.push(e.event) });
    expect(await subscriptions('assay_org_events__picky')).toEqual([TOPICS.orgEvents, `${TOPICS.orgEvents}#organization.member.removed`]);
    const all: string[] = [];
    await bus.subscribe({ topic: TOPICS.orgEvents, group: 'everything', handler: async (e) => void all.push(e.event) });
    await picky.close();
    const messages = Array.from({ length: 6 }, (_, i) => ({ key: 'k', value: { ...envelope(30_000 + i), ...(i % 2 ? { event: 'organization.quota.warning' } : {}) } }));
    await publisher.publish(TOPICS.orgEvents, messages);
    // One job of the three events it names; the group without a list gets all six.
    expect(await jobsOf('assay_org_events__picky')).toEqual({ n: 1, messages: 3 });
    expect((await jobsOf('assay_org_events__everything')).messages).toBe(6);
    // A publisher of before the event lists reads only the topic rows and sends the group everything.
    const older = await database.pool.query(`select event from bus.subscription where name = 'assay_org_events__picky' and event like '%#%'`);
    await database.pool.query(`delete from bus.subscription where name = 'assay_org_events__picky' and event like '%#%'`);
    await publisher.publish(TOPICS.orgEvents, [{ key: 'k', value: { ...envelope(30_010), event: 'organization.quota.warning' } }, { key: 'k', value: envelope(30_011) }]);
    for (const { event } of older.rows) await database.pool.query(`insert into bus.subscription (event, name) values ($1, 'assay_org_events__picky')`, [event]);
    expect(await jobsOf('assay_org_events__picky')).toEqual({ n: 2, messages: 5 });
    await bus.subscribe({ topic: TOPICS.orgEvents, group: 'picky', events: ['organization.member.removed'], handler: async (e) => void seen.push(e.event) });
    await eventually(async () => seen.length >= 4 && all.length >= 8, 30_000);
    await new Promise((r) => setTimeout(r, 1000)); // time for a wrong delivery to show up
    // The handler saw only what it named, the extra event of the older publisher skipped as handled.
    const states = await database.pool.query<{ state: string }>(`select distinct state::text from bus.job where name = 'assay_org_events__picky'`);
    expect(states.rows.map((r) => r.state)).toEqual(['completed']);
    expect(seen).toEqual(Array(4).fill('organization.member.removed'));
  });

  it('refuses a subscription that names no event types', async () => {
    const bus = await newBus();
    await expect(bus.subscribe({ topic: TOPICS.orgEvents, group: 'none', events: [], handler: async () => undefined })).rejects.toThrow(/names no event types/);
  });

  it('keeps commands one per job, so the processes of a group share them out', async () => {
    const publisher = await newBus();
    const [w1, w2] = [await newBus(), await newBus()];
    const by1: string[] = [];
    const by2: string[] = [];
    const slow = (list: string[]) => async (e: EventEnvelope) => {
      await new Promise((r) => setTimeout(r, 200));
      list.push(e.id);
    };
    await w1.subscribe({ topic: TOPICS.executionCommands, group: 'runners', handler: slow(by1) });
    await w2.subscribe({ topic: TOPICS.executionCommands, group: 'runners', handler: slow(by2) });
    const commands = Array.from({ length: 10 }, (_, i) => ({ key: `e${i}`, value: { ...envelope(20_000 + i), event: 'execution.requested', data: { execution_id: `e${i}` } } }));
    await publisher.publish(TOPICS.executionCommands, commands);
    expect((await jobsOf('assay_executions_commands__runners')).n).toBe(10);
    await eventually(async () => by1.length + by2.length >= 10, 30_000);
    expect(by1.length).toBeGreaterThan(0);
    expect(by2.length).toBeGreaterThan(0);
  });

  it('retries only the events of a job that failed, not those already handled', async () => {
    const bus = await newBus();
    const calls = new Map<string, number>();
    const failing = envelope(30_001).id;
    let failures = 0;
    await bus.subscribe({
      topic: TOPICS.authEvents,
      group: 'partial',
      concurrency: 5,
      handler: async (e) => {
        calls.set(e.id, (calls.get(e.id) ?? 0) + 1);
        if (e.id === failing && failures++ < 2) throw new Error('fails twice');
      },
    });
    const messages = [0, 1, 2, 3].map((i) => ({ key: 'k', value: envelope(30_000 + i) }));
    await bus.publish(TOPICS.authEvents, messages);
    await eventually(async () => calls.get(failing) === 3, 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(Object.fromEntries(calls)).toEqual(Object.fromEntries(messages.map((m) => [m.value.id, m.value.id === failing ? 3 : 1])));
  });
});

describe('pg bus when Postgres goes away while a worker finishes a batch', () => {
  // pg-boss completes a batch without awaiting it; with Postgres unreachable then, the rejection was
  // unhandled and the process died (the runner and the dispatcher, on a Postgres restart under load).
  it('keeps the process alive and completes the job once Postgres is back', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const server = new pg.Client({ connectionString: testDatabaseAdminUrl() });
    await server.connect();
    const block = () => server.query(`alter database "${testDb.name}" allow_connections false`);
    const allow = () => server.query(`alter database "${testDb.name}" allow_connections true`);
    try {
      const bus = await newBus();
      const handled: string[] = [];
      await bus.subscribe({
        topic: TOPICS.orgEvents,
        group: 'completes-while-down',
        handler: async (e) => {
          // Postgres restarting under the worker: every connection ends, new ones are refused.
          await block();
          await server.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1`, [testDb.name]);
          handled.push(e.id);
        },
      });
      await bus.publish(TOPICS.orgEvents, [{ key: 'k', value: envelope(500) }]);
      await eventually(async () => handled.length > 0, 15_000);
      await new Promise((r) => setTimeout(r, 2500));
      await allow();
      expect(unhandled).toEqual([]);
      await eventually(async () => {
        const { rows } = await database.pool.query(`select state from bus.job where name = 'assay_org_events__completes_while_down'`);
        return rows.length === 1 && rows[0].state === 'completed';
      }, 15_000, 200);
    } finally {
      await allow();
      await server.end();
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('pg bus jobs of a process killed while it held them', () => {
  // pg-boss keeps a fetched job active for its expiry (15 min) whatever happens to its worker; a held
  // job now expires holdSeconds after its holder's last heartbeat and comes again at once.
  it('come again to the group within seconds, not 15 minutes', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures', 'hold-forever.ts')], {
      env: { ...process.env, DATABASE_URL: testDb.url, GROUP: 'held-by-the-dead', HOLD_SECONDS: '2' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    try {
      await eventually(async () => out.includes('subscribed'), 30_000, 100);
      const publisher = await newBus();
      await publisher.publish(TOPICS.orgEvents, [{ key: 'k', value: envelope(600) }]);
      await eventually(async () => out.includes(`holding ${envelope(600).id}`), 15_000, 100);
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;

      const survivor = new PgBus({ connectionString: testDb.url, logger, maintenanceIntervalSeconds: 1 });
      await survivor.start();
      buses.push(survivor);
      const got: string[] = [];
      await survivor.subscribe({ topic: TOPICS.orgEvents, group: 'held-by-the-dead', handler: async (e) => void got.push(e.id) });
      await eventually(async () => got.includes(envelope(600).id), 20_000, 200);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('come again when the process died between the fetch and its first heartbeat', async () => {
    const publisher = await newBus();
    const queue = 'assay_org_events__died_before_beat';
    // The group exists (its queue is subscribed) but the only worker that fetched died at once.
    const first = new PgBus({ connectionString: testDb.url, logger, holdSeconds: 2, maintenanceIntervalSeconds: 1 });
    await first.start();
    buses.push(first);
    const got: string[] = [];
    await first.subscribe({ topic: TOPICS.orgEvents, group: 'died-before-beat', handler: async (e) => void got.push(e.id) });
    await first.stop();
    await publisher.publish(TOPICS.orgEvents, [{ key: 'k', value: envelope(700) }]);
    // What pg-boss's fetch leaves when the process is killed before the handler runs: active, 15 min to expire.
    await database.pool.query(`update bus.job set state = 'active', started_on = now() - interval '10 seconds' where name = $1 and state = 'created'`, [queue]);

    const survivor = new PgBus({ connectionString: testDb.url, logger, holdSeconds: 2, maintenanceIntervalSeconds: 1 });
    await survivor.start();
    buses.push(survivor);
    await survivor.subscribe({ topic: TOPICS.orgEvents, group: 'died-before-beat', handler: async (e) => void got.push(e.id) });
    expect(await survivor.releaseAbandoned()).toBe(1);
    await eventually(async () => got.includes(envelope(700).id), 20_000, 200);
  });
});

describe('pg bus broadcast queues of dead processes', () => {
  // A SIGKILLed process never closes its broadcast subscription. stop() without close() leaves the
  // database exactly so: the subscription row and its queue, with no worker fetching it.
  it('are removed by a live process of the group, so publishes stop filling a queue nobody reads', async () => {
    const publisher = await newBus();
    const dead = await newBus();
    await dead.subscribe({ topic: TOPICS.authEvents, group: 'gw-orphan', broadcast: true, handler: async () => undefined });
    await dead.stop();
    const queues = async () =>
      (await database.pool.query<{ name: string }>(`select name from bus.subscription where event = $1 and name like 'assay_auth_events__gw_orphan__%'`, [TOPICS.authEvents])).rows.map((r) => r.name);
    const waiting = async () =>
      (await database.pool.query<{ n: number }>(`select count(*)::int as n from bus.job where name like 'assay_auth_events__gw_orphan__%' and state = 'created'`)).rows[0]!.n;
    const [deadQueue] = await queues();
    expect(deadQueue).toBeDefined();
    await publisher.publish(TOPICS.authEvents, [{ key: 'k', value: envelope(400) }]);
    expect(await waiting()).toBe(1);

    await new Promise((r) => setTimeout(r, 1500));
    const live = new PgBus({ connectionString: testDb.url, logger, orphanBroadcastSeconds: 1 });
    await live.start();
    buses.push(live);
    const got: string[] = [];
    await live.subscribe({ topic: TOPICS.authEvents, group: 'gw-orphan', broadcast: true, handler: async (e) => void got.push(e.id) });
    // The sweep at subscribe removes the dead queue; an explicit one finds nothing more.
    await eventually(async () => !(await queues()).includes(deadQueue!), 10_000, 100);
    expect(await live.sweepOrphanBroadcasts()).toEqual([]);
    expect(await queues()).toHaveLength(1);

    await publisher.publish(TOPICS.authEvents, [{ key: 'k', value: envelope(401) }]);
    await eventually(async () => got.includes(envelope(401).id));
    expect(await waiting()).toBe(0);
  });
});

describe('pg bus wake-ups', () => {
  // Idle workers poll only every 30 s here: a delivery within a few seconds is the publish's NOTIFY.
  const POLL_SECONDS = 30;
  const listeners = () =>
    database.pool.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and application_name = 'assay-bus-listen'`);

  it('wakes the workers of every process that subscribed to the topic when a message is published', async () => {
    const publisher = await newBus({ pollingIntervalSeconds: POLL_SECONDS });
    const [a, b] = [await newBus({ pollingIntervalSeconds: POLL_SECONDS }), await newBus({ pollingIntervalSeconds: POLL_SECONDS })];
    const got: string[] = [];
    await a.subscribe({ topic: TOPICS.discoveryEvents, group: 'wake-a', handler: async (e) => void got.push(`a:${e.id}`) });
    await b.subscribe({ topic: TOPICS.discoveryEvents, group: 'wake-b', handler: async (e) => void got.push(`b:${e.id}`) });
    // Past the first fetch of each new worker, so the next one is a poll 30 s away.
    await new Promise((r) => setTimeout(r, 1500));
    const started = Date.now();
    await publisher.publish(TOPICS.discoveryEvents, [{ key: 'k', value: envelope(300) }]);
    await eventually(async () => got.length === 2, 10_000, 50);
    expect(got.sort()).toEqual([`a:${envelope(300).id}`, `b:${envelope(300).id}`]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('listens again after its LISTEN connection is killed, and is woken as before', async () => {
    const publisher = await newBus({ pollingIntervalSeconds: POLL_SECONDS });
    const consumer = await newBus({ pollingIntervalSeconds: POLL_SECONDS });
    const got: string[] = [];
    await consumer.subscribe({ topic: TOPICS.executionEvents, group: 'wake-again', handler: async (e) => void got.push(e.id) });
    await eventually(async () => (await listeners()).rows.length > 0);
    const before = (await listeners()).rows.map((r) => r.pid);
    await database.pool.query('select pg_terminate_backend(pid) from pg_stat_activity where pid = any($1::int[])', [before]);
    // Every bus of this file listens again, on new connections.
    await eventually(async () => {
      const now = (await listeners()).rows.map((r) => r.pid);
      return now.length >= before.length && now.every((pid) => !before.includes(pid));
    }, 15_000);
    await new Promise((r) => setTimeout(r, 500));
    await publisher.publish(TOPICS.executionEvents, [{ key: 'k', value: envelope(301) }]);
    await eventually(async () => got.length === 1, 10_000, 50);
    expect(got).toEqual([envelope(301).id]);
  });

  it('works through a backlog of more jobs than one fetch takes without waiting for polls', async () => {
    const publisher = await newBus({ pollingIntervalSeconds: POLL_SECONDS });
    // Commands are one message per job; the group's worker fetches one job at a time (concurrency 1).
    const commands = Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: { ...envelope(310 + i), event: 'discovery.session.requested', data: { session_id: `s${i}` } } }));
    const consumer = await newBus({ pollingIntervalSeconds: POLL_SECONDS });
    const got: string[] = [];
    await consumer.subscribe({ topic: TOPICS.discoveryCommands, group: 'wake-backlog', handler: async (e) => void got.push(e.id) });
    await new Promise((r) => setTimeout(r, 1500));
    await publisher.publish(TOPICS.discoveryCommands, commands);
    await eventually(async () => got.length === 5, 10_000, 50);
    expect(got.sort()).toEqual(commands.map((c) => c.value.id).sort());
  });

  it('fetches a failed job again when its retry comes due, not at the next poll', async () => {
    const bus = await newBus({ pollingIntervalSeconds: POLL_SECONDS });
    const calls: number[] = [];
    await bus.subscribe({
      topic: TOPICS.authEvents,
      group: 'wake-retry',
      handler: async () => {
        calls.push(Date.now());
        if (calls.length === 1) throw new Error('first attempt fails');
      },
    });
    await new Promise((r) => setTimeout(r, 1500));
    await bus.publish(TOPICS.authEvents, [{ key: 'k', value: envelope(302) }]);
    // The retry is due a second or two after the failure; the worker's next poll is 30 s away.
    await eventually(async () => calls.length === 2, 10_000, 50);
    expect(calls[1]! - calls[0]!).toBeLessThan(10_000);
  });

  it('wakes its workers while its LISTEN connection is down, so a message published meanwhile is not left to the poll', async () => {
    const publisher = await newBus({ pollingIntervalSeconds: POLL_SECONDS });
    const consumer = await newBus({ pollingIntervalSeconds: POLL_SECONDS });
    const got: string[] = [];
    await consumer.subscribe({ topic: TOPICS.orgEvents, group: 'wake-unlistened', handler: async (e) => void got.push(e.id) });
    await eventually(async () => (await listeners()).rows.length > 0);
    await new Promise((r) => setTimeout(r, 1500));
    // Every bus of this file loses its LISTEN connection; the publish's notification reaches none of them.
    await database.pool.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'assay-bus-listen'`);
    await publisher.publish(TOPICS.orgEvents, [{ key: 'k', value: envelope(303) }]);
    await eventually(async () => got.length === 1, 10_000, 50);
    expect(got).toEqual([envelope(303).id]);
  });
});

describe('pg bus start-up', () => {
  it('subscribes many groups from several processes at once without failing (pg-boss deadlocks are retried)', async () => {
    const processes = [await newBus(), await newBus(), await newBus()];
    const topics = [TOPICS.executionEvents, TOPICS.discoveryEvents, TOPICS.orgEvents, TOPICS.testcases];
    const subscriptions = await Promise.all(
      processes.flatMap((bus, p) => topics.map((topic, t) => bus.subscribe({ topic, group: `startup-${p}-${t}`, handler: async () => undefined }))),
    );
    expect(subscriptions).toHaveLength(12);
  });
});

describe('outbox', () => {
  it('publishes committed events through the relay and never rolled-back ones', async () => {
    const bus = await newBus();
    const received: EventEnvelope[] = [];
    await bus.subscribe({ topic: TOPICS.orgEvents, group: 'outbox-reader', handler: async (e) => void received.push(e) });

    await database.db
      .transaction()
      .execute(async (trx) => {
        await enqueueEvent(trx, 'svc', { event: 'organization.member.removed', organization_id: 'org-2', data: { user_id: 'gone' } });
        throw new Error('roll back');
      })
      .catch(() => undefined);
    const committed = await database.db
      .transaction()
      .execute((trx) =>
        enqueueEvent(trx, 'svc', { event: 'organization.member.removed', organization_id: 'org-2', data: { user_id: 'kept' } }),
      );

    const relay = startOutboxRelay({ db: database.db, listen: database.pool, schema: 'svc', bus, logger, intervalMs: 100 });
    try {
      await eventually(async () => received.length >= 1);
      await new Promise((r) => setTimeout(r, 800));
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ id: committed.id, event: 'organization.member.removed', organization_id: 'org-2', data: { user_id: 'kept' } });
      const pending = await database.db.selectFrom('outbox').select('id').where('published_at', 'is', null).execute();
      expect(pending).toEqual([]);
    } finally {
      await relay.stop();
    }
  });

  it('refuses an event whose data breaks its contract', async () => {
    await expect(
      database.db.transaction().execute((trx) =>
        enqueueEvent(trx, 'svc', { event: 'organization.member.removed', organization_id: 'o', data: { wrong: 1 } }),
      ),
    ).rejects.toThrow(/breaks its contract/);
    await expect(
      database.db.transaction().execute((trx) => enqueueEvent(trx, 'svc', { event: 'no.such.event', organization_id: 'o', data: {} })),
    ).rejects.toThrow(/Unknown event type/);
  });

  it('runs a handler once per event id even when the event arrives twice', async () => {
    let runs = 0;
    const id = envelope(300).id;
    const first = await handleOnce(database.db, 'consumer-x', id, async () => void runs++);
    const second = await handleOnce(database.db, 'consumer-x', id, async () => void runs++);
    const otherConsumer = await handleOnce(database.db, 'consumer-y', id, async () => void runs++);
    expect([first, second, otherConsumer]).toEqual([true, false, true]);
    expect(runs).toBe(2);
  });

  it('runs a batch handler with only the events not handled before, and not at all when none are new', async () => {
    const [a, b, c] = [envelope(310).id, envelope(311).id, envelope(312).id];
    const seen: string[][] = [];
    await handleOnce(database.db, 'consumer-batch', a, async () => undefined);
    const fresh = await handleManyOnce(database.db, 'consumer-batch', [a, b, c, b], async (_trx, ids) => void seen.push([...ids].sort()));
    expect([...fresh].sort()).toEqual([b, c].sort());
    const again = await handleManyOnce(database.db, 'consumer-batch', [a, b], async (_trx, ids) => void seen.push([...ids]));
    expect(again.size).toBe(0);
    expect(seen).toEqual([[b, c].sort()]);
    // A failing handler commits no inbox row: the batch is handled again later.
    await expect(handleManyOnce(database.db, 'consumer-batch', [envelope(313).id], async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect((await handleManyOnce(database.db, 'consumer-batch', [envelope(313).id], async () => undefined)).size).toBe(1);
  });
});
