import { planLimits, type ExceededQuota, type QuotaType, type RouteContract } from '@assay/contracts';
import { AppError, MESSAGES } from '@assay/http';
import type { Principal } from '@assay/principal';

export type { ExceededQuota } from '@assay/contracts';

/**
 * 403 for an organization whose plan has no API access (spec, Authentication 8),
 * on every call but the account routes (the organization scope's: `/api/auth/*`,
 * `/api/organizations/*`), so its members can see the organization, its usage
 * and its members; null when the call may go on.
 */
export function planRefusal(principal: Principal, route: RouteContract): AppError | null {
  if (principal.kind === 'service' || planLimits(principal.plan).apiAccess || route.scope?.startsWith('organization:')) return null;
  return new AppError('insufficient_permissions', MESSAGES.insufficientPermissions, {
    plan: principal.plan,
    api_access: false,
    reason: `The ${principal.plan} plan has no API access; upgrade the subscription to use the API`,
  });
}

const QUOTA_LABEL: Record<QuotaType, string> = { browser_minutes: 'browser minutes', discovery_pages: 'discovery pages', executions: 'executions' };

/**
 * 403 for new work (a catalogue entry with a `quota`) of a kind whose monthly
 * quota is used up (spec, Errors: "quota exceeded"), naming the quota and when
 * it resets; null otherwise. Work already started is never refused.
 */
export function quotaRefusal(route: RouteContract, exceeded: ExceededQuota[] | undefined): AppError | null {
  if (!exceeded?.length || !route.quota) return null;
  const work = route.quota;
  const hit = exceeded.find((q) => work.quotas.includes(q.quota));
  if (!hit) return null;
  return new AppError(
    'insufficient_permissions',
    `Monthly quota of ${QUOTA_LABEL[hit.quota]} exceeded (${hit.used} of ${hit.limit} ${hit.unit}); new ${work.what} are refused until it resets at ${hit.resets_at}`,
    { quota: hit.quota, used: hit.used, limit: hit.limit, unit: hit.unit, resets_at: hit.resets_at },
  );
}
