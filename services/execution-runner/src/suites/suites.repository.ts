import { sql, type Kysely } from 'kysely';
import { LeasedTable, selectPage } from '@assay/db';
import type { ExecutionDatabase, SuiteRow, SuiteTest, SuiteVersionRow, SuiteVersionStatus } from '../db/database.js';

type Db = Kysely<ExecutionDatabase>;

/** A version's columns without its archive bytes. */
const VERSION_COLUMNS = ['id', 'suite_id', 'org_id', 'version', 'format', 'size', 'sha256', 'files', 'config_file', 'dependencies', 'fully_parallel', 'tests', 'status', 'error', 'projects', 'listed_at', 'created_at'] as const;
export type SuiteVersionInfo = Omit<SuiteVersionRow, 'archive' | 'lease_owner' | 'lease_expires_at' | 'attempts'>;

export interface NewSuiteVersion {
  org_id: string;
  project_id: string;
  project_name: string;
  name: string;
  projects: string[];
  format: 'tar.gz' | 'zip';
  archive: Buffer;
  sha256: string;
  files: number;
  config_file: string | null;
  dependencies: string;
  fully_parallel: boolean;
  tests: SuiteTest[];
  /** `listing`: stored to be listed by a process that can make the box (its tests empty until then). */
  status: 'listing' | 'ready';
}

/**
 * Stores a new version of the suite named `name` in the project (the suite
 * itself on its first upload): the suite row is locked while its next
 * version number is drawn, so two uploads never get the same one.
 */
export async function insertSuiteVersion(db: Db, v: NewSuiteVersion): Promise<{ suite: SuiteRow; version: SuiteVersionInfo }> {
  const suite = await db
    .insertInto('suites')
    .values({ org_id: v.org_id, project_id: v.project_id, project_name: v.project_name, name: v.name, projects: JSON.stringify(v.projects), latest_version: 1 })
    .onConflict((oc) =>
      oc.constraint('suites_name').doUpdateSet({ latest_version: sql`suites.latest_version + 1`, projects: JSON.stringify(v.projects), project_name: v.project_name, updated_at: sql`now()` }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  const version = await db
    .insertInto('suite_versions')
    .values({
      suite_id: suite.id,
      org_id: v.org_id,
      version: suite.latest_version,
      format: v.format,
      archive: v.archive,
      size: v.archive.length,
      sha256: v.sha256,
      files: v.files,
      config_file: v.config_file,
      dependencies: v.dependencies,
      fully_parallel: v.fully_parallel,
      tests: JSON.stringify(v.tests),
      status: v.status,
      error: null,
      projects: JSON.stringify(v.projects),
      lease_owner: null,
      listed_at: v.status === 'ready' ? sql<Date>`now()` : null,
    })
    .returning(VERSION_COLUMNS)
    .executeTakeFirstOrThrow();
  return { suite, version };
}

export async function findSuite(db: Db, orgId: string, id: string): Promise<SuiteRow | undefined> {
  return db.selectFrom('suites').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

export async function findSuiteByName(db: Db, orgId: string, projectId: string | undefined, name: string): Promise<SuiteRow[]> {
  let q = db.selectFrom('suites').selectAll().where('org_id', '=', orgId).where('name', '=', name);
  if (projectId) q = q.where('project_id', '=', projectId);
  return q.limit(2).execute();
}

export async function listSuites(db: Db, orgId: string, projectId: string, limit: number, offset: number) {
  const q = db.selectFrom('suites').where('org_id', '=', orgId).where('project_id', '=', projectId);
  return selectPage(q.selectAll().orderBy('name').orderBy('id').limit(limit).offset(offset), q);
}

export async function listVersions(db: Db, suiteId: string, limit: number, offset: number) {
  const q = db.selectFrom('suite_versions').where('suite_id', '=', suiteId);
  return selectPage(q.select(VERSION_COLUMNS).orderBy('version', 'desc').limit(limit).offset(offset), q);
}

export async function findVersion(db: Db, suiteId: string, version: number): Promise<SuiteVersionInfo | undefined> {
  return db.selectFrom('suite_versions').select(VERSION_COLUMNS).where('suite_id', '=', suiteId).where('version', '=', version).executeTakeFirst();
}

/**
 * A version stored as `listing` waits for a process that can make the box (`suite.list.requested`), and keeps
 * that status while one lists it under a lease as long as the listing's own bound: `ready` or `invalid` after.
 */
const LISTINGS = new LeasedTable<SuiteVersionRow, SuiteVersionStatus>({ table: 'suite_versions', key: 'id', held: ['listing'], waiting: 'listing', failed: 'invalid' });

/** A version waiting to be listed, with its archive and its suite's key, as this worker takes it under a lease (bounded by the listing's own timeout); undefined when it is listed or another worker holds it. */
export async function claimListing(db: Db, versionId: string, owner: string, leaseMs: number) {
  const claimed = await LISTINGS.claim(db, versionId, owner, leaseMs / 1000, 'listing');
  if (!claimed) return undefined;
  const suite = await db.selectFrom('suites').select(['project_id', 'name']).where('id', '=', claimed.suite_id).executeTakeFirstOrThrow();
  return { ...claimed, project_id: suite.project_id, suite_name: suite.name };
}

/** Ends this worker's listing of a version: `ready` with its tests, or `invalid` with why. False when it was no longer this worker's. */
export async function finishListing(db: Db, versionId: string, owner: string, outcome: { tests: SuiteTest[]; fully_parallel: boolean } | { error: string }): Promise<boolean> {
  const listed = 'error' in outcome ? { status: 'invalid' as const, patch: { error: outcome.error } } : { status: 'ready' as const, patch: { tests: JSON.stringify(outcome.tests), fully_parallel: outcome.fully_parallel } };
  return !!(await LISTINGS.release(db, versionId, listed.status, { owner, patch: { ...listed.patch, listed_at: sql`now()` } }));
}

/** Versions whose listing worker stopped within the listing's bound (lease expired); their archives are not read. */
export async function expiredListings(db: Db) {
  return LISTINGS.expiredRows(db, 50, ['id', 'org_id', 'suite_id', 'attempts']);
}

/** Gives an expired listing back (no owner) so its new `suite.list.requested` finds it free; false when another worker took it first. */
export async function releaseListing(db: Db, versionId: string): Promise<boolean> {
  return !!(await LISTINGS.reap(db, versionId, 'listing'));
}

/** Marks an expired listing that was taken twice `invalid`, unless it was listed or taken meanwhile. */
export async function failListing(db: Db, versionId: string, error: string): Promise<void> {
  await LISTINGS.reap(db, versionId, 'invalid', { error, listed_at: sql`now()` });
}

/** A version with its archive (a run unpacks it). */
export async function findVersionArchive(db: Db, id: string): Promise<SuiteVersionRow | undefined> {
  return db.selectFrom('suite_versions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Mean duration (ms) of each test over the suite's last `runs` finished runs: the queue's order. */
export async function pastDurations(db: Db, orgId: string, suiteId: string, runs = 10): Promise<Map<string, number>> {
  const rows = await sql<{ test_case_id: string; ms: number }>`
    select r.test_case_id, avg(r.duration_ms)::float8 as ms
      from test_results r
      join (select id from executions where org_id = ${orgId} and kind = 'suite' and test_plan_id = ${suiteId} and status = 'completed'
             order by completed_at desc limit ${runs}) e on e.id = r.execution_id
     where r.status in ('passed', 'failed') and r.duration_ms is not null
     group by r.test_case_id`.execute(db);
  return new Map(rows.rows.map((r) => [r.test_case_id, r.ms]));
}

/** The suite page's figures over its last `runs` runs: last runs, slowest tests, flaky tests. */
export async function suiteFigures(db: Db, orgId: string, suiteId: string, runs = 20) {
  const lastRuns = await db
    .selectFrom('executions')
    .select(['id', 'status', 'passed_tests', 'failed_tests', 'skipped_tests', 'total_tests', 'created_at', 'started_at', 'completed_at', 'suite_options'])
    .where('org_id', '=', orgId)
    .where('kind', '=', 'suite')
    .where('test_plan_id', '=', suiteId)
    .orderBy('created_at', 'desc')
    .limit(runs)
    .execute();
  const ids = lastRuns.map((r) => r.id);
  const tests = ids.length
    ? (
        await sql<{ test_case_id: string; name: string; runs: number; mean_ms: number; max_ms: number; failed: number; flaky: number }>`
          select test_case_id, max(name) as name, count(*)::int as runs, avg(duration_ms)::float8 as mean_ms, max(duration_ms)::int as max_ms,
                 count(*) filter (where status = 'failed')::int as failed,
                 count(*) filter (where suite_test->>'flaky' = 'true')::int as flaky
            from test_results
           where execution_id in (${sql.join(ids)}) and status in ('passed', 'failed')
           group by test_case_id`.execute(db)
      ).rows
    : [];
  return { lastRuns, tests };
}
