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

/** A call to the test-case API as one tenant. */
export type TestCaseCall = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

/**
 * A project, one test case per entry of `cases` (name → steps) and a plan of
 * them all, made through the test-case API as a user would.
 * @throws Error with the answer when any of them is refused.
 */
export async function createPlan(tc: TestCaseCall, project: Record<string, unknown>, cases: Record<string, unknown[]>, planName = 'Plan'): Promise<{ projectId: string; planId: string; caseIds: string[] }> {
  const made = async (path: string, body: unknown) => {
    const r = await tc('POST', path, body);
    if (r.status !== 201) throw new Error(`POST ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body.id as string;
  };
  const projectId = await made('/api/v1/projects', project);
  const caseIds: string[] = [];
  for (const [name, steps] of Object.entries(cases)) caseIds.push(await made('/api/v1/test-cases', { project_id: projectId, name, steps }));
  const planId = await made('/api/v1/test-plans', { project_id: projectId, name: planName, test_case_ids: caseIds });
  return { projectId, planId, caseIds };
}
