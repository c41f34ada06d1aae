import { randomUUID } from 'node:crypto';
import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { createTestDatabase, type TestDatabase } from '@assay/testing';
import type { AnalysisDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { handleEvent } from '../src/intake/consumer.js';

let testDb: TestDatabase;
let database: Database<AnalysisDatabase>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  database = createDatabase<AnalysisDatabase>({ connectionString: testDb.url, schema: 'analysis' });
  await migrateToLatest(database, migrations);
});
afterAll(async () => {
  await database?.close();
  await testDb?.drop();
});

const envelope = (event: string, data: Record<string, unknown>, orgId: string) => ({ id: randomUUID(), event, timestamp: new Date().toISOString(), organization_id: orgId, data });
const statusOf = async (id: string) => (await database.db.selectFrom('analyses').select('status').where('id', '=', id).executeTakeFirst())?.status;

describe('analysis intake', () => {
  it('makes the analysis of an execution cancelled while it ran due, instead of waiting for ever', async () => {
    const orgId = randomUUID();
    const executionId = randomUUID();
    expect(await handleEvent(database.db, envelope('test.plan.started', { execution_id: executionId }, orgId))).toBeNull();
    expect(await statusOf(executionId)).toBe('waiting');
    // What the runner emits for a cancellation: no test.plan.completed, only the summary.
    expect(await handleEvent(database.db, envelope('test.completed', { execution_id: executionId, status: 'cancelled', duration_ms: 1200 }, orgId))).toBe('analysis');
    expect(await statusOf(executionId)).toBe('pending');
  });

  it('leaves the summary of a completed execution to test.plan.completed', async () => {
    const orgId = randomUUID();
    const executionId = randomUUID();
    await handleEvent(database.db, envelope('test.plan.started', { execution_id: executionId }, orgId));
    expect(await handleEvent(database.db, envelope('test.completed', { execution_id: executionId, status: 'completed', duration_ms: 900 }, orgId))).toBeNull();
    expect(await statusOf(executionId)).toBe('waiting');
    expect(await handleEvent(database.db, envelope('test.plan.completed', { execution_id: executionId }, orgId))).toBe('analysis');
    expect(await statusOf(executionId)).toBe('pending');
  });
});
