import { sql, type ExpressionBuilder, type Insertable, type Kysely, type QueryCreator } from 'kysely';
import { outboxCte, type OutboxBatch } from '@assay/bus';
import { LeasedTable, selectPage } from '@assay/db';
import type { ExecutionDatabase, ExecutionKind, ExecutionRow, ExecutionStatus, ExecutionTable, SnapshotCase, TestResultRow } from '../db/database.js';

type Db = Kysely<ExecutionDatabase>;

/** Channel of NOTIFY payloads `<execution id>` whenever an execution's stream or status moves. */
export const EXECUTION_CHANNEL = 'assay_execution_events';
const ACTIVE: ExecutionStatus[] = ['queued', 'pending', 'running'];
/** An execution waits `queued`; a worker holds it `pending` (preparing) and `running`. */
const EXECUTIONS = new LeasedTable<ExecutionRow, ExecutionStatus>({ table: 'executions', key: 'id', held: ['pending', 'running'], waiting: 'queued', failed: 'failed' });
/** Seed of the advisory lock key that orders an execution's stream appends (apart from other advisory locks' keys). */
const STREAM_LOCK_SEED = 0x5eed_0001;

export async function findExecution(db: Db, orgId: string, id: string): Promise<ExecutionRow | undefined> {
  return db.selectFrom('executions').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

export async function findExecutionById(db: Db, id: string): Promise<ExecutionRow | undefined> {
  return db.selectFrom('executions').selectAll().where('id', '=', id).executeTakeFirst();
}

export interface ExecutionFilter {
  projectId: string;
  /** Plan and suite runs unless told: exploratory runs are listed as test runs. */
  kind?: ExecutionKind;
  status?: ExecutionStatus | undefined;
  /** passed, failed, cancelled (as `outcomeOf` says) or running (not ended). */
  outcome?: 'passed' | 'failed' | 'cancelled' | 'running' | undefined;
  createdAfter?: Date | undefined;
  createdBefore?: Date | undefined;
  limit: number;
  offset: number;
}

export async function listExecutions(db: Db, orgId: string, f: ExecutionFilter) {
  let q = db.selectFrom('executions').where('org_id', '=', orgId).where('project_id', '=', f.projectId).where('kind', 'in', f.kind ? [f.kind] : ['plan', 'suite']);
  if (f.status) q = q.where('status', '=', f.status);
  // The same rule as outcomeOf, in SQL.
  if (f.outcome === 'passed') q = q.where('status', '=', 'completed').where('failed_tests', '=', 0).where('total_tests', '>', 0).whereRef('passed_tests', '=', 'total_tests');
  if (f.outcome === 'failed') {
    q = q.where((eb) =>
      eb.or([eb('status', '=', 'failed'), eb.and([eb('status', '=', 'completed'), eb.or([eb('failed_tests', '>', 0), eb('total_tests', '=', 0), eb('passed_tests', '<', eb.ref('total_tests'))])])]),
    );
  }
  if (f.outcome === 'cancelled') q = q.where('status', '=', 'cancelled');
  if (f.outcome === 'running') q = q.where('status', 'in', ['queued', 'pending', 'running']);
  if (f.createdAfter) q = q.where('created_at', '>=', f.createdAfter);
  if (f.createdBefore) q = q.where('created_at', '<', f.createdBefore);
  return selectPage(q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).offset(f.offset), q);
}

export async function findResults(db: Db, executionId: string): Promise<TestResultRow[]> {
  return db.selectFrom('test_results').selectAll().where('execution_id', '=', executionId).orderBy('position').execute();
}

/** Takes a queued execution for this worker; undefined when another worker (or a cancel) got there first. */
export async function claimExecution(db: Db, id: string, owner: string, leaseSeconds: number): Promise<ExecutionRow | undefined> {
  return EXECUTIONS.claim(db, id, owner, leaseSeconds, 'pending');
}

/** Extends the lease; the execution's status now, or undefined when the lease is no longer ours. */
export async function renewLease(db: Db, id: string, owner: string, leaseSeconds: number): Promise<ExecutionStatus | undefined> {
  return EXECUTIONS.renew(db, id, owner, leaseSeconds);
}

export async function currentStatus(db: Db, id: string): Promise<ExecutionStatus | undefined> {
  return (await db.selectFrom('executions').select('status').where('id', '=', id).executeTakeFirst())?.status;
}

/** Updates an execution this worker still holds; undefined when it was cancelled or lost meanwhile. */
export async function updateHeld(db: Db, id: string, owner: string, patch: Record<string, unknown>): Promise<ExecutionRow | undefined> {
  return db
    .updateTable('executions')
    .set(patch)
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', 'in', ['pending', 'running'])
    .returningAll()
    .executeTakeFirst();
}

export async function cancelExecution(db: Db, orgId: string, id: string): Promise<ExecutionRow | undefined> {
  return db
    .updateTable('executions')
    .set({ status: 'cancelled', cancelled_at: sql`now()`, cancellation_reason: 'requested', completed_at: sql`now()`, lease_expires_at: null })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('status', 'in', ACTIVE)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Appends to the execution's replayable stream and wakes its listeners (SSE,
 * sync waits) on commit, in one round trip. Readers page by `seq`
 * (`streamEventsAfter`), so an execution's events must commit in `seq` order:
 * one that took a lower `seq` but committed after a higher one would be
 * skipped by a reader that read in between (a CLI lost a `test_finished` that
 * way). The statement takes a transaction-scoped advisory lock on the
 * execution before its `seq` is drawn, so the run's lanes append one after
 * another, each holding the lock until its commit.
 */
export async function appendStreamEvent(db: Db, executionId: string, type: string, data: Record<string, unknown>): Promise<void> {
  const append = streamAppend(executionId, { type, data });
  await sql`with turn as ${append.turn}, appended as ${append.appended} select ${append.notify} as streamed`.execute(db);
}

/**
 * The parts of a statement that appends one stream event: the CTE `turn`
 * (the execution's ordering lock, taken only if the CTE named `after`, when
 * given, returned a row), the CTE `appended` (the insert) and the NOTIFY to
 * select in the main query. Every append is written with them.
 */
function streamAppend(executionId: string, event: { type: string; data: Record<string, unknown> }, after?: string) {
  return {
    turn: sql<{ locked: unknown }>`(select pg_advisory_xact_lock(hashtextextended(${executionId}, ${STREAM_LOCK_SEED})) as locked${after ? sql` from ${sql.table(after)}` : sql``})`,
    appended: sql<{ appended: number }>`(insert into execution_events (execution_id, type, data)
      select ${executionId}::uuid, ${event.type}, ${JSON.stringify(event.data)}::jsonb from turn returning 1 as appended)`,
    notify: sql`(select pg_notify(${EXECUTION_CHANNEL}, ${executionId}) from appended)`,
  };
}

export async function notifyExecution(db: Db, executionId: string): Promise<void> {
  await sql`select pg_notify(${EXECUTION_CHANNEL}, ${executionId})`.execute(db);
}

export async function streamEventsAfter(db: Db, executionId: string, afterSeq: number) {
  return db
    .selectFrom('execution_events')
    .select(['seq', 'type', 'data'])
    .where('execution_id', '=', executionId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(500)
    .execute();
}

/** Held executions whose worker stopped renewing its lease. */
export async function expiredLeases(db: Db): Promise<ExecutionRow[]> {
  return EXECUTIONS.expiredRows(db, 50);
}

/** What a run that starts over begins from: no start, no counts (its results are discarded with `discardResults`). */
const FRESH_START = { started_at: null, passed_tests: 0, failed_tests: 0, skipped_tests: 0 };

/** Puts an abandoned execution back in the queue (once), discarding its partial results. */
export async function requeueAbandoned(db: Db, id: string): Promise<ExecutionRow | undefined> {
  const row = await EXECUTIONS.reap(db, id, 'queued', FRESH_START);
  if (row) await discardResults(db, id);
  return row;
}

/**
 * Hands an execution this worker holds back to the queue (a shutdown that could
 * not wait for it): its partial results are discarded and, unlike a crash, the
 * attempt does not count. The lease is released first, so the halted run's own
 * writes (guarded by the lease) are refused.
 */
export async function requeueHeld(db: Db, id: string, owner: string): Promise<ExecutionRow | undefined> {
  const row = await EXECUTIONS.handBack(db, id, owner, FRESH_START);
  if (row) await discardResults(db, id);
  return row;
}

/** Fails an execution whose worker stopped (its lease ran out) once too often. */
export async function failAbandoned(db: Db, id: string, reason: string): Promise<ExecutionRow | undefined> {
  return EXECUTIONS.reap(db, id, 'failed', { error: reason, completed_at: sql`now()` });
}

async function discardResults(db: Db, executionId: string): Promise<void> {
  await db
    .updateTable('test_results')
    .set({ status: 'pending', duration_ms: null, error: null, error_step: null, screenshot_artifact_id: null, trace_artifact_id: null, steps: '[]', diagnostics: null, started_at: null, completed_at: null })
    .where('execution_id', '=', executionId)
    .execute();
}

/** Average seconds of recent finished runs (for estimates); null before the first one. */
export async function recentAverageSeconds(db: Db): Promise<number | null> {
  const row = await sql<{ avg: number | null }>`
    select avg(extract(epoch from (completed_at - started_at)))::float8 as avg
      from (select completed_at, started_at from executions
             where status in ('completed', 'failed') and started_at is not null and completed_at is not null
             order by completed_at desc limit 50) recent`.execute(db);
  return row.rows[0]?.avg ?? null;
}

/** Executions waiting or running ahead of one created at `createdAt`. */
export async function countAhead(db: Db, createdAt: Date): Promise<number> {
  const row = await db
    .selectFrom('executions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', 'in', ACTIVE)
    .where('created_at', '<', createdAt)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Marks the execution's results still in one of `statuses` as skipped (a run that ends early). */
export async function skipResults(db: Db, executionId: string, statuses: TestResultRow['status'][]): Promise<void> {
  await db.updateTable('test_results').set({ status: 'skipped' }).where('execution_id', '=', executionId).where('status', 'in', statuses).execute();
}

/** Sets the execution's `skipped_tests` from its results. */
export async function recordSkippedCount(db: Db, executionId: string): Promise<void> {
  const skipped = await db.selectFrom('test_results').select((eb) => eb.fn.countAll<number>().as('n')).where('execution_id', '=', executionId).where('status', '=', 'skipped').executeTakeFirstOrThrow();
  await db.updateTable('executions').set({ skipped_tests: Number(skipped.n) }).where('id', '=', executionId).execute();
}

/** This worker still holds the execution: running, or cancelled while it ran (not yet taken by the reaper). */
const heldBy = (executionId: string, owner: string) => (eb: ExpressionBuilder<ExecutionDatabase, 'executions'>) =>
  eb.and([eb('id', '=', executionId), eb('lease_owner', '=', owner), eb('status', 'in', ['pending', 'running', 'cancelled'])]);

/** What a case's start or end writes with its result, in the same statement: one live-stream event and the events it publishes. */
export interface CaseWrites {
  stream: { type: string; data: Record<string, unknown> };
  /** The service's outbox schema (its relay's channel) and the events. */
  outbox: { schema: string; batch: OutboxBatch };
}

/**
 * The rest of a case's start or end, after the CTE `written` (the result's
 * update, empty when this worker no longer holds the execution): the stream
 * event appended under the execution's stream lock (seq order, as
 * `appendStreamEvent`) and the outbox rows, each only if `written` returned
 * a row, and the notifications; true when it did. One statement is one round
 * trip and its own transaction: a transaction of five statements (begin,
 * result, stream, outbox, commit) took five.
 */
async function withCaseWrites(
  query: QueryCreator<ExecutionDatabase & { held: { id: string } } & { written: { id: string } }>,
  executionId: string,
  writes: CaseWrites,
): Promise<boolean> {
  const outbox = outboxCte(writes.outbox.schema, writes.outbox.batch, { guard: 'written', name: 'added' });
  const append = streamAppend(executionId, writes.stream, 'written');
  const row = await query
    .with('turn', () => append.turn)
    .with('appended', () => append.appended)
    .with('added', () => outbox.cte)
    .selectNoFrom([sql<boolean>`exists (select 1 from written)`.as('held'), append.notify.as('streamed'), outbox.wake.as('published')])
    .executeTakeFirstOrThrow();
  return row.held;
}

/**
 * A case's start: its result is `running` from `startedAt`, with its
 * `test_started` stream event and its events, if this worker still holds the
 * execution, in one statement. False (nothing changed) once the lease went to
 * the reaper. The execution row is locked FOR NO KEY UPDATE: its lease and
 * status cannot change until commit, yet the stream inserts of the run's
 * other lanes, whose foreign-key check takes KEY SHARE on it, do not wait for
 * it (FOR UPDATE made each wait for the other lane's case transaction).
 */
export async function startCaseIfHeld(db: Db, executionId: string, owner: string, resultId: string, startedAt: Date, writes: CaseWrites): Promise<boolean> {
  return withCaseWrites(
    db
      .with('held', (qb) => qb.selectFrom('executions').select('id').where(heldBy(executionId, owner)).forNoKeyUpdate())
      .with('written', (qb) =>
        qb
          .updateTable('test_results')
          .set({ status: 'running', started_at: startedAt })
          .where('id', '=', resultId)
          .where((eb) => eb.exists(eb.selectFrom('held').select('held.id')))
          .returning('test_results.id'),
      ),
    executionId,
    writes,
  );
}

/**
 * A case's end: its result written, one more test in the execution's passed
 * or failed tally (the update locks the execution row), its `test_finished`
 * stream event and its events, if this worker still holds the execution, in
 * one statement. False (nothing changed) once the lease went to the reaper: a
 * retry's results are never overwritten.
 */
export async function finishCaseIfHeld(
  db: Db,
  executionId: string,
  owner: string,
  resultId: string,
  status: 'passed' | 'failed',
  patch: Record<string, unknown>,
  writes: CaseWrites,
): Promise<boolean> {
  return withCaseWrites(
    db
      .with('held', (qb) =>
        qb
          .updateTable('executions')
          .set((eb) => (status === 'passed' ? { passed_tests: eb('passed_tests', '+', 1) } : { failed_tests: eb('failed_tests', '+', 1) }))
          .where(heldBy(executionId, owner))
          .returning('id'),
      )
      .with('written', (qb) =>
        qb
          .updateTable('test_results')
          .set({ ...patch, status })
          .where('id', '=', resultId)
          .where((eb) => eb.exists(eb.selectFrom('held').select('held.id')))
          .returning('test_results.id'),
      ),
    executionId,
    writes,
  );
}

/** A queued execution and a pending result for each of its cases, in their order. */
export async function insertQueuedExecution(db: Db, execution: Insertable<ExecutionTable>, cases: SnapshotCase[]): Promise<ExecutionRow> {
  const row = await db.insertInto('executions').values(execution).returningAll().executeTakeFirstOrThrow();
  await db
    .insertInto('test_results')
    .values(
      cases.map((c, position) => ({
        execution_id: row.id,
        org_id: row.org_id,
        position,
        test_case_id: c.id,
        name: c.name,
        priority: c.priority ?? 'medium',
        steps_snapshot: JSON.stringify(c.steps),
        duration_ms: null,
        error: null,
        error_step: null,
        screenshot_artifact_id: null,
        steps: '[]',
        diagnostics: null,
      })),
    )
    .execute();
  return row;
}
