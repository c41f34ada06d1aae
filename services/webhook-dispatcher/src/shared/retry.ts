import { MAX_RETRY_AFTER_MS, RETRY_DELAYS_MS } from './plans.js';

/**
 * When the next attempt is due after `attempt` (1-based) failed at `now`, or
 * null when it was the last. A `Retry-After` (429/503) later than the
 * schedule slot postpones the attempt to it.
 */
export function nextAttemptAt(now: Date, attempt: number, maxAttempts: number, retryAfterMs?: number): Date | null {
  if (attempt >= maxAttempts) return null;
  const scheduled = RETRY_DELAYS_MS[attempt - 1] ?? RETRY_DELAYS_MS[RETRY_DELAYS_MS.length - 1]!;
  const wait = Math.max(scheduled, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
  return new Date(now.getTime() + wait);
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now.getTime());
}
