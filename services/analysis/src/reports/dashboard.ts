import type { ReportExecution } from '../clients/runner.client.js';
import { flakyTests, median, percentile, rate, type ReportTable } from './report-data.js';

const DAY_MS = 86_400_000;
const TOP = 10;

/** A finished run as a person reads it: passed only when every case passed. */
const outcomeOf = (e: ReportExecution): 'passed' | 'failed' =>
  e.status === 'completed' && e.tests.length > 0 && e.tests.every((t) => t.status === 'passed') ? 'passed' : 'failed';

export interface Dashboard {
  project_id: string;
  period: { from: string; to: string; days: number };
  summary: { runs: number; passed_runs: number; failed_runs: number; run_pass_rate: number | null; tests_passed: number; tests_failed: number; test_pass_rate: number | null; open_issues: number };
  pass_rate_by_day: Array<{ day: string; runs: number; passed_runs: number; tests_passed: number; tests_failed: number; pass_rate: number | null }>;
  slowest_cases: Array<{ test_case_id: string; name: string; runs: number; median_ms: number; p95_ms: number }>;
  flakiest_cases: Array<{ test_case_id: string; name: string; runs: number; failed: number; flips: number; flip_rate: number }>;
  open_issues: Array<{ issue_id: string; title: string; category: string; status: string; test_name: string | null; occurrences: number; last_seen: string | null }>;
  last_runs: Array<{ execution_id: string; name: string; environment: string | null; outcome: 'passed' | 'failed'; passed: number; failed: number; total: number; completed_at: string; duration_ms: number | null }>;
}

/**
 * A project's dashboard over the last `days`, from the data reports count
 * (finished plan runs and open issues), computed when asked: pass rate by day
 * (every day of the period, empty ones included), the slowest and flakiest
 * cases, open issues and the last runs. Durations in milliseconds, rates in
 * percent with one decimal.
 */
export function buildDashboard(
  projectId: string,
  executions: ReportExecution[],
  issues: Array<{ id: string; title: string; category: string; status: string; test_name: string | null; occurrences: number; last_seen: Date | null }>,
  period: { from: Date; to: Date; days: number },
): Dashboard {
  const byDay = new Map<string, { runs: number; passed_runs: number; tests_passed: number; tests_failed: number }>();
  for (let t = period.to.getTime() - (period.days - 1) * DAY_MS; t <= period.to.getTime(); t += DAY_MS) byDay.set(new Date(t).toISOString().slice(0, 10), { runs: 0, passed_runs: 0, tests_passed: 0, tests_failed: 0 });
  let passedRuns = 0;
  let testsPassed = 0;
  let testsFailed = 0;
  const durations = new Map<string, { name: string; ms: number[] }>();
  for (const e of executions) {
    const day = byDay.get(e.completed_at.slice(0, 10));
    const passed = e.tests.filter((t) => t.status === 'passed').length;
    const failed = e.tests.filter((t) => t.status === 'failed').length;
    const ok = outcomeOf(e) === 'passed';
    passedRuns += ok ? 1 : 0;
    testsPassed += passed;
    testsFailed += failed;
    if (day) {
      day.runs += 1;
      day.passed_runs += ok ? 1 : 0;
      day.tests_passed += passed;
      day.tests_failed += failed;
    }
    for (const t of e.tests) {
      if ((t.status !== 'passed' && t.status !== 'failed') || t.duration_ms === null) continue;
      const d = durations.get(t.test_id) ?? { name: t.name, ms: [] };
      d.ms.push(t.duration_ms);
      durations.set(t.test_id, d);
    }
  }
  const slowest = [...durations.entries()]
    .map(([id, d]) => {
      const sorted = [...d.ms].sort((a, b) => a - b);
      return { test_case_id: id, name: d.name, runs: sorted.length, median_ms: Math.round(median(sorted)), p95_ms: percentile(sorted, 0.95) };
    })
    .sort((a, b) => b.median_ms - a.median_ms || a.name.localeCompare(b.name))
    .slice(0, TOP);
  const flaky = flakyTests(executions);
  const col = (t: ReportTable, name: string) => t.columns.indexOf(name);
  const flakiest = flaky.rows
    .filter((r) => (r[col(flaky, 'flips')] as number) > 0)
    .slice(0, TOP)
    .map((r) => ({ test_case_id: String(r[col(flaky, 'test_case_id')]), name: String(r[col(flaky, 'test_name')]), runs: r[col(flaky, 'runs')] as number, failed: r[col(flaky, 'failed')] as number, flips: r[col(flaky, 'flips')] as number, flip_rate: r[col(flaky, 'flip_rate')] as number }));
  const last = [...executions].sort((a, b) => b.completed_at.localeCompare(a.completed_at) || b.id.localeCompare(a.id)).slice(0, TOP);
  return {
    project_id: projectId,
    period: { from: period.from.toISOString(), to: period.to.toISOString(), days: period.days },
    summary: {
      runs: executions.length,
      passed_runs: passedRuns,
      failed_runs: executions.length - passedRuns,
      run_pass_rate: rate(passedRuns, executions.length - passedRuns),
      tests_passed: testsPassed,
      tests_failed: testsFailed,
      test_pass_rate: rate(testsPassed, testsFailed),
      open_issues: issues.length,
    },
    pass_rate_by_day: [...byDay.entries()].map(([day, d]) => ({ day, ...d, pass_rate: rate(d.tests_passed, d.tests_failed) })),
    slowest_cases: slowest,
    flakiest_cases: flakiest,
    open_issues: issues.slice(0, TOP).map((i) => ({ issue_id: i.id, title: i.title, category: i.category, status: i.status, test_name: i.test_name, occurrences: i.occurrences, last_seen: i.last_seen?.toISOString() ?? null })),
    last_runs: last.map((e) => ({
      execution_id: e.id,
      name: e.test_plan_name,
      environment: e.environment,
      outcome: outcomeOf(e),
      passed: e.tests.filter((t) => t.status === 'passed').length,
      failed: e.tests.filter((t) => t.status === 'failed').length,
      total: e.tests.length,
      completed_at: e.completed_at,
      duration_ms: e.started_at ? Date.parse(e.completed_at) - Date.parse(e.started_at) : null,
    })),
  };
}

/** The dashboard's lists, as the tables its CSV export writes. */
export const DASHBOARD_TABLES = ['pass_rate_by_day', 'slowest_cases', 'flakiest_cases', 'open_issues', 'last_runs'] as const;

export function dashboardTable(d: Dashboard, name: (typeof DASHBOARD_TABLES)[number]): ReportTable {
  const rows = d[name] as Array<Record<string, string | number | null>>;
  const columns = rows[0] ? Object.keys(rows[0]) : [];
  return { columns, rows: rows.map((r) => columns.map((c) => r[c] ?? null)) };
}
