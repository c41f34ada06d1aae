import { sql, type Insertable, type Kysely } from 'kysely';
import type { ExecutionDatabase, ExecutionRow, ExecutionTable, TestResultRow } from '../db/database.js';

type Db = Kysely<ExecutionDatabase>;

/** One result row of a suite run's test, before it runs. */
export interface SuiteResultSeed {
  test_case_id: string;
  name: string;
  suite_test: Record<string, unknown>;
}

/** A unit of the queue: the tests that run together (a file, or one test of a fully parallel config). */
export interface UnitSeed {
  expected_ms: number;
  lines: string[];
  test_ids: string[];
}

/**
 * A queued suite execution: its row, a pending result per test, its shards
 * and its queue of units (longest expected first), in the caller's transaction.
 */
export async function insertSuiteExecution(db: Db, execution: Insertable<ExecutionTable>, results: SuiteResultSeed[], units: UnitSeed[], shards: number): Promise<ExecutionRow> {
  const row = await db.insertInto('executions').values(execution).returningAll().executeTakeFirstOrThrow();
  const ids = new Map<string, string>();
  for (let i = 0; i < results.length; i += 1000) {
    const inserted = await db
      .insertInto('test_results')
      .values(
        results.slice(i, i + 1000).map((r, j) => ({
          execution_id: row.id,
          org_id: row.org_id,
          position: i + j,
          test_case_id: r.test_case_id,
          name: r.name,
          priority: 'medium',
          steps_snapshot: '[]',
          duration_ms: null,
          error: null,
          error_step: null,
          screenshot_artifact_id: null,
          steps: '[]',
          diagnostics: null,
          suite_test: JSON.stringify(r.suite_test),
        })),
      )
      .returning(['id', 'test_case_id'])
      .execute();
    for (const r of inserted) ids.set(r.test_case_id, r.id);
  }
  await db
    .insertInto('suite_shards')
    .values(Array.from({ length: shards }, (_, shard) => ({ execution_id: row.id, shard, lease_owner: null, error: null })))
    .execute();
  if (units.length) {
    await db
      .insertInto('suite_units')
      .values(units.map((u, position) => ({ execution_id: row.id, position, expected_ms: Math.round(u.expected_ms), lines: JSON.stringify(u.lines), result_ids: JSON.stringify(u.test_ids.map((t) => ids.get(t)!)), shard: null })))
      .execute();
  }
  return row;
}

/** Takes a queued (or abandoned) shard for this worker under a lease; undefined when another worker has it or the run ended. */
export async function claimShard(db: Db, executionId: string, shard: number, owner: string, leaseSeconds: number) {
  return db
    .updateTable('suite_shards')
    .set({ status: 'running', lease_owner: owner, lease_expires_at: sql`now() + make_interval(secs => ${leaseSeconds})`, attempts: sql`attempts + 1`, started_at: sql`coalesce(started_at, now())` })
    .where('execution_id', '=', executionId)
    .where('shard', '=', shard)
    .where('status', '=', 'queued')
    .where((eb) => eb.exists(eb.selectFrom('executions').select('id').where('id', '=', executionId).where('status', 'in', ['queued', 'pending', 'running'])))
    .returningAll()
    .executeTakeFirst();
}

/** Extends the shard's lease; false when it is no longer this worker's. */
export async function renewShard(db: Db, executionId: string, shard: number, owner: string, leaseSeconds: number): Promise<boolean> {
  const r = await db
    .updateTable('suite_shards')
    .set({ lease_expires_at: sql`now() + make_interval(secs => ${leaseSeconds})` })
    .where('execution_id', '=', executionId)
    .where('shard', '=', shard)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** The first shard to start moves the execution to `running`; the row when this call did. */
export async function markSuiteRunning(db: Db, executionId: string, startedAt: Date): Promise<ExecutionRow | undefined> {
  return db
    .updateTable('executions')
    .set({ status: 'running', started_at: startedAt })
    .where('id', '=', executionId)
    .where('status', 'in', ['queued', 'pending'])
    .returningAll()
    .executeTakeFirst();
}

/**
 * Hands this shard the next units of the queue, longest expected first
 * (guided self-scheduling: about the remaining work divided by twice the
 * shards, at least `minBatchMs` of it and one unit), so replicas that run
 * faster take more and all finish together. Empty when the queue is done
 * or the shard is no longer `owner`'s.
 */
export async function takeUnits(db: Db, executionId: string, shard: number, owner: string, shards: number, minBatchMs: number) {
  return db.transaction().execute(async (trx) => {
    // Only while this worker holds the shard: units taken by a shard handed back would never run.
    if (!(await holdsShard(trx, executionId, shard, owner))) return [];
    const free = await trx
      .selectFrom('suite_units')
      .select(['position', 'expected_ms', 'lines', 'result_ids'])
      .where('execution_id', '=', executionId)
      .where('shard', 'is', null)
      .orderBy('position')
      // Waits for another shard taking units at the same moment (not SKIP LOCKED: that read the
      // locked queue as empty, so a shard that asked while another took ended with nothing, and one
      // shard ran the whole run); once it commits, the rows it took no longer match `shard is null`.
      .forUpdate()
      .execute();
    if (free.length === 0) return [];
    const remaining = free.reduce((s, u) => s + u.expected_ms, 0);
    const target = batchTarget(remaining, shards, minBatchMs);
    const taken: typeof free = [];
    let sum = 0;
    for (const u of free) {
      if (taken.length > 0 && sum + u.expected_ms > target) break;
      taken.push(u);
      sum += u.expected_ms;
    }
    await trx
      .updateTable('suite_units')
      .set({ shard, taken_at: sql`now()` })
      .where('execution_id', '=', executionId)
      .where('position', 'in', taken.map((u) => u.position))
      .execute();
    return taken;
  });
}

/**
 * How much expected work (ms) a shard takes from the queue at once: the remaining work divided by twice the
 * shards (guided self-scheduling: batches shrink as the queue empties, so shards end together), and since each
 * batch starts Playwright Test anew (seconds), at least `minBatchMs`, but never more than an even share of what
 * is left: at the tail a floor larger than that share let one shard take the rest while the other stood idle.
 */
export function batchTarget(remainingMs: number, shards: number, minBatchMs: number): number {
  return Math.max(remainingMs / (2 * shards), Math.min(minBatchMs, remainingMs / shards));
}

/** The shard's lease still held, as a condition of a write. */
export async function holdsShard(db: Db, executionId: string, shard: number, owner: string): Promise<boolean> {
  const r = await db
    .selectFrom('suite_shards')
    .select('shard')
    .where('execution_id', '=', executionId)
    .where('shard', '=', shard)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .forNoKeyUpdate()
    .executeTakeFirst();
  return r !== undefined;
}

/** The results of a suite execution keyed by their test id. */
export async function suiteResults(db: Db, executionId: string): Promise<TestResultRow[]> {
  return db.selectFrom('test_results').selectAll().where('execution_id', '=', executionId).orderBy('position').execute();
}

/** A test the listing did not have (a grep or project difference): its result row, added at the end. */
export async function addSuiteResult(db: Db, execution: ExecutionRow, seed: SuiteResultSeed): Promise<TestResultRow> {
  return db
    .insertInto('test_results')
    .values({
      execution_id: execution.id,
      org_id: execution.org_id,
      position: sql<number>`(select coalesce(max(position), -1) + 1 from test_results where execution_id = ${execution.id})`,
      test_case_id: seed.test_case_id,
      name: seed.name,
      priority: 'medium',
      steps_snapshot: '[]',
      duration_ms: null,
      error: null,
      error_step: null,
      screenshot_artifact_id: null,
      steps: '[]',
      diagnostics: null,
      suite_test: JSON.stringify(seed.suite_test),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Ends this worker's shard; true when it was the last one of the execution still open. */
export async function finishShard(db: Db, executionId: string, shard: number, owner: string, status: 'done' | 'failed', error: string | null): Promise<boolean> {
  const r = await db
    .updateTable('suite_shards')
    .set({ status, error, completed_at: sql`now()`, lease_owner: null, lease_expires_at: null })
    .where('execution_id', '=', executionId)
    .where('shard', '=', shard)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) return false;
  const open = await db.selectFrom('suite_shards').select((eb) => eb.fn.countAll<number>().as('n')).where('execution_id', '=', executionId).where('status', 'in', ['queued', 'running']).executeTakeFirstOrThrow();
  return Number(open.n) === 0;
}

/** Closes (done, with `error`) the shards of cancelled runs that wait in the queue or whose worker's lease ran out; answers how many. */
export async function closeCancelledShards(db: Db, error: string): Promise<number> {
  const r = await db
    .updateTable('suite_shards')
    .set({ status: 'done', error, completed_at: sql`now()`, lease_owner: null, lease_expires_at: null })
    .where((eb) => eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('lease_expires_at', '<', sql<Date>`now()`)])]))
    .where('execution_id', 'in', (eb) => eb.selectFrom('executions').select('id').where('status', '=', 'cancelled'))
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Shards whose worker stopped renewing its lease. */
export async function expiredShards(db: Db) {
  return db.selectFrom('suite_shards').selectAll().where('status', '=', 'running').where('lease_expires_at', '<', sql<Date>`now()`).limit(50).execute();
}

/**
 * Puts a shard back in the queue (its units not finished return to the
 * queue, their results to pending): an abandoned one (lease expired), or with
 * `handBackBy` the one that worker holds and gives back as it shuts down (the
 * attempt then does not count). False when it was neither.
 */
export async function requeueShard(db: Db, executionId: string, shard: number, handBackBy?: string): Promise<boolean> {
  let update = db
    .updateTable('suite_shards')
    .set({ status: 'queued', lease_owner: null, lease_expires_at: null, ...(handBackBy ? { attempts: sql<number>`greatest(attempts - 1, 0)` } : {}) })
    .where('execution_id', '=', executionId)
    .where('shard', '=', shard)
    .where('status', '=', 'running');
  update = handBackBy ? update.where('lease_owner', '=', handBackBy) : update.where('lease_expires_at', '<', sql<Date>`now()`);
  const r = await update.executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) return false;
  const units = await db.selectFrom('suite_units').select(['position', 'result_ids']).where('execution_id', '=', executionId).where('shard', '=', shard).execute();
  const resultIds = units.flatMap((u) => u.result_ids);
  const unfinished = resultIds.length
    ? await db.selectFrom('test_results').select('id').where('id', 'in', resultIds).where('status', 'in', ['pending', 'running']).execute()
    : [];
  const open = new Set(unfinished.map((u) => u.id));
  const back = units.filter((u) => u.result_ids.some((id) => open.has(id))).map((u) => u.position);
  if (back.length) await db.updateTable('suite_units').set({ shard: null, taken_at: null }).where('execution_id', '=', executionId).where('position', 'in', back).execute();
  if (open.size) await db.updateTable('test_results').set({ status: 'pending', started_at: null }).where('id', 'in', [...open]).execute();
  return true;
}
