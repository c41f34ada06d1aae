/**
 * The plan catalog: every limit a plan sets, in one table that auth, the
 * gateway and the webhook-dispatcher read. `null` means unlimited.
 *
 * `free` is what an organization falls to when its subscription ends: it
 * keeps its data, its members can sign in and see the organization, but it
 * has no API access (spec, Authentication 8: "a plan without API access").
 */
export const PLAN_NAMES = ['free', 'starter', 'growth', 'pro'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/** The monthly quotas a plan meters (calendar month, UTC). */
export const QUOTA_TYPES = ['browser_minutes', 'discovery_pages', 'executions'] as const;
export type QuotaType = (typeof QUOTA_TYPES)[number];

export interface PlanLimits {
  /** false: every API call is refused with 403, except the account routes (see the gateway README). */
  apiAccess: boolean;
  /** Requests per credential (spec, Limits). */
  rate: { minute: number; hour: number; day: number };
  /** Requests per minute to the test-case endpoints, a bucket of its own (spec, Limits: 30, 60, 120). */
  testCasesPerMinute: number;
  /** Members of the organization, owner included. */
  teamSize: number | null;
  webhooks: { webhooks: number | null; eventsPerDay: number; attempts: number; historyDays: number; conditionalRules: boolean };
  /** Monthly quotas; see QUOTA_TYPES. */
  quotas: Record<QuotaType, number | null>;
}

/** The one plan table (documented in the auth README). */
export const PLAN_CATALOG: Record<PlanName, PlanLimits> = {
  free: {
    apiAccess: false,
    rate: { minute: 30, hour: 500, day: 5_000 },
    testCasesPerMinute: 30,
    teamSize: 1,
    webhooks: { webhooks: 0, eventsPerDay: 0, attempts: 3, historyDays: 7, conditionalRules: false },
    quotas: { browser_minutes: 0, discovery_pages: 0, executions: 0 },
  },
  starter: {
    apiAccess: true,
    rate: { minute: 30, hour: 500, day: 5_000 },
    testCasesPerMinute: 30,
    teamSize: 5,
    webhooks: { webhooks: 3, eventsPerDay: 1_000, attempts: 3, historyDays: 7, conditionalRules: false },
    quotas: { browser_minutes: 1_000, discovery_pages: 5_000, executions: 1_000 },
  },
  growth: {
    apiAccess: true,
    rate: { minute: 60, hour: 1_000, day: 10_000 },
    testCasesPerMinute: 60,
    teamSize: 20,
    webhooks: { webhooks: 10, eventsPerDay: 10_000, attempts: 7, historyDays: 30, conditionalRules: false },
    quotas: { browser_minutes: 5_000, discovery_pages: 25_000, executions: 10_000 },
  },
  pro: {
    apiAccess: true,
    rate: { minute: 120, hour: 5_000, day: 50_000 },
    testCasesPerMinute: 120,
    teamSize: null,
    webhooks: { webhooks: null, eventsPerDay: 100_000, attempts: 7, historyDays: 90, conditionalRules: true },
    quotas: { browser_minutes: 20_000, discovery_pages: 100_000, executions: 50_000 },
  },
};

/** Browser time is billed per test case run in units of this many seconds, rounded up (like hosted CI runners). */
export const BROWSER_BILLING_UNIT_SECONDS = 30;

/** At this share of a quota `organization.quota.warning` is emitted (once per period). */
export const QUOTA_WARNING_PERCENT = 80;

/** Seconds of browser time billed for one test case run of `durationMs`: whole units, at least one. */
export function billedBrowserSeconds(durationMs: number): number {
  const units = Math.max(1, Math.ceil(Math.max(0, durationMs) / 1000 / BROWSER_BILLING_UNIT_SECONDS));
  return units * BROWSER_BILLING_UNIT_SECONDS;
}

/** The limits of a plan; an unknown name gets the `free` plan's (the safe side). */
export function planLimits(plan: string): PlanLimits {
  return (PLAN_CATALOG as Record<string, PlanLimits>)[plan] ?? PLAN_CATALOG.free;
}

/** The metering period (`YYYY-MM`, UTC) a moment falls in. */
export function usagePeriod(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** When the period of `at` ends and its quotas reset: the first instant of the next UTC month. */
export function periodResetsAt(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}
