import { randomUUID } from 'node:crypto';
import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { createTestDatabase, type TestDatabase } from '@assay/testing';
import type { ExecutionDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { claimShard, insertSuiteExecution, takeUnits } from '../src/suites/suite-runs.repository.js';

// The queue of a suite run on real Postgres: two shards asking for units at
// the same moment. The todomvc suite of make suites-real ran on one shard of
// two: the other asked while the first held the queue's rows, read it as
// empty and ended at once with nothing (its run took twice as long).
jest.setTimeout(30_000);

let testDb: TestDatabase;
let database: Database<ExecutionDatabase>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  database = createDatabase<ExecutionDatabase>({ connectionString: testDb.url, schema: 'execution' });
  await migrateToLatest(database, migrations);
});

afterAll(async () => {
  await database?.close();
  await testDb?.drop();
});

/** A queued suite run of `tests` one-test units (2 s each) in two shards, both claimed. */
async function queuedRun(tests: number) {
  const db = database.db;
  const ids = Array.from({ length: tests }, () => randomUUID());
  const row = await insertSuiteExecution(
    db,
    {
      kind: 'suite',
      name: 'queue',
      org_id: randomUUID(),
      project_id: randomUUID(),
      project_name: 'Queue',
      test_plan_id: randomUUID(),
      test_plan_name: 'queue',
      environment: null,
      base_url: 'http://127.0.0.1:9',
      variables: '{}',
      timeout_seconds: 300,
      trace: 'off',
      history_days: 7,
      total_tests: tests,
      error: null,
      lease_owner: null,
      cancellation_reason: null,
      suite_version_id: randomUUID(),
      suite_options: JSON.stringify({ shards: 2, retries: null, grep: null, projects: [], split: 'queue' }),
    },
    ids.map((id, i) => ({ test_case_id: id, name: `test ${i}`, suite_test: {} })),
    ids.map((id, i) => ({ expected_ms: 2000, lines: [`[chromium] › a.spec.ts › test ${i}`], test_ids: [id] })),
    2,
  );
  expect(await claimShard(db, row.id, 0, 'runner-a', 30)).toBeDefined();
  expect(await claimShard(db, row.id, 1, 'runner-b', 30)).toBeDefined();
  return row.id;
}

describe("a suite run's queue", () => {
  it('gives a shard that asks while another takes its units the next ones, not an empty queue', async () => {
    const executionId = await queuedRun(24);
    // Shard 1 is taking units: it holds the free rows of the queue until it commits.
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    let locked: () => void = () => undefined;
    const isLocked = new Promise<void>((r) => (locked = r));
    const taking = database.db.transaction().execute(async (trx) => {
      const rows = await trx.selectFrom('suite_units').select('position').where('execution_id', '=', executionId).where('shard', 'is', null).orderBy('position').forUpdate().execute();
      await trx.updateTable('suite_units').set({ shard: 1 }).where('execution_id', '=', executionId).where('position', 'in', rows.slice(0, 7).map((r) => r.position)).execute();
      locked();
      await held;
    });
    await isLocked;
    const shard0 = takeUnits(database.db, executionId, 0, 'runner-a', 2, 15_000);
    // Let shard 0's ask reach Postgres while shard 1 still holds the rows, then shard 1 commits.
    await new Promise((r) => setTimeout(r, 300));
    release();
    await taking;
    const units = await shard0;
    // The next 7 (15 s of 2 s units at least, after the 7 shard 1 took), not none.
    expect(units.map((u) => u.position)).toEqual([7, 8, 9, 10, 11, 12, 13]);
    const byShard = await database.db.selectFrom('suite_units').select(['shard', (eb) => eb.fn.countAll<string>().as('n')]).where('execution_id', '=', executionId).groupBy('shard').orderBy('shard').execute();
    expect(byShard.map((r) => [r.shard, Number(r.n)])).toEqual([
      [0, 7],
      [1, 7],
      [null, 10],
    ]);
  });

  it('hands each unit to one shard when both ask at once, and every unit in the end', async () => {
    const executionId = await queuedRun(40);
    const taken: number[][] = [[], []];
    await Promise.all(
      [0, 1].map(async (shard) => {
        for (;;) {
          const units = await takeUnits(database.db, executionId, shard, shard === 0 ? 'runner-a' : 'runner-b', 2, 15_000);
          if (units.length === 0) return;
          taken[shard]!.push(...units.map((u) => u.position));
        }
      }),
    );
    expect([...taken[0]!, ...taken[1]!].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(taken[0]!.length).toBeGreaterThan(0);
    expect(taken[1]!.length).toBeGreaterThan(0);
  });
});
