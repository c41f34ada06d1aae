import { randomUUID } from 'node:crypto';
import { createDatabase, migrateToLatest, sql, type Database } from '@assay/db';
import { createTestDatabase, type TestDatabase } from '@assay/testing';
import type { WebhookDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';

// The delivery-queue migration on a database that holds deliveries of the
// schema before it: pending ones end up on the queue, logged attempts in the
// delivery rows, and the dispatcher's indexes as it needs them.
let testDb: TestDatabase;
let database: Database<WebhookDatabase>;
beforeAll(async () => {
  testDb = await createTestDatabase();
  database = createDatabase<WebhookDatabase>({ connectionString: testDb.url, schema: 'webhook' });
});
afterAll(async () => {
  await database.close();
  await testDb.drop();
});

describe('migration 20261122170000_delivery_queue', () => {
  it('queues pending deliveries and moves the attempt rows into the deliveries', async () => {
    const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '20261122170000'));
    await migrateToLatest(database, before);
    const db = database.db;
    const org = randomUUID();
    const [hook] = (await sql<{ id: string }>`insert into webhooks (org_id, name, url, events, secret_enc) values (${org}, 'h', 'https://example.com/h', '{x}', 'sealed') returning id`.execute(db)).rows;
    const due = new Date('2026-11-22T10:00:00Z');
    const insert = async (status: string, attempts: number) =>
      (
        await sql<{ id: string }>`
          insert into deliveries (org_id, webhook_id, event, body, status, attempt_count, max_attempts, next_attempt_at, created_at, expires_at, lease_owner, lease_until)
          values (${org}, ${hook!.id}, 'x', '{}', ${status}, ${attempts}, 7, ${status === 'pending' ? due : null}, now(), now() + interval '7 days', 'old', now())
          returning id`.execute(db)
      ).rows[0]!.id;
    const pending = await insert('pending', 1);
    const delivered = await insert('delivered', 2);
    await sql`insert into delivery_attempts (delivery_id, attempt, at, status_code, response_time_ms, error) values
      (${pending}, 1, ${due}, 500, 12, 'HTTP 500'),
      (${delivered}, 2, '2026-11-22T09:01:00Z', 200, 5, null),
      (${delivered}, 1, '2026-11-22T09:00:00Z', 503, 7, 'HTTP 503')`.execute(db);

    await migrateToLatest(database, migrations);

    expect(await db.selectFrom('delivery_queue').selectAll().execute()).toEqual([{ delivery_id: pending, next_attempt_at: due }]);
    const rows = await db.selectFrom('deliveries').select(['id', 'attempts']).orderBy('attempt_count').execute();
    expect(rows).toEqual([
      { id: pending, attempts: [{ attempt: 1, at: '2026-11-22T10:00:00+00:00', status_code: 500, response_time_ms: 12, error: 'HTTP 500' }] },
      {
        id: delivered,
        attempts: [
          { attempt: 1, at: '2026-11-22T09:00:00+00:00', status_code: 503, response_time_ms: 7, error: 'HTTP 503' },
          { attempt: 2, at: '2026-11-22T09:01:00+00:00', status_code: 200, response_time_ms: 5, error: null },
        ],
      },
    ]);
    const gone = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = 'webhook' and table_name = 'delivery_attempts'`.execute(db);
    expect(gone.rows[0]!.n).toBe(0);
    const options = await sql<{ reloptions: string[] }>`select reloptions from pg_class where oid = 'webhook.deliveries'::regclass`.execute(db);
    expect(options.rows[0]!.reloptions).toEqual(['fillfactor=45']);
  });
});
