import { sql } from 'kysely';
import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { createSilentLogger } from '@assay/logger';
import { createTestDatabase, type TestDatabase } from '@assay/testing';
import { outboxMigration, outboxTraceparentMigration, PgBus, startOutboxRelay } from '@assay/bus';

let testDb: TestDatabase;
let database: Database<any>;
let bus: PgBus;

beforeAll(async () => {
  testDb = await createTestDatabase();
  database = createDatabase({ connectionString: testDb.url, schema: 'svc' });
  await migrateToLatest(database, { '20261122000000_outbox': outboxMigration, '20261202100000_outbox_traceparent': outboxTraceparentMigration });
  bus = new PgBus({ connectionString: testDb.url, logger: createSilentLogger() });
  await bus.start();
});
afterAll(async () => {
  await bus.stop();
  await database.close();
  await testDb.drop();
});

describe('outbox and inbox retention', () => {
  it('deletes published outbox rows and inbox rows past their retention, and keeps unpublished and recent ones', async () => {
    const { db } = database;
    const days = (n: number) => sql<Date>`now() - make_interval(days => ${n})`;
    const outboxRow = (i: number, published: unknown) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, topic: 'assay.org.events', key: 'k', envelope: '{}', published_at: published });
    // 12,000 old published rows (more than one purge batch), one recent, one old but never published.
    await sql`insert into outbox (id, topic, key, envelope, published_at)
      select gen_random_uuid(), 'assay.org.events', 'k', '{}', now() - interval '8 days' from generate_series(1, 12000)`.execute(db);
    await db.insertInto('outbox').values([outboxRow(1, days(1)), { ...outboxRow(2, null), created_at: days(30) }]).execute();
    await sql`insert into inbox (consumer, event_id, handled_at) select 'c', gen_random_uuid(), now() - interval '15 days' from generate_series(1, 7000)`.execute(db);
    await db.insertInto('inbox').values({ consumer: 'c', event_id: '00000000-0000-4000-8000-000000000009', handled_at: days(13) }).execute();

    // The relay would publish the unpublished row: keep it unpublishable here by stopping the relay first.
    const relay = startOutboxRelay({ db, schema: 'svc', bus, logger: createSilentLogger(), intervalMs: 3_600_000 });
    await relay.stop();
    const purged = await relay.purge();
    expect(purged).toEqual({ outbox: 12000, inbox: 7000 });
    const left = await db.selectFrom('outbox').select(['id', 'published_at']).orderBy('id').execute();
    expect(left.map((r) => r.id)).toEqual([outboxRow(1, null).id, outboxRow(2, null).id].sort());
    expect(await db.selectFrom('inbox').select('event_id').execute()).toEqual([{ event_id: '00000000-0000-4000-8000-000000000009' }]);
  });
});
