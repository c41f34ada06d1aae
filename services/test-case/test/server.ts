import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import type { Logger } from '@assay/logger';
import { listen, TEST_INTERNAL_SECRET } from '@assay/testing';
import { buildApp } from '../src/app.js';
import { migrations } from '../src/db/migrations/index.js';

/** The test-case service on a test database's `testcase` schema, as other services' test harnesses run it beside theirs. */
export interface TestCaseServer {
  url: string;
  /** Its database, for tests that read its rows (the outbox) directly. */
  db: Database<any>;
  close(): Promise<void>;
}

/** Migrates the `testcase` schema of the database at `connectionString` and serves the service on a free port. */
export async function startTestCaseServer(connectionString: string, logger: Logger): Promise<TestCaseServer> {
  const db = createDatabase<any>({ connectionString, schema: 'testcase' });
  await migrateToLatest(db, migrations);
  const server = await listen(buildApp({ db: db.db, schema: 'testcase', logger, internalTokenSecret: TEST_INTERNAL_SECRET })).catch(async (err: unknown) => {
    await db.close();
    throw err;
  });
  return {
    url: server.url,
    db,
    async close() {
      await server.close();
      await db.close();
    },
  };
}
