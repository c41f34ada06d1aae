import { PLAN_CATALOG } from '@assay/contracts';
import type { Plan } from '@assay/principal';

/** Webhook limits by plan, read from the one plan catalog (`@assay/contracts`); unlimited webhooks are Infinity here. */
export const PLAN_LIMITS: Record<Plan, { webhooks: number; eventsPerDay: number; attempts: number; historyDays: number; conditionalRules: boolean }> = Object.fromEntries(
  Object.entries(PLAN_CATALOG).map(([plan, limits]) => [plan, { ...limits.webhooks, webhooks: limits.webhooks.webhooks ?? Infinity }]),
) as Record<Plan, { webhooks: number; eventsPerDay: number; attempts: number; historyDays: number; conditionalRules: boolean }>;

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
