import { sql, type Kysely } from 'kysely';
import { LeasedTable } from '@assay/db';
import type { AnalysisDatabase, AnalysisItemRow, AnalysisRow, AnalysisStatus, NewAnalysisItemRow } from '../db/database.js';

type Db = Kysely<AnalysisDatabase>;

/** An analysis is due (`pending`, from `not_before`) once its execution ends; a worker holds it `running`. */
const ANALYSES = new LeasedTable<AnalysisRow, AnalysisStatus>({ table: 'analyses', key: 'id', held: ['running'], waiting: 'pending', failed: 'failed', notBefore: 'not_before', touched: 'updated_at' });

/** An execution started: its analysis waits for the end. Idempotent. */
export async function recordWaiting(db: Db, row: { id: string; org_id: string; project_id: string | null }): Promise<void> {
  await db.insertInto('analyses').values(row).onConflict((oc) => oc.column('id').doNothing()).execute();
}

/** An execution ended: its analysis is due. A redelivered end never resets a running or finished analysis. */
export async function markDue(db: Db, row: { id: string; org_id: string; project_id: string | null }): Promise<void> {
  await db
    .insertInto('analyses')
    .values({ ...row, status: 'pending' })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({ status: 'pending', not_before: sql`now()`, updated_at: sql`now()` }).where('analyses.status', '=', 'waiting'),
    )
    .execute();
}

export async function findAnalysis(db: Db, orgId: string, id: string): Promise<AnalysisRow | undefined> {
  return db.selectFrom('analyses').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

/** Takes the next due analysis (or one whose worker's lease ran out) under a lease. */
export async function claimAnalysis(db: Db, owner: string, leaseSeconds: number): Promise<AnalysisRow | undefined> {
  return ANALYSES.claimNext(db, owner, leaseSeconds, 'running');
}

export async function renewAnalysisLease(db: Db, id: string, owner: string, leaseSeconds: number): Promise<boolean> {
  return (await ANALYSES.renew(db, id, owner, leaseSeconds)) !== undefined;
}

/** Locks the analysis when this worker still holds it: a worker that lost its lease writes nothing. */
export async function lockIfHeld(db: Db, id: string, owner: string): Promise<boolean> {
  return ANALYSES.lockIfHeld(db, id, owner);
}

export async function finishAnalysis(db: Db, id: string, projectId: string): Promise<void> {
  await ANALYSES.release(db, id, 'completed', { patch: { project_id: projectId, completed_at: sql`now()`, error: null } });
}

/** Back to the queue with a backoff, or failed for good after `maxAttempts`. */
export async function retryOrFail(db: Db, id: string, owner: string, error: string, maxAttempts: number, delaySeconds: number): Promise<void> {
  await ANALYSES.retryOrFail(db, id, owner, { error, maxAttempts, delaySeconds });
}

/** The execution is not over yet (an event arrived early): wait again. */
export async function backToWaiting(db: Db, id: string, owner: string): Promise<void> {
  await ANALYSES.release(db, id, 'waiting', { owner, patch: { attempts: 0 } });
}

export async function replaceItems(db: Db, executionId: string, items: NewAnalysisItemRow[]): Promise<AnalysisItemRow[]> {
  await db.deleteFrom('analysis_items').where('execution_id', '=', executionId).execute();
  if (!items.length) return [];
  return db.insertInto('analysis_items').values(items).returningAll().execute();
}

export async function listItems(db: Db, orgId: string, executionId: string): Promise<AnalysisItemRow[]> {
  return db.selectFrom('analysis_items').selectAll().where('org_id', '=', orgId).where('execution_id', '=', executionId).orderBy('position').execute();
}

export async function findItem(db: Db, orgId: string, executionId: string, testCaseId: string, lock = false): Promise<AnalysisItemRow | undefined> {
  let q = db.selectFrom('analysis_items').selectAll().where('org_id', '=', orgId).where('execution_id', '=', executionId).where('test_case_id', '=', testCaseId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function updateItem(db: Db, id: string, patch: Record<string, unknown>): Promise<AnalysisItemRow> {
  return db.updateTable('analysis_items').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export interface RunRecord {
  execution_id: string;
  test_case_id: string;
  org_id: string;
  project_id: string;
  test_plan_id: string;
  environment: string;
  test_case_version: string;
  status: 'passed' | 'failed';
  completed_at: Date;
}

export async function recordRuns(db: Db, runs: RunRecord[]): Promise<void> {
  if (!runs.length) return;
  await db
    .insertInto('test_runs')
    .values(runs)
    .onConflict((oc) => oc.columns(['execution_id', 'test_case_id']).doUpdateSet({ status: (eb) => eb.ref('excluded.status'), completed_at: (eb) => eb.ref('excluded.completed_at') }))
    .execute();
}

/** The last `limit` runs of a test on one plan, environment and version, oldest first. */
export async function runHistory(db: Db, orgId: string, k: { test_case_id: string; test_plan_id: string; environment: string; test_case_version: string }, limit: number): Promise<Array<'passed' | 'failed'>> {
  const rows = await db
    .selectFrom('test_runs')
    .select(['status'])
    .where('org_id', '=', orgId)
    .where('test_case_id', '=', k.test_case_id)
    .where('test_plan_id', '=', k.test_plan_id)
    .where('environment', '=', k.environment)
    .where('test_case_version', '=', k.test_case_version)
    .orderBy('completed_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => r.status).reverse();
}

/** Every run history of a test case, grouped by plan, environment and version (latest first). */
export async function runGroups(db: Db, orgId: string, testCaseId: string) {
  return db
    .selectFrom('test_runs')
    .select(['test_plan_id', 'environment', 'test_case_version', 'status', 'completed_at', 'execution_id'])
    .where('org_id', '=', orgId)
    .where('test_case_id', '=', testCaseId)
    .orderBy('completed_at', 'desc')
    .limit(2000)
    .execute();
}

export interface KnownElementRecord {
  org_id: string;
  project_id: string;
  test_case_id: string;
  step_id: string;
  selector: string;
  page_url: string | null;
  fingerprint: string;
  execution_id: string;
  seen_at: Date;
}

/** The newest fingerprint per step wins (runs are analysed in any order). */
export async function recordKnownElements(db: Db, rows: KnownElementRecord[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('known_elements')
      .values(rows.slice(i, i + 500))
      .onConflict((oc) =>
        oc
          .columns(['org_id', 'test_case_id', 'step_id'])
          .doUpdateSet({
            selector: (eb) => eb.ref('excluded.selector'),
            page_url: (eb) => eb.ref('excluded.page_url'),
            fingerprint: (eb) => eb.ref('excluded.fingerprint'),
            execution_id: (eb) => eb.ref('excluded.execution_id'),
            seen_at: (eb) => eb.ref('excluded.seen_at'),
          })
          .where('known_elements.seen_at', '<', (eb) => eb.ref('excluded.seen_at')),
      )
      .execute();
  }
}

export async function findKnownElement(db: Db, orgId: string, testCaseId: string, stepId: string) {
  return db.selectFrom('known_elements').selectAll().where('org_id', '=', orgId).where('test_case_id', '=', testCaseId).where('step_id', '=', stepId).executeTakeFirst();
}

export async function findKnownBySelector(db: Db, orgId: string, projectId: string, selector: string) {
  return db.selectFrom('known_elements').selectAll().where('org_id', '=', orgId).where('project_id', '=', projectId).where('selector', '=', selector).orderBy('seen_at', 'desc').limit(1).executeTakeFirst();
}

export async function rejectedSignatures(db: Db, orgId: string, testCaseId: string, stepId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('rejections').select('candidate_signature').where('org_id', '=', orgId).where('test_case_id', '=', testCaseId).where('step_id', '=', stepId).execute();
  return new Set(rows.map((r) => r.candidate_signature));
}

export async function insertRejection(db: Db, row: { org_id: string; test_case_id: string; step_id: string; candidate_signature: string; selector: string; reason: string | null; item_id: string }): Promise<void> {
  await db.insertInto('rejections').values(row).onConflict((oc) => oc.columns(['org_id', 'test_case_id', 'step_id', 'candidate_signature']).doNothing()).execute();
}

/** Ties an analysis item to the issue its failure is an occurrence of. */
export async function linkItemToIssue(db: Db, itemId: string, issueId: string): Promise<void> {
  await db.updateTable('analysis_items').set({ issue_id: issueId }).where('id', '=', itemId).execute();
}
