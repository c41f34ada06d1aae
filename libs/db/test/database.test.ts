import pg from 'pg';
import { sql } from 'kysely';
import { createDatabase, migrateToLatest, pendingMigrations, PgNotifier, selectPage, waitForDatabase, type Database, type Migration } from '@assay/db';
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

describe('selectPage', () => {
  it('reads one page in the order asked and counts every row the filters match', async () => {
    await sql`create table page_items (id int primary key, org text not null)`.execute(db.db);
    await sql`insert into page_items select g, case when g % 3 = 0 then 'other' else 'mine' end from generate_series(1, 30) g`.execute(db.db);
    const q = db.db.selectFrom('page_items').where('org', '=', 'mine');
    const page = await selectPage(q.select('id').orderBy('id', 'desc').limit(4).offset(2), q);
    expect(page).toEqual({ rows: [{ id: 26 }, { id: 25 }, { id: 23 }, { id: 22 }], total: 20 });
    const past = await selectPage(q.selectAll().orderBy('id').limit(5).offset(40), q);
    expect(past).toEqual({ rows: [], total: 20 });
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

describe('migrateToLatest on a schema newer than the code', () => {
  // A Deployment rolled back after the new release's migrations ran: the older code must start on the newer schema.
  it('takes the migrations it does not know as applied, and still applies its own pending ones in order', async () => {
    const rollback = createDatabase<any>({ connectionString: database.url, schema: 'rollback_case' });
    try {
      const table = (name: string): Migration => ({ up: async (k) => void (await k.schema.createTable(name).addColumn('id', 'integer').execute()) });
      const older = { '20260101000000_a': table('a') };
      const newer = { ...older, '20260201000000_b': table('b') };
      await migrateToLatest(rollback, newer);
      const result = await migrateToLatest(rollback, older);
      expect(result.results).toEqual([]);
      expect(await pendingMigrations(rollback, older)).toEqual([]);
      const { rows } = await sql<{ n: string }>`select count(*) as n from rollback_case.b`.execute(rollback.db);
      expect(Number(rows[0]!.n)).toBe(0);
      // The newer code again, with one more of its own: applied, the unknown-to-older one untouched.
      const newest = { ...newer, '20260301000000_c': table('c') };
      const again = await migrateToLatest(rollback, newest);
      expect(again.results?.map((r) => [r.migrationName, r.status])).toEqual([['20260301000000_c', 'Success']]);
    } finally {
      await rollback.close();
    }
  });
});
