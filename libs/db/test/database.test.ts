import pg from 'pg';
import { sql } from 'kysely';
import { createDatabase, PgNotifier, waitForDatabase, type Database } from '@assay/db';
import { createTestDatabase, eventually, testDatabaseAdminUrl, type TestDatabase } from '@assay/testing';

let database: TestDatabase;
let db: Database<any>;
let admin: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDatabase({ connectionString: database.url, schema: 'public' });
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await db?.close();
  await admin?.end();
  await database?.drop();
});

describe('createDatabase', () => {
  it('survives Postgres ending a connection held between queries of a transaction, and keeps serving', async () => {
    // Without a listener on the client itself, pg emits an unhandled 'error'
    // here and the process dies (the dispatcher did, in the resilience e2e).
    const failure = await db.db
      .transaction()
      .execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
        // The termination reaches the client while it is checked out and idle.
        return eventually(() => sql`select 1`.execute(trx).then(() => false, (err: Error) => err), 10_000, 50);
      })
      .catch((err: Error) => err);
    expect(failure).toBeInstanceOf(Error);
    const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db.db);
    expect(rows).toEqual([{ one: 1 }]);
  });
});

describe('PgNotifier', () => {
  it('listens again after Postgres refused its first reconnection, as during a restart', async () => {
    // ALTER DATABASE needs a connection to another database.
    const server = new pg.Client({ connectionString: testDatabaseAdminUrl() });
    await server.connect();
    const notifier = new PgNotifier(db.pool, 'notifier_restart');
    await notifier.start();
    const heard: string[] = [];
    const off = notifier.on('agg-1', () => heard.push('agg-1'));
    try {
      await admin.query(`select pg_notify('notifier_restart', 'agg-1')`);
      await eventually(async () => heard.length > 0);

      // Postgres restarting: the LISTEN connection ends, and connections are refused for a few seconds.
      await server.query(`alter database "${database.name}" allow_connections false`);
      await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen%'`);
      await new Promise((r) => setTimeout(r, 2500));
      await server.query(`alter database "${database.name}" allow_connections true`);

      heard.length = 0;
      // Woken by NOTIFY again (each try waits for the reconnection: one a second).
      await eventually(async () => {
        await admin.query(`select pg_notify('notifier_restart', 'agg-1')`);
        return heard.length > 0;
      }, 10_000, 500);
    } finally {
      await server.query(`alter database "${database.name}" allow_connections true`);
      await server.end();
      off();
      await notifier.stop();
    }
  });
});

describe('waitForDatabase', () => {
  it('waits while Postgres refuses connections and resolves once it takes them again', async () => {
    const server = new pg.Client({ connectionString: testDatabaseAdminUrl() });
    await server.connect();
    const pool = new pg.Pool({ connectionString: database.url });
    pool.on('error', () => undefined);
    try {
      await server.query(`alter database "${database.name}" allow_connections false`);
      let waits = 0;
      expect(await waitForDatabase(pool, { timeoutMs: 600, stepMs: 100, onWait: () => waits++ })).toBe(false);
      const started = Date.now();
      const waiting = waitForDatabase(pool, { timeoutMs: 10_000, stepMs: 100 });
      setTimeout(() => void server.query(`alter database "${database.name}" allow_connections true`), 1000);
      expect(await waiting).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(waits).toBe(1);
    } finally {
      await server.query(`alter database "${database.name}" allow_connections true`);
      await server.end();
      await pool.end();
    }
  });
});
