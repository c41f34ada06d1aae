import { sql, type Kysely } from 'kysely';
import type { AnalysisDatabase, EnrichmentRow } from '../db/database.js';

type Db = Kysely<AnalysisDatabase>;

/** A discovery session ended: its enrichment is due (if the session asked for it). Idempotent. */
export async function enqueueEnrichment(db: Db, row: { session_id: string; org_id: string; project_id: string | null }): Promise<void> {
  await db.insertInto('enrichments').values(row).onConflict((oc) => oc.column('session_id').doNothing()).execute();
}

export async function claimEnrichment(db: Db, owner: string, leaseSeconds: number): Promise<EnrichmentRow | undefined> {
  const result = await sql<EnrichmentRow>`
    update enrichments set status = 'running', lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${leaseSeconds}),
      attempts = attempts + 1, updated_at = now()
    where session_id = (
      select session_id from enrichments
      where (status = 'pending' and not_before <= now()) or (status = 'running' and lease_expires_at < now())
      order by not_before limit 1 for update skip locked
    )
    returning *`.execute(db);
  return result.rows[0];
}

export async function finishEnrichment(db: Db, sessionId: string, owner: string, status: 'completed' | 'skipped', result: Record<string, unknown> | null): Promise<void> {
  await db
    .updateTable('enrichments')
    .set({ status, result: result ? JSON.stringify(result) : null, lease_owner: null, lease_expires_at: null, error: null, updated_at: sql`now()` })
    .where('session_id', '=', sessionId)
    .where('lease_owner', '=', owner)
    .execute();
}

export async function retryEnrichment(db: Db, sessionId: string, owner: string, error: string, maxAttempts: number, delaySeconds: number): Promise<void> {
  await db
    .updateTable('enrichments')
    .set({
      status: sql`case when attempts >= ${maxAttempts} then 'failed' else 'pending' end`,
      not_before: sql`now() + make_interval(secs => ${delaySeconds})`,
      error: error.slice(0, 1000),
      lease_owner: null,
      lease_expires_at: null,
      updated_at: sql`now()`,
    })
    .where('session_id', '=', sessionId)
    .where('lease_owner', '=', owner)
    .execute();
}
