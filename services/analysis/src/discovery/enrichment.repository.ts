import type { Kysely } from 'kysely';
import { LeasedTable } from '@assay/db';
import type { AnalysisDatabase, EnrichmentRow, EnrichmentStatus } from '../db/database.js';

type Db = Kysely<AnalysisDatabase>;

/** A discovery session's enrichment is due (`pending`) once the session ends; a worker holds it `running`. */
const ENRICHMENTS = new LeasedTable<EnrichmentRow, EnrichmentStatus>({ table: 'enrichments', key: 'session_id', held: ['running'], waiting: 'pending', failed: 'failed', notBefore: 'not_before', touched: 'updated_at' });

/** A discovery session ended: its enrichment is due (if the session asked for it). Idempotent. */
export async function enqueueEnrichment(db: Db, row: { session_id: string; org_id: string; project_id: string | null }): Promise<void> {
  await db.insertInto('enrichments').values(row).onConflict((oc) => oc.column('session_id').doNothing()).execute();
}

export async function claimEnrichment(db: Db, owner: string, leaseSeconds: number): Promise<EnrichmentRow | undefined> {
  return ENRICHMENTS.claimNext(db, owner, leaseSeconds, 'running');
}

export async function finishEnrichment(db: Db, sessionId: string, owner: string, status: 'completed' | 'skipped', result: Record<string, unknown> | null): Promise<void> {
  await ENRICHMENTS.release(db, sessionId, status, { owner, patch: { result: result ? JSON.stringify(result) : null, error: null } });
}

export async function retryEnrichment(db: Db, sessionId: string, owner: string, error: string, maxAttempts: number, delaySeconds: number): Promise<void> {
  await ENRICHMENTS.retryOrFail(db, sessionId, owner, { error, maxAttempts, delaySeconds });
}
