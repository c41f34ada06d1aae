import { planLimits, type QuotaType } from '@assay/contracts';
import { AppError, MESSAGES } from '@assay/http';
import type { Principal } from '@assay/principal';

/** A quota the organization has used up this month, as auth reports it with the credential. */
export interface ExceededQuota {
  quota: QuotaType;
  used: number;
  limit: number;
  unit: string;
  resets_at: string;
}

/** Account routes stay reachable on a plan without API access, so its members can see the organization, its usage and its members. */
const ACCOUNT_ROUTES = /^\/api\/(auth|organizations)(\/|$)/;

/**
 * 403 for an organization whose plan has no API access (spec, Authentication 8),
 * on every call but the account routes; null when the call may go on.
 */
export function planRefusal(principal: Principal, path: string): AppError | null {
  if (principal.kind === 'service' || planLimits(principal.plan).apiAccess || ACCOUNT_ROUTES.test(path)) return null;
  return new AppError(403, 'insufficient_permissions', MESSAGES.insufficientPermissions, {
    plan: principal.plan,
    api_access: false,
    reason: `The ${principal.plan} plan has no API access; upgrade the subscription to use the API`,
  });
}

/** New work of each quota's kind: starting executions and starting discovery sessions. Work already started is never refused. */
const NEW_WORK: Array<{ method: string; path: RegExp; quotas: QuotaType[]; what: string }> = [
  { method: 'POST', path: /^\/api\/(v1\/)?executions(\/async)?\/?$/, quotas: ['executions', 'browser_minutes'], what: 'executions' },
  { method: 'POST', path: /^\/api\/v1\/discovery\/start\/?$/, quotas: ['discovery_pages'], what: 'discovery sessions' },
  // An exploratory run is an execution of kind `run`: metered from the same events, refused by the same quotas.
  { method: 'POST', path: /^\/api\/v1\/test-runs\/?$/, quotas: ['executions', 'browser_minutes'], what: 'test runs' },
  // A recording drives a browser: refused once the browser minutes are used up (its own minutes are not metered yet).
  { method: 'POST', path: /^\/api\/v1\/recordings\/?$/, quotas: ['browser_minutes'], what: 'recordings' },
];

const QUOTA_LABEL: Record<QuotaType, string> = { browser_minutes: 'browser minutes', discovery_pages: 'discovery pages', executions: 'executions' };

/**
 * 403 for new work of a kind whose monthly quota is used up (spec, Errors:
 * "quota exceeded"), naming the quota and when it resets; null otherwise.
 */
export function quotaRefusal(method: string, path: string, exceeded: ExceededQuota[] | undefined): AppError | null {
  if (!exceeded?.length) return null;
  const work = NEW_WORK.find((w) => w.method === method && w.path.test(path));
  if (!work) return null;
  const hit = exceeded.find((q) => work.quotas.includes(q.quota));
  if (!hit) return null;
  return new AppError(
    403,
    'insufficient_permissions',
    `Monthly quota of ${QUOTA_LABEL[hit.quota]} exceeded (${hit.used} of ${hit.limit} ${hit.unit}); new ${work.what} are refused until it resets at ${hit.resets_at}`,
    { quota: hit.quota, used: hit.used, limit: hit.limit, unit: hit.unit, resets_at: hit.resets_at },
  );
}
