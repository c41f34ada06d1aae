import { CronExpressionParser } from 'cron-parser';
import type { FieldError } from './field-error.js';

/** The most occurrences counted when catching up after downtime (the count is only reported). */
const MISSED_COUNT_CAP = 10_000;

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * Problems with a schedule's cron and time zone: exactly five fields
 * (minute hour day-of-month month day-of-week; no seconds, no `@` aliases),
 * each within its range, a known IANA time zone, and at least one occurrence.
 */
export function cronProblems(cron: string, timezone: string): FieldError[] {
  const problems: FieldError[] = [];
  if (!isTimeZone(timezone)) problems.push({ field: 'timezone', message: 'is not an IANA time zone (e.g. UTC, Europe/Paris)' });
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5 || cron.trim().startsWith('@')) {
    problems.push({ field: 'cron', message: 'must have five fields: minute hour day-of-month month day-of-week' });
    return problems;
  }
  try {
    const expr = CronExpressionParser.parse(fields.join(' '), { tz: problems.length ? 'UTC' : timezone });
    expr.next();
  } catch (err) {
    problems.push({ field: 'cron', message: `is not a valid cron expression: ${(err as Error).message}` });
  }
  return problems;
}

/** The next `n` occurrences strictly after `after`. */
export function nextOccurrences(cron: string, timezone: string, after: Date, n: number): Date[] {
  const expr = CronExpressionParser.parse(cron.trim(), { tz: timezone, currentDate: after });
  const out: Date[] = [];
  for (let i = 0; i < n && expr.hasNext(); i++) out.push(expr.next().toDate());
  return out;
}

export function nextOccurrence(cron: string, timezone: string, after: Date): Date | null {
  return nextOccurrences(cron, timezone, after, 1)[0] ?? null;
}

/**
 * Occurrences from `due` (itself an occurrence) up to `now`: the latest of
 * them, which is the one to run, and how many earlier ones were missed
 * (counted up to 10,000).
 */
export function catchUp(cron: string, timezone: string, due: Date, now: Date): { latest: Date; missed: number } {
  if (now.getTime() <= due.getTime()) return { latest: due, missed: 0 };
  const back = CronExpressionParser.parse(cron.trim(), { tz: timezone, currentDate: new Date(now.getTime() + 1) });
  const prev = back.hasPrev() ? back.prev().toDate() : due;
  const latest = prev.getTime() > due.getTime() ? prev : due;
  const expr = CronExpressionParser.parse(cron.trim(), { tz: timezone, currentDate: due });
  let missed = 0;
  while (missed < MISSED_COUNT_CAP && expr.hasNext() && expr.next().toDate().getTime() <= latest.getTime()) missed += 1;
  return { latest, missed };
}
