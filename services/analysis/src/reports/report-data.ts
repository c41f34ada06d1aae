import type { ReportExecution } from '../clients/runner.client.js';

export const REPORT_KINDS = ['pass_rate', 'flaky_tests', 'slowest_steps', 'failure_categories', 'open_issues'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

/** One table of a report: named columns and rows of plain values (JSON, CSV and HTML all show these). */
export interface ReportTable {
  columns: string[];
  rows: Array<Array<string | number | null>>;
}

/** The day (UTC, YYYY-MM-DD) a timestamp falls on. */
const dayOf = (ts: string) => ts.slice(0, 10);

/**
 * Pass rate per plan and environment, by day and over the period: passed
 * tests over passed and failed tests (skipped ones are not counted), as a
 * percentage with one decimal; executions counted by the day they ended.
 */
export function passRate(executions: ReportExecution[]): { by_day: ReportTable; totals: ReportTable } {
  const key = (e: ReportExecution, day?: string) => JSON.stringify([e.test_plan_id, e.test_plan_name, e.environment ?? '', ...(day ? [day] : [])]);
  const count = (keyed: (e: ReportExecution) => string) => {
    const acc = new Map<string, { executions: number; passed: number; failed: number }>();
    for (const e of executions) {
      const k = keyed(e);
      const a = acc.get(k) ?? { executions: 0, passed: 0, failed: 0 };
      a.executions += 1;
      a.passed += e.tests.filter((t) => t.status === 'passed').length;
      a.failed += e.tests.filter((t) => t.status === 'failed').length;
      acc.set(k, a);
    }
    return [...acc.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, a]) => [...(JSON.parse(k) as string[]), a.executions, a.passed, a.failed, rate(a.passed, a.failed)]);
  };
  return {
    by_day: { columns: ['test_plan_id', 'test_plan_name', 'environment', 'day', 'executions', 'passed', 'failed', 'pass_rate'], rows: count((e) => key(e, dayOf(e.completed_at))) },
    totals: { columns: ['test_plan_id', 'test_plan_name', 'environment', 'executions', 'passed', 'failed', 'pass_rate'], rows: count((e) => key(e)) },
  };
}

export const rate = (passed: number, failed: number) => (passed + failed ? Math.round((passed / (passed + failed)) * 1000) / 10 : null);

/**
 * Flip rate per test (within a plan and environment): the share of
 * consecutive runs, in the order the executions ended, whose outcome differs
 * from the run before (passed ↔ failed). Tests that ran fewer than twice are left out.
 */
export function flakyTests(executions: ReportExecution[]): ReportTable {
  const runs = new Map<string, { name: string; outcomes: Array<'passed' | 'failed'> }>();
  const ordered = [...executions].sort((a, b) => a.completed_at.localeCompare(b.completed_at) || a.id.localeCompare(b.id));
  for (const e of ordered) {
    for (const t of e.tests) {
      if (t.status !== 'passed' && t.status !== 'failed') continue;
      const k = JSON.stringify([t.test_id, e.test_plan_id, e.environment ?? '']);
      const r = runs.get(k) ?? { name: t.name, outcomes: [] };
      r.outcomes.push(t.status);
      runs.set(k, r);
    }
  }
  const rows: ReportTable['rows'] = [];
  for (const [k, r] of runs) {
    if (r.outcomes.length < 2) continue;
    const flips = r.outcomes.slice(1).filter((o, i) => o !== r.outcomes[i]).length;
    const [testId, planId, environment] = JSON.parse(k) as string[];
    const failed = r.outcomes.filter((o) => o === 'failed').length;
    rows.push([testId!, r.name, planId!, environment!, r.outcomes.length, failed, flips, Math.round((flips / (r.outcomes.length - 1)) * 1000) / 10]);
  }
  rows.sort((a, b) => (b[7] as number) - (a[7] as number) || String(a[1]).localeCompare(String(b[1])));
  return { columns: ['test_case_id', 'test_name', 'test_plan_id', 'environment', 'runs', 'failed', 'flips', 'flip_rate'], rows };
}

/** The value below which `q` of the sorted values lie (nearest rank). */
export function percentile(sorted: number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

/** Median of sorted values (the mean of the two middle ones for an even count). */
export function median(sorted: number[]): number {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median and p95 (nearest rank) of step durations per action and selector, over steps that ran (passed or failed). */
export function slowestSteps(executions: ReportExecution[], top = 50): ReportTable {
  const durations = new Map<string, number[]>();
  for (const e of executions) {
    for (const t of e.tests) {
      for (const s of t.steps) {
        if (s.status === 'skipped' || !s.action) continue;
        const k = JSON.stringify([s.action, s.selector ?? '']);
        durations.set(k, [...(durations.get(k) ?? []), s.duration_ms]);
      }
    }
  }
  const rows = [...durations.entries()].map(([k, d]) => {
    const sorted = [...d].sort((a, b) => a - b);
    const [action, selector] = JSON.parse(k) as string[];
    return [action!, selector!, sorted.length, median(sorted), percentile(sorted, 0.95), sorted[sorted.length - 1]!];
  });
  rows.sort((a, b) => (b[4] as number) - (a[4] as number) || (b[3] as number) - (a[3] as number) || String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1])));
  return { columns: ['action', 'selector', 'runs', 'median_ms', 'p95_ms', 'max_ms'], rows: rows.slice(0, top) };
}
