import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { createSilentLogger } from '@assay/logger';
import { TOPICS, type Topic } from '@assay/contracts';
import { createTestDatabase, eventually, type TestDatabase } from '@assay/testing';
import { enqueueEvent, enqueueEvents, MESSAGES_PER_JOB, outboxMigration, outboxTraceparentMigration, PgBus, startOutboxRelay, type Bus, type BusMessage, type EventEnvelope, type OutboxRelay } from '@assay/bus';

jest.setTimeout(60_000);

let testDb: TestDatabase;
let database: Database<any>;
const buses: PgBus[] = [];
const logger = createSilentLogger();

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

async function newBus(): Promise<PgBus> {
  const bus = new PgBus({ connectionString: testDb.url, logger });
  await bus.start();
  buses.push(bus);
  return bus;
}

/** Each relay's real bus, with a record of when its publishes ran (slowed a little to widen any overlap). */
function recorded(bus: Bus, relay: string, log: Array<{ relay: string; start: number; end: number; ids: string[] }>): Bus {
  return {
    kind: bus.kind,
    start: () => bus.start(),
    stop: () => bus.stop(),
    isHealthy: () => bus.isHealthy(),
    health: () => bus.health(),
    replayDeadLetters: (t, g) => bus.replayDeadLetters(t, g),
    subscribe: (o) => bus.subscribe(o),
    async publish(topic: Topic, messages: BusMessage[]) {
      const start = performance.now();
      await new Promise((r) => setTimeout(r, 15));
      await bus.publish(topic, messages);
      log.push({ relay, start, end: performance.now(), ids: messages.map((m) => m.value.id) });
    },
  };
}

describe('outbox relay with several replicas', () => {
  it('lets one relay publish at a time, so one key’s events reach the bus in the order they were written, and another takes over when it stops', async () => {
    const log: Array<{ relay: string; start: number; end: number; ids: string[] }> = [];
    const received: EventEnvelope[] = [];
    const consumer = await newBus();
    await consumer.subscribe({ topic: TOPICS.orgEvents, group: 'relay-order', handler: async (e) => void received.push(e) });
    const relays: OutboxRelay[] = [];
    for (const name of ['r1', 'r2']) {
      relays.push(startOutboxRelay({ db: database.db, listen: database.pool, schema: 'svc', bus: recorded(await newBus(), name, log), logger, intervalMs: 10, batchSize: 5 }));
    }
    const written: string[] = [];
    const write = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const e = await database.db.transaction().execute((trx) =>
          enqueueEvent(trx, 'svc', { event: 'organization.member.removed', organization_id: 'org-relay', key: 'one-aggregate', data: { user_id: `u${written.length}` } }),
        );
        written.push(e.id);
      }
    };
    await write(60);
    await eventually(async () => log.flatMap((l) => l.ids).length >= 60, 30_000);
    // Stop whichever relay is publishing: the other one carries on with what comes next.
    await relays[0]!.stop();
    await write(20);
    await eventually(async () => log.flatMap((l) => l.ids).length >= 80, 30_000);
    await relays[1]!.stop();

    const sorted = [...log].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.start).toBeGreaterThanOrEqual(sorted[i - 1]!.end);
    expect(sorted.flatMap((l) => l.ids)).toEqual(written);
    expect(log.filter((l) => l.relay === 'r2').length).toBeGreaterThan(0);
    await eventually(async () => received.length >= 80, 30_000);
    expect(received.map((e) => e.id).sort()).toEqual([...written].sort());
  });
});

describe('outbox relay linger (OUTBOX_LINGER_MS)', () => {
  it('publishes events written within the linger as one batch, and a command at once', async () => {
    const log: Array<{ relay: string; start: number; end: number; ids: string[] }> = [];
    // Polling far apart: only notifications wake this relay.
    const relay = startOutboxRelay({ db: database.db, listen: database.pool, schema: 'svc', bus: recorded(await newBus(), 'lingering', log), logger, intervalMs: 60_000, lingerMs: 500 });
    try {
      await eventually(async () => (await database.pool.query(`select count(*)::int as n from pg_stat_activity where query like 'listen %'`)).rows[0].n > 0, 10_000);
      // The relay's first pass (at start) over: one still running would take the first event at once (CI saw it).
      await relay.flush();
      const event = (n: number) =>
        database.db.transaction().execute((trx) => enqueueEvent(trx, 'svc', { event: 'organization.member.removed', organization_id: 'org-linger', data: { user_id: `u${n}` } }));
      const firstWritten = performance.now();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await event(i)).id);
        await new Promise((r) => setTimeout(r, 50));
      }
      await eventually(async () => log.flatMap((l) => l.ids).length >= 3, 10_000);
      // One publish for the three, after the linger: not one each as they were written.
      expect(log.map((l) => l.ids)).toEqual([ids]);
      expect(log[0]!.start - firstWritten).toBeGreaterThanOrEqual(400);

      // A command does not wait: it goes out at once, with the events written just before it.
      const before = await event(3);
      const commandWritten = performance.now();
      const command = await database.db.transaction().execute((trx) => enqueueEvent(trx, 'svc', { event: 'execution.requested', organization_id: 'org-linger', data: { execution_id: 'e1' } }));
      await eventually(async () => log.flatMap((l) => l.ids).includes(command.id), 10_000);
      const sent = log.find((l) => l.ids.includes(command.id))!;
      expect(sent.start - commandWritten).toBeLessThan(400);
      expect(log.flatMap((l) => l.ids)).toContain(before.id);

      // Nor does a write that is a full batch by itself (an import's events): lingering would gather nothing.
      const batch = Array.from({ length: MESSAGES_PER_JOB }, (_, i) => ({ event: 'organization.member.removed' as const, organization_id: 'org-linger', data: { user_id: `b${i}` } }));
      const batchWritten = performance.now();
      const written = await database.db.transaction().execute((trx) => enqueueEvents(trx, 'svc', batch));
      const last = written.at(-1)!.id;
      await eventually(async () => log.flatMap((l) => l.ids).includes(last), 10_000);
      expect(log.find((l) => l.ids.includes(last))!.start - batchWritten).toBeLessThan(400);
    } finally {
      await relay.stop();
    }
  });
});

describe('outbox relay polling', () => {
  it('polls rarely while it listens (every write notifies it) and every intervalMs once its LISTEN connection is lost', async () => {
    const log: Array<{ relay: string; start: number; end: number; ids: string[] }> = [];
    const relay = startOutboxRelay({ db: database.db, listen: database.pool, schema: 'svc', bus: recorded(await newBus(), 'polling', log), logger, intervalMs: 50, listeningIntervalMs: 60_000 });
    const listeners = `select pid from pg_stat_activity where query = 'listen assay_outbox_svc'`;
    try {
      await eventually(async () => (await database.pool.query(listeners)).rowCount! > 0, 10_000);
      await relay.flush();
      // A row whose write notified nobody (as one a crashed replica left mid-publish): only a poll finds it.
      const id = crypto.randomUUID();
      const envelope = { id, event: 'organization.member.removed', timestamp: new Date().toISOString(), organization_id: 'org-poll', data: { user_id: 'u1' } };
      await database.pool.query(`insert into svc.outbox (id, topic, key, envelope) values ($1, $2, 'org-poll', $3)`, [id, TOPICS.orgEvents, JSON.stringify(envelope)]);
      // Listening, the relay does not poll every 50 ms: the row waits.
      await new Promise((r) => setTimeout(r, 600));
      expect(log.flatMap((l) => l.ids)).not.toContain(id);
      // The LISTEN connection dies: the relay polls every 50 ms again, well before it listens again (a second later).
      const lost = performance.now();
      await database.pool.query(`select pg_terminate_backend(pid) from (${listeners}) l`);
      await eventually(async () => log.flatMap((l) => l.ids).includes(id), 10_000);
      expect(log.find((l) => l.ids.includes(id))!.start - lost).toBeLessThan(900);
    } finally {
      await relay.stop();
    }
  });
});
