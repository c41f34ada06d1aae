import pg from 'pg';
import { sql } from 'kysely';
import { createDatabase, type Database } from '@assay/db';
import { createTestDatabase, eventually, type TestDatabase } from '@assay/testing';

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
