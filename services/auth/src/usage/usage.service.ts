import type { Kysely } from 'kysely';
import { enqueueEvents, type NewEvent } from '@assay/bus';
import { QUOTA_TYPES, QUOTA_WARNING_PERCENT, periodResetsAt, planLimits, usagePeriod, type ExceededQuota, type QuotaType } from '@assay/contracts';
import type { AuthDatabase } from '../db/database.js';
import { findOrganizationById } from '../organizations/organizations.repository.js';
import { addUsage, recordAlert, usageOf } from './usage.repository.js';

type Db = Kysely<AuthDatabase>;

/** How each quota is shown: browser time is stored in seconds and shown in minutes. */
export const QUOTA_UNITS: Record<QuotaType, { unit: 'minutes' | 'pages' | 'executions'; basePerUnit: number }> = {
  browser_minutes: { unit: 'minutes', basePerUnit: 60 },
  discovery_pages: { unit: 'pages', basePerUnit: 1 },
  executions: { unit: 'executions', basePerUnit: 1 },
};

const inUnits = (quota: QuotaType, base: number) => Math.round((base / QUOTA_UNITS[quota].basePerUnit) * 100) / 100;
const percentOf = (used: number, limit: number) => (limit === 0 ? 100 : Math.round((used / limit) * 1000) / 10);

export interface QuotaState {
  quota: QuotaType;
  unit: string;
  used: number;
  limit: number | null;
  percentage: number | null;
  exceeded: boolean;
}

/** Every quota of an organization in the period of `at`: use, limit, percentage. */
export async function quotaStates(db: Db, orgId: string, plan: string, at = new Date()): Promise<QuotaState[]> {
  const used = await usageOf(db, orgId, usagePeriod(at));
  const limits = planLimits(plan).quotas;
  return QUOTA_TYPES.map((quota) => {
    const limit = limits[quota];
    const u = inUnits(quota, used[quota]);
    return {
      quota,
      unit: QUOTA_UNITS[quota].unit,
      used: u,
      limit,
      percentage: limit === null ? null : percentOf(u, limit),
      exceeded: limit !== null && u >= limit,
    };
  });
}

/** A quota used up this month: the internal catalogue's type (auth answers it with a credential and the entitlements). */
export type { ExceededQuota } from '@assay/contracts';

/** The quotas used up this month: new work of their kind is refused until `resets_at`. */
export async function exceededQuotas(db: Db, orgId: string, plan: string, at = new Date()): Promise<ExceededQuota[]> {
  const resetsAt = periodResetsAt(at).toISOString();
  return (await quotaStates(db, orgId, plan, at))
    .filter((q) => q.exceeded)
    .map((q) => ({ quota: q.quota, used: q.used, limit: q.limit!, unit: q.unit, resets_at: resetsAt }));
}

/**
 * Adds use to a quota, in the caller's transaction (the inbox row of the event
 * that reported it commits with it), and emits `organization.quota.warning`
 * at 80% and `organization.quota.exceeded` at 100%, each once per month.
 * Exceeding also tells gateways to drop the organization's cached answers,
 * so new work is refused at once.
 */
export async function recordUsage(trx: Db, schema: string, input: { orgId: string; quota: QuotaType; amount: number; at: Date }): Promise<void> {
  const period = usagePeriod(input.at);
  const total = await addUsage(trx, input.orgId, period, input.quota, input.amount);
  const org = await findOrganizationById(trx, input.orgId);
  if (!org) return;
  const limit = planLimits(org.plan).quotas[input.quota];
  if (limit === null) return;
  const used = inUnits(input.quota, total);
  const percent = percentOf(used, limit);
  const base = { quota: input.quota, used, limit, unit: QUOTA_UNITS[input.quota].unit, period, resets_at: periodResetsAt(input.at).toISOString(), plan: org.plan };
  const events: NewEvent[] = [];
  if (percent >= QUOTA_WARNING_PERCENT && (await recordAlert(trx, org.id, period, input.quota, 'warning'))) {
    events.push({ event: 'organization.quota.warning', organization_id: org.id, data: { ...base, usage_percent: percent } });
  }
  if (used >= limit && (await recordAlert(trx, org.id, period, input.quota, 'exceeded'))) {
    events.push({ event: 'organization.quota.exceeded', organization_id: org.id, data: { ...base, usage_percent: percent } });
    events.push({ event: 'auth.organization.access_changed', organization_id: org.id, data: { reason: 'quota_exceeded' } });
  }
  await enqueueEvents(trx, schema, events);
}
