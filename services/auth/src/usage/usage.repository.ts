import { sql, type Kysely } from 'kysely';
import type { QuotaType } from '@assay/contracts';
import type { AuthDatabase } from '../db/database.js';

type Db = Kysely<AuthDatabase>;

/** Adds `amount` (base units) to a counter and returns its new total. */
export async function addUsage(db: Db, orgId: string, period: string, quota: QuotaType, amount: number): Promise<number> {
  const row = await db
    .insertInto('usage_counters')
    .values({ org_id: orgId, period, quota, amount: String(amount) })
    .onConflict((oc) =>
      oc.columns(['org_id', 'period', 'quota']).doUpdateSet({ amount: sql`usage_counters.amount + excluded.amount`, updated_at: sql`now()` }),
    )
    .returning('amount')
    .executeTakeFirstOrThrow();
  return Number(row.amount);
}

/** Base-unit totals of every quota of an organization in a period (0 when nothing was used). */
export async function usageOf(db: Db, orgId: string, period: string): Promise<Record<QuotaType, number>> {
  const rows = await db.selectFrom('usage_counters').select(['quota', 'amount']).where('org_id', '=', orgId).where('period', '=', period).execute();
  const out: Record<QuotaType, number> = { browser_minutes: 0, discovery_pages: 0, executions: 0 };
  for (const r of rows) out[r.quota] = Number(r.amount);
  return out;
}

/** Records that executions were metered; answers the ids not metered before (a requeued run starts twice). */
export async function markExecutionsMetered(db: Db, executions: Array<{ orgId: string; executionId: string }>): Promise<string[]> {
  if (executions.length === 0) return [];
  const rows = await db
    .insertInto('metered_executions')
    .values(executions.map((e) => ({ execution_id: e.executionId, org_id: e.orgId })))
    .onConflict((oc) => oc.column('execution_id').doNothing())
    .returning('execution_id')
    .execute();
  return rows.map((r) => r.execution_id);
}

/** Records an alert level for an organization, period and quota; false when it was recorded before. */
export async function recordAlert(db: Db, orgId: string, period: string, quota: QuotaType, level: 'warning' | 'exceeded'): Promise<boolean> {
  const row = await db
    .insertInto('quota_alerts')
    .values({ org_id: orgId, period, quota, level })
    .onConflict((oc) => oc.columns(['org_id', 'period', 'quota', 'level']).doNothing())
    .returning('level')
    .executeTakeFirst();
  return row !== undefined;
}
