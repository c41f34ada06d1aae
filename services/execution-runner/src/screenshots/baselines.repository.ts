import { sql, type Kysely } from 'kysely';
import type { ExecutionDatabase, ScreenshotBaselineRow } from '../db/database.js';
import { deleteArtifact, insertArtifact, type ArtifactLimits } from '../artifacts/artifacts.repository.js';

type Db = Kysely<ExecutionDatabase>;

/** One baseline's identity: the case, its step, the browser and the viewport. */
export interface BaselineIdentity {
  org_id: string;
  test_case_id: string;
  step_id: string;
  browser: string;
  viewport: string;
}

export interface NewBaseline extends BaselineIdentity {
  project_id: string;
  name: string | null;
  png: Buffer;
  origin: 'first_run' | 'approved';
  source_execution_id: string | null;
}

/** Width and height from a PNG's IHDR chunk. */
export function pngSize(png: Buffer): { width: number; height: number } {
  if (png.length < 24 || png.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** The baseline of this case, step, browser and viewport with its PNG, if one is stored. */
export async function findBaselineImage(db: Db, k: BaselineIdentity): Promise<{ id: string; png: Buffer } | undefined> {
  const row = await db
    .selectFrom('screenshot_baselines as b')
    .innerJoin('artifacts as a', 'a.id', 'b.artifact_id')
    .select(['b.id', 'a.data'])
    .where('b.org_id', '=', k.org_id)
    .where('b.test_case_id', '=', k.test_case_id)
    .where('b.step_id', '=', k.step_id)
    .where('b.browser', '=', k.browser)
    .where('b.viewport', '=', k.viewport)
    .executeTakeFirst();
  return row ? { id: row.id, png: row.data } : undefined;
}

/** Thrown inside the transaction when another run stored the first baseline meanwhile: nothing is kept. */
class BaselineExists extends Error {}

/**
 * Stores a first baseline: its PNG as an artifact (counted in the quota) and
 * its row, together. When another run stored one first, that one stays and
 * nothing is stored (answers false).
 * @throws ArtifactRefusedError when the quota or size cap refuses the PNG.
 */
export async function insertFirstBaseline(db: Db, limits: ArtifactLimits, b: NewBaseline): Promise<boolean> {
  try {
    await db.transaction().execute(async (trx) => {
      const artifactId = await insertArtifact(trx, limits, { org_id: b.org_id, execution_id: null, kind: 'baseline', content_type: 'image/png', data: b.png, keep_days: null });
      const row = await trx
        .insertInto('screenshot_baselines')
        .values(baselineValues(b, artifactId))
        .onConflict((oc) => oc.constraint('screenshot_baselines_key').doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!row) throw new BaselineExists();
    });
    return true;
  } catch (err) {
    if (err instanceof BaselineExists) return false;
    throw err;
  }
}

const baselineValues = (b: NewBaseline, artifactId: string) => {
  const { width, height } = pngSize(b.png);
  return {
    org_id: b.org_id,
    project_id: b.project_id,
    test_case_id: b.test_case_id,
    step_id: b.step_id,
    name: b.name,
    browser: b.browser,
    viewport: b.viewport,
    artifact_id: artifactId,
    width,
    height,
    size: b.png.length,
    origin: b.origin,
    source_execution_id: b.source_execution_id,
  };
};

/**
 * Makes the PNG the baseline of its key: replaces the stored one (its
 * artifact deleted, its bytes given back to the quota) or creates it.
 * @throws ArtifactRefusedError when the quota or size cap refuses the PNG.
 */
export async function replaceBaseline(db: Db, limits: ArtifactLimits, b: NewBaseline): Promise<ScreenshotBaselineRow> {
  return db.transaction().execute(async (trx) => {
    const old = await trx
      .selectFrom('screenshot_baselines')
      .select(['id', 'artifact_id'])
      .where('org_id', '=', b.org_id)
      .where('test_case_id', '=', b.test_case_id)
      .where('step_id', '=', b.step_id)
      .where('browser', '=', b.browser)
      .where('viewport', '=', b.viewport)
      .forUpdate()
      .executeTakeFirst();
    const artifactId = await insertArtifact(trx, limits, { org_id: b.org_id, execution_id: null, kind: 'baseline', content_type: 'image/png', data: b.png, keep_days: null });
    const values = baselineValues(b, artifactId);
    if (old) {
      const row = await trx.updateTable('screenshot_baselines').set({ ...values, updated_at: sql<Date>`now()` }).where('id', '=', old.id).returningAll().executeTakeFirstOrThrow();
      // The row no longer points at the old PNG: it goes, and its bytes go back to the quota.
      await deleteArtifact(trx, b.org_id, old.artifact_id);
      return row;
    }
    return trx
      .insertInto('screenshot_baselines')
      .values(values)
      .onConflict((oc) => oc.constraint('screenshot_baselines_key').doUpdateSet({ ...values, updated_at: sql<Date>`now()` }))
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export interface BaselineFilter {
  test_case_id?: string;
  step_id?: string;
  project_id?: string;
}

/** The organization's baselines matching the filter, newest first. */
export async function listBaselines(db: Db, orgId: string, f: BaselineFilter, limit: number, offset: number): Promise<{ rows: ScreenshotBaselineRow[]; total: number }> {
  let q = db.selectFrom('screenshot_baselines').where('org_id', '=', orgId);
  if (f.test_case_id) q = q.where('test_case_id', '=', f.test_case_id);
  if (f.step_id) q = q.where('step_id', '=', f.step_id);
  if (f.project_id) q = q.where('project_id', '=', f.project_id);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('updated_at', 'desc').orderBy('id').limit(limit).offset(offset).execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function findBaselineById(db: Db, orgId: string, id: string): Promise<ScreenshotBaselineRow | undefined> {
  return db.selectFrom('screenshot_baselines').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

/** Deletes a baseline and its PNG (its bytes given back to the quota); false when the organization has no such baseline. */
export async function deleteBaseline(db: Db, orgId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const gone = await trx.deleteFrom('screenshot_baselines').where('org_id', '=', orgId).where('id', '=', id).returning('artifact_id').executeTakeFirst();
    if (!gone) return false;
    await deleteArtifact(trx, orgId, gone.artifact_id);
    return true;
  });
}
