import type { Plan } from '@assay/principal';

/** Webhook limits by plan (spec, Limits). */
export const PLAN_LIMITS: Record<Plan, { webhooks: number; eventsPerDay: number; attempts: number; historyDays: number; conditionalRules: boolean }> = {
  starter: { webhooks: 3, eventsPerDay: 1_000, attempts: 3, historyDays: 7, conditionalRules: false },
  growth: { webhooks: 10, eventsPerDay: 10_000, attempts: 7, historyDays: 30, conditionalRules: false },
  pro: { webhooks: Infinity, eventsPerDay: 100_000, attempts: 7, historyDays: 90, conditionalRules: true },
};

/** Rate limits of the spec: per webhook and per organization, per minute and per day. */
export const RATE_LIMITS = {
  webhookPerMinute: 100,
  webhookPerDay: 10_000,
  orgPerMinute: 1_000,
  orgPerDay: 100_000,
} as const;

/**
 * Delay before attempt n+1 after attempt n failed (spec, Events): attempt 1
 * immediately, then +1 min, +5 min, +15 min, +1 h, +3 h, +6 h.
 */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 15 * 60_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000] as const;

/** Longest Retry-After the dispatcher honours; a longer one is cut to it. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** Answers past it count as no answer. */
export const RESPONSE_TIMEOUT_MS = 5_000;

/** Bytes of a response body kept in the log. */
export const RESPONSE_BODY_BYTES = 4096;
