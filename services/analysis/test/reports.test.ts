import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { launchChromium } from '@assay/browser';
import { startAnalysisHarness, type AnalysisHarness, type Tenant } from './harness.js';
import { median, percentile } from '../src/reports/report-data.js';
import { ReportScheduler } from '../src/reports/report-scheduler.js';
import { InternalClient } from '@assay/internal-client';
import { TestCaseClient } from '../src/clients/test-case.client.js';
import { TEST_INTERNAL_SECRET } from '@assay/testing';

// Reports over real executions (the runner's Chromium runs of the fixture app,
// in two versions) and their real failure analyses. Every figure is computed
// again here from the executions' own results and analyses, and compared.
jest.setTimeout(300_000);

let h: AnalysisHarness;
beforeAll(async () => {
  h = await startAnalysisHarness();
});
afterAll(() => h?.close());

const PRICE = [
  { action: 'navigate', value: '/product' },
  { action: 'assert_text', selector: '#price', value: '$20.00' },
];
const STATUS = [
  { action: 'navigate', value: '/status' },
  { action: 'assert_visible', selector: '#status-ok' },
];
const FLAKY = [
  { action: 'navigate', value: '/flaky' },
  { action: 'assert_visible', selector: '#ready', description: 'dashboard ready' },
];

type Table = { columns: string[]; rows: unknown[][] };
const records = (t: Table) => t.rows.map((r) => Object.fromEntries(t.columns.map((c, i) => [c, r[i]])));
const rate = (p: number, f: number) => (p + f ? Math.round((p / (p + f)) * 1000) / 10 : null);

describe('reports', () => {
  let t: Tenant;
  let plan: { projectId: string; planId: string; caseIds: string[] };
  const runs: any[] = [];

  beforeAll(async () => {
    h.app.reset();
    t = h.tenant();
    plan = await t.plan({ Price: PRICE, Status: STATUS, Dashboard: FLAKY });
    for (const version of [1, 2, 1] as const) {
      h.app.setVersion(version);
      const run = await t.run(plan);
      if (run.failed_tests > 0) await t.analysis(run.id);
      runs.push(run);
    }
    h.app.setVersion(1);
  });

  const snapshot = async (kind: string, extra: Record<string, unknown> = {}) => {
    const report = await t.an('POST', '/api/v1/reports', { project_id: plan.projectId, name: `Weekly ${kind}`, kind, period: { last_days: 7 }, ...extra });
    expect(report.status).toBe(201);
    const snap = await t.an('POST', `/api/v1/reports/${report.body.id}/snapshots`);
    expect(snap.status).toBe(201);
    const full = await t.an('GET', `/api/v1/reports/${report.body.id}/snapshots/${snap.body.id}`);
    return { report: report.body, snapshot: full.body };
  };

  it('gives the pass rates of counting the executions’ results by hand, and a snapshot never changes after new executions', async () => {
    const { report, snapshot: snap } = await snapshot('pass_rate');
    let passed = 0;
    let failed = 0;
    const byDay = new Map<string, { executions: number; passed: number; failed: number }>();
    for (const run of runs) {
      const results = (await t.ex('GET', `/api/v1/executions/${run.id}/results`)).body.test_results as Array<{ status: string }>;
      const p = results.filter((r) => r.status === 'passed').length;
      const f = results.filter((r) => r.status === 'failed').length;
      passed += p;
      failed += f;
      const day = (await t.ex('GET', `/api/v1/executions/${run.id}`)).body.completed_at.slice(0, 10);
      const d = byDay.get(day) ?? { executions: 0, passed: 0, failed: 0 };
      byDay.set(day, { executions: d.executions + 1, passed: d.passed + p, failed: d.failed + f });
    }
    expect(passed).toBeGreaterThan(0);
    expect(failed).toBeGreaterThan(0);
    expect(snap.data.executions_counted).toBe(3);
    expect(records(snap.data.tables.totals)).toEqual([
      { test_plan_id: plan.planId, test_plan_name: 'Regression', environment: '', executions: 3, passed, failed, pass_rate: rate(passed, failed) },
    ]);
    expect(records(snap.data.tables.by_day)).toEqual(
      [...byDay.entries()].sort().map(([day, d]) => ({ test_plan_id: plan.planId, test_plan_name: 'Regression', environment: '', day, ...d, pass_rate: rate(d.passed, d.failed) })),
    );
    expect(snap.definition).toMatchObject({ id: report.id, kind: 'pass_rate', period: { last_days: 7 } });

    // A new execution and a changed definition leave the snapshot as it was; a new snapshot counts it.
    const fourth = await t.run(plan);
    await t.an('PUT', `/api/v1/reports/${report.id}`, { name: 'Renamed', period: { last_days: 1 } });
    const reopened = await t.an('GET', `/api/v1/reports/${report.id}/snapshots/${snap.id}`);
    expect(reopened.body).toEqual(snap);
    const next = await t.an('POST', `/api/v1/reports/${report.id}/snapshots`);
    const nextFull = (await t.an('GET', `/api/v1/reports/${report.id}/snapshots/${next.body.id}`)).body;
    expect(nextFull.data.executions_counted).toBe(4);
    expect(nextFull.definition.name).toBe('Renamed');
    runs.push(fourth);
    const list = await t.an('GET', `/api/v1/reports/${report.id}/snapshots`);
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([next.body.id, snap.id]);
    // The database itself refuses to change a snapshot.
    await expect(sql`update analysis.report_snapshots set data = '{}'::jsonb where id = ${snap.id}`.execute(h.database.db)).rejects.toThrow(/never change/);

    // CSV of the same figures; other organizations see no report.
    const csv = await t.an('GET', `/api/v1/reports/${report.id}/snapshots/${snap.id}?format=csv&table=totals`);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.body).toBe(`test_plan_id,test_plan_name,environment,executions,passed,failed,pass_rate\r\n${plan.planId},Regression,,3,${passed},${failed},${rate(passed, failed)}\r\n`);
    const other = h.tenant();
    for (const p of [`/api/v1/reports/${report.id}`, `/api/v1/reports/${report.id}/snapshots`, `/api/v1/reports/${report.id}/snapshots/${snap.id}`]) {
      expect((await other.an('GET', p)).status).toBe(404);
    }
    expect((await other.an('POST', `/api/v1/reports/${report.id}/snapshots`)).status).toBe(404);
    expect((await other.an('POST', '/api/v1/reports', { project_id: plan.projectId, name: 'x', kind: 'pass_rate' })).status).toBe(404);
  });

  it('gives flip rates, step percentiles, failure categories and open issues as the raw results and analyses have them', async () => {
    const results = await Promise.all(runs.map(async (r) => (await t.ex('GET', `/api/v1/executions/${r.id}`)).body));
    results.sort((a, b) => a.completed_at.localeCompare(b.completed_at) || a.id.localeCompare(b.id));

    const flaky = (await snapshot('flaky_tests')).snapshot.data.tables.tests;
    const expected = plan.caseIds.map((id, i) => ({ id, name: ['Price', 'Status', 'Dashboard'][i] }));
    for (const c of expected) {
      const outcomes: string[] = [];
      for (const e of results) {
        const r = (await t.ex('GET', `/api/v1/executions/${e.id}/results`)).body.test_results.find((x: { test_id: string }) => x.test_id === c.id);
        if (r.status === 'passed' || r.status === 'failed') outcomes.push(r.status);
      }
      const flips = outcomes.slice(1).filter((o, i) => o !== outcomes[i]).length;
      expect(records(flaky).find((r) => r.test_case_id === c.id)).toEqual({
        test_case_id: c.id,
        test_name: c.name,
        test_plan_id: plan.planId,
        environment: '',
        runs: outcomes.length,
        failed: outcomes.filter((o) => o === 'failed').length,
        flips,
        flip_rate: Math.round((flips / (outcomes.length - 1)) * 1000) / 10,
      });
    }

    // Step durations by action and selector, from the results and the cases' steps.
    const stepsOf = new Map<string, { action: string; selector?: string }>();
    for (const id of plan.caseIds) for (const s of (await t.tc('GET', `/api/v1/test-cases/${id}`)).body.steps) stepsOf.set(s.step_id, s);
    const durations = new Map<string, number[]>();
    for (const e of results) {
      for (const r of (await t.ex('GET', `/api/v1/executions/${e.id}/results`)).body.test_results) {
        for (const s of r.steps) {
          if (s.status === 'skipped') continue;
          const step = stepsOf.get(s.step_id)!;
          const k = `${step.action} ${step.selector ?? ''}`;
          durations.set(k, [...(durations.get(k) ?? []), s.duration_ms]);
        }
      }
    }
    const slow = records((await snapshot('slowest_steps')).snapshot.data.tables.steps);
    expect(slow).toHaveLength(durations.size);
    for (const row of slow) {
      const d = [...durations.get(`${row.action} ${row.selector}`)!].sort((a, b) => a - b);
      expect(row).toEqual({ action: row.action, selector: row.selector, runs: d.length, median_ms: median(d), p95_ms: percentile(d, 0.95), max_ms: d[d.length - 1] });
    }

    // Failure categories: the items of the executions' failure analyses.
    const counts: Record<string, number> = {};
    for (const e of results.filter((x) => x.failed_tests > 0)) {
      for (const item of (await t.analysis(e.id)).analysis) counts[item.failure_category] = (counts[item.failure_category] ?? 0) + 1;
    }
    expect(Object.keys(counts).length).toBeGreaterThan(0);
    const categories = (await snapshot('failure_categories')).snapshot.data.tables.categories;
    expect(Object.fromEntries(categories.rows)).toEqual(counts);

    // Open issues: those the issues API lists as open or acknowledged.
    const issues = (await t.an('GET', `/api/v1/issues?project_id=${plan.projectId}&limit=100`)).body.data.filter((i: { status: string }) => ['open', 'acknowledged'].includes(i.status));
    const open = records((await snapshot('open_issues')).snapshot.data.tables.issues);
    expect(open.map((i) => i.issue_id).sort()).toEqual(issues.map((i: { id: string }) => i.id).sort());
    expect(open.every((i) => issues.find((x: { id: string; occurrence_count: number }) => x.id === i.issue_id)!.occurrence_count === i.occurrences)).toBe(true);
  });

  it('builds the project dashboard from the same runs and issues: pass rate by day, slowest and flakiest cases, open issues, last runs, and CSV', async () => {
    const executions = await Promise.all(runs.map(async (r) => (await t.ex('GET', `/api/v1/executions/${r.id}`)).body));
    const d = await t.an('GET', `/api/v1/reports/dashboard?project_id=${plan.projectId}&days=7`);
    expect(d.status).toBe(200);
    expect(d.body.period.days).toBe(7);
    expect(d.body.pass_rate_by_day).toHaveLength(7);
    let passed = 0;
    let failed = 0;
    for (const e of executions) {
      passed += e.passed_tests;
      failed += e.failed_tests;
    }
    const passedRuns = executions.filter((e) => e.outcome === 'passed').length;
    expect(d.body.summary).toMatchObject({ runs: executions.length, passed_runs: passedRuns, failed_runs: executions.length - passedRuns, tests_passed: passed, tests_failed: failed, test_pass_rate: rate(passed, failed) });
    const today = d.body.pass_rate_by_day.reduce((acc: number, x: { runs: number }) => acc + x.runs, 0);
    expect(today).toBe(executions.length);
    // The last runs, newest first, each with the outcome the execution itself shows.
    const newest = [...executions].sort((a, b) => b.completed_at.localeCompare(a.completed_at) || b.id.localeCompare(a.id));
    expect(d.body.last_runs.map((r: { execution_id: string; outcome: string }) => [r.execution_id, r.outcome])).toEqual(newest.map((e) => [e.id, e.outcome]));
    expect(d.body.last_runs[0]).toMatchObject({ name: 'Regression', total: 3 });
    // The flakiest cases are the flaky report's cases that flipped; the slowest have every case that ran.
    const flaky = records((await snapshot('flaky_tests')).snapshot.data.tables.tests).filter((r) => (r.flips as number) > 0);
    expect(d.body.flakiest_cases.map((c: { test_case_id: string; flip_rate: number }) => [c.test_case_id, c.flip_rate]).sort()).toEqual(flaky.map((r) => [r.test_case_id, r.flip_rate]).sort());
    expect(d.body.slowest_cases.map((c: { name: string }) => c.name).sort()).toEqual(['Dashboard', 'Price', 'Status']);
    for (const c of d.body.slowest_cases) expect(c.p95_ms).toBeGreaterThanOrEqual(c.median_ms);
    const issues = (await t.an('GET', `/api/v1/issues?project_id=${plan.projectId}&limit=100`)).body.data.filter((i: { status: string }) => ['open', 'acknowledged'].includes(i.status));
    expect(d.body.summary.open_issues).toBe(issues.length);

    const csv = await t.an('GET', `/api/v1/reports/dashboard?project_id=${plan.projectId}&days=7&format=csv&table=last_runs`);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = String(csv.body).trim().split('\r\n');
    expect(lines[0]).toBe('execution_id,name,environment,outcome,passed,failed,total,completed_at,duration_ms');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(newest.map((e) => e.id));
    for (const [q, field] of [['days=0', 'days'], ['format=pdf', 'format'], ['table=nope', 'table']]) {
      const bad = await t.an('GET', `/api/v1/reports/dashboard?project_id=${plan.projectId}&${q}`);
      expect([bad.status, bad.body.details[0].field]).toEqual([400, field]);
    }
    expect((await h.tenant().an('GET', `/api/v1/reports/dashboard?project_id=${plan.projectId}`)).status).toBe(404);
  });

  it('renders a snapshot as a self-contained page with a server-rendered SVG chart (screenshot in docs/screenshots with REPORT_SCREENSHOT=1)', async () => {
    const { report, snapshot: snap } = await snapshot('pass_rate');
    const page = await t.an('GET', `/api/v1/reports/${report.id}/snapshots/${snap.id}?format=html`);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.body).toContain('<svg');
    expect(page.body).toContain('Pass rate by day');
    expect(page.body).not.toMatch(/<script|src="http|href="http/);
    const browser = await launchChromium({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
    try {
      const tab = await (await browser.newContext({ viewport: { width: 900, height: 700 }, javaScriptEnabled: false })).newPage();
      await tab.setContent(page.body);
      const box = await tab.locator('svg.marks').first().boundingBox();
      expect(box!.width).toBeGreaterThan(300);
      expect(box!.height).toBeGreaterThan(100);
      // The line of the chart is drawn: one path per series with points.
      expect(await tab.locator('svg.marks path').count()).toBeGreaterThan(1);
      // The README's screenshot, only when asked (REPORT_SCREENSHOT=1): a test run leaves the tree alone.
      if (process.env.REPORT_SCREENSHOT === '1') {
        await writeFile(path.resolve(__dirname, '../../../docs/screenshots/report-snapshot.png'), await tab.screenshot({ fullPage: true }));
      }
    } finally {
      await browser.close();
    }
  });

  it('counts only the results of cases carrying a filter tag, and their analyses', async () => {
    const [priceId] = plan.caseIds;
    expect((await t.tc('PUT', `/api/v1/test-cases/${priceId}`, { tags: ['checkout, EU', 'smoke'] })).status).toBe(200);
    let passed = 0;
    let failed = 0;
    const withPrice = new Set<string>();
    for (const run of runs) {
      const r = (await t.ex('GET', `/api/v1/executions/${run.id}/results`)).body.test_results.find((x: { test_id: string }) => x.test_id === priceId);
      if (r.status === 'passed') passed += 1;
      if (r.status === 'failed') failed += 1;
      withPrice.add(run.id);
    }
    // A tag holding a comma is one tag.
    const { snapshot: snap } = await snapshot('pass_rate', { filters: { tags: ['checkout, EU'] } });
    expect(snap.data.executions_counted).toBe(withPrice.size);
    expect(records(snap.data.tables.totals)).toEqual([expect.objectContaining({ passed, failed, pass_rate: rate(passed, failed) })]);
    expect((await snapshot('pass_rate', { filters: { tags: ['checkout'] } })).snapshot.data.executions_counted).toBe(0);

    const counts: Record<string, number> = {};
    for (const run of runs.filter((x) => x.failed_tests > 0)) {
      for (const item of (await t.analysis(run.id)).analysis) if (item.test_id === priceId) counts[item.failure_category] = (counts[item.failure_category] ?? 0) + 1;
    }
    expect(Object.keys(counts).length).toBeGreaterThan(0);
    expect(Object.fromEntries((await snapshot('failure_categories', { filters: { tags: ['smoke'] } })).snapshot.data.tables.categories.rows)).toEqual(counts);
  });

  it('takes a snapshot at each occurrence of a report’s schedule, once across schedulers, and emits report.snapshot.created', async () => {
    const created = await t.an('POST', '/api/v1/reports', { project_id: plan.projectId, name: 'Monday pass rate', kind: 'pass_rate', schedule: { cron: '0 8 * * 1', timezone: 'Europe/Paris' } });
    expect(created.status).toBe(201);
    const first = new Date(created.body.schedule.next_snapshot_at);
    expect(created.body.schedule).toMatchObject({ cron: '0 8 * * 1', timezone: 'Europe/Paris', last_snapshot_at: null, last_error: null });
    // A Monday, 08:00 in Paris (07:00 or 06:00 UTC), within the coming week.
    expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', weekday: 'short', hour: '2-digit', minute: '2-digit' }).format(first)).toBe('Mon 08:00');
    expect(first.getTime() - Date.now()).toBeLessThanOrEqual(7 * 86_400_000);

    // Two replicas' schedulers, a week and a minute after the first occurrence: one snapshot, for the latest occurrence.
    const at = new Date(first.getTime() + 7 * 86_400_000 + 60_000);
    const schedulers = [0, 1].map(() => new ReportScheduler(h.context, { intervalMs: 60_000, now: () => at }));
    const handled = await Promise.all(schedulers.map((s) => s.tick()));
    expect(handled.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await Promise.all(schedulers.map((s) => s.tick()))).toEqual([0, 0]);
    const list = (await t.an('GET', `/api/v1/reports/${created.body.id}/snapshots`)).body;
    expect(list.data).toEqual([expect.objectContaining({ trigger: 'schedule', scheduled_for: new Date(first.getTime() + 7 * 86_400_000).toISOString() })]);
    const full = (await t.an('GET', `/api/v1/reports/${created.body.id}/snapshots/${list.data[0].id}`)).body;
    expect(full.data.executions_counted).toBe(runs.length);
    const report = (await t.an('GET', `/api/v1/reports/${created.body.id}`)).body;
    expect(report.schedule).toMatchObject({ last_snapshot_at: at.toISOString(), last_error: null });
    expect(new Date(report.schedule.next_snapshot_at).getTime()).toBe(first.getTime() + 14 * 86_400_000);

    const events = await h.database.db.selectFrom('outbox').select('envelope').orderBy('seq').execute();
    const emitted = events.map((e) => e.envelope as any).filter((e) => e.event === 'report.snapshot.created' && e.data.report.id === created.body.id);
    expect(emitted).toEqual([
      expect.objectContaining({
        organization_id: t.orgId,
        project_id: plan.projectId,
        data: {
          report: { id: created.body.id, name: 'Monday pass rate', kind: 'pass_rate', project_id: plan.projectId },
          snapshot: expect.objectContaining({ id: list.data[0].id, trigger: 'schedule', missed_occurrences: 1, executions_counted: runs.length, url: `/api/v1/reports/${created.body.id}/snapshots/${list.data[0].id}` }),
        },
      }),
    ]);

    // A manual snapshot says so; a bad schedule is a 400 that changes nothing; null removes the schedule.
    expect((await t.an('POST', `/api/v1/reports/${created.body.id}/snapshots`)).body).toMatchObject({ trigger: 'manual', scheduled_for: null });
    for (const schedule of [{ cron: '0 8 * *' }, { cron: '0 25 * * 1' }, { cron: '0 8 * * 1', timezone: 'Mars/Olympus' }, { cron: '@daily' }, { timezone: 'UTC' }, 'weekly']) {
      const r = await t.an('PUT', `/api/v1/reports/${created.body.id}`, { schedule });
      expect([r.status, r.body.error]).toEqual([400, 'validation_error']);
    }
    expect((await t.an('GET', `/api/v1/reports/${created.body.id}`)).body.schedule).toEqual(report.schedule);
    expect((await t.an('PUT', `/api/v1/reports/${created.body.id}`, { schedule: null })).body.schedule).toBeNull();
    expect(await new ReportScheduler(h.context, { intervalMs: 60_000, now: () => new Date(at.getTime() + 30 * 86_400_000) }).tick()).toBe(0);
  });

  it('goes on with the reports due behind one whose snapshot cannot be taken now, and takes that one at a later tick', async () => {
    // Due first: a tag-filtered report, which needs the test-case service; due later: one that does not.
    const tagged = await t.an('POST', '/api/v1/reports', { project_id: plan.projectId, name: 'Smoke each minute', kind: 'pass_rate', filters: { tags: ['smoke'] }, schedule: { cron: '* * * * *', timezone: 'UTC' } });
    const plain = await t.an('POST', '/api/v1/reports', { project_id: plan.projectId, name: 'Daily', kind: 'pass_rate', schedule: { cron: '0 7 * * *', timezone: 'UTC' } });
    expect([tagged.status, plain.status]).toEqual([201, 201]);
    const at = new Date(Math.max(...[tagged, plain].map((r) => new Date(r.body.schedule.next_snapshot_at).getTime())) + 60_000);
    const snapshotsOf = async (id: string) => (await t.an('GET', `/api/v1/reports/${id}/snapshots`)).body.data as unknown[];

    // test-case is unreachable for this scheduler (nothing listens on port 9 of loopback).
    const testCaseDown = { ...h.context, testCases: new TestCaseClient(new InternalClient({ caller: 'analysis', urls: { 'test-case': 'http://127.0.0.1:9' }, internalTokenSecret: TEST_INTERNAL_SECRET })) };
    expect(await new ReportScheduler(testCaseDown, { intervalMs: 60_000, now: () => at }).tick()).toBe(1);
    expect(await snapshotsOf(plain.body.id)).toHaveLength(1);
    expect(await snapshotsOf(tagged.body.id)).toHaveLength(0);
    expect((await t.an('GET', `/api/v1/reports/${tagged.body.id}`)).body.schedule).toEqual(tagged.body.schedule);

    expect(await new ReportScheduler(h.context, { intervalMs: 60_000, now: () => at }).tick()).toBe(1);
    expect(await snapshotsOf(tagged.body.id)).toHaveLength(1);
    for (const r of [tagged, plain]) await t.an('PUT', `/api/v1/reports/${r.body.id}`, { schedule: null });
  });

  it('refuses bad definitions and formats with 400, changing nothing', async () => {
    const bad = [
      { project_id: plan.projectId, name: 'x', kind: 'velocity' },
      { project_id: plan.projectId, name: '', kind: 'pass_rate' },
      { project_id: plan.projectId, name: 'x', kind: 'pass_rate', period: { last_days: 7, from: '2026-01-01T00:00:00Z' } },
      { project_id: plan.projectId, name: 'x', kind: 'pass_rate', period: { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' } },
      { project_id: plan.projectId, name: 'x', kind: 'pass_rate', filters: { tags: [] } },
      { project_id: plan.projectId, name: 'x', kind: 'pass_rate', filters: { tags: [''] } },
      { project_id: plan.projectId, name: 'x', kind: 'pass_rate', filters: { labels: ['smoke'] } },
      { project_id: plan.projectId, name: 'x', kind: 'pass_rate', schedule: { cron: '61 * * * *' } },
    ];
    const before = (await t.an('GET', `/api/v1/reports?project_id=${plan.projectId}`)).body.pagination.total;
    for (const body of bad) {
      const r = await t.an('POST', '/api/v1/reports', body);
      expect([r.status, r.body.error]).toEqual([400, 'validation_error']);
    }
    expect((await t.an('GET', `/api/v1/reports?project_id=${plan.projectId}`)).body.pagination.total).toBe(before);
    // Filters narrow; a plan id that is no plan of the project matches nothing.
    expect((await snapshot('pass_rate', { filters: { test_plan_ids: [plan.planId], environments: [''] } })).snapshot.data.executions_counted).toBe(runs.length);
    expect((await snapshot('pass_rate', { filters: { test_plan_ids: ['not-a-plan'] } })).snapshot.data.executions_counted).toBe(0);
    expect((await snapshot('pass_rate', { filters: { environments: ['staging'] } })).snapshot.data.executions_counted).toBe(0);
    const { report, snapshot: snap } = await snapshot('failure_categories');
    expect((await t.an('GET', `/api/v1/reports/${report.id}/snapshots/${snap.id}?format=pdf`)).status).toBe(400);
    expect((await t.an('GET', `/api/v1/reports/${report.id}/snapshots/${snap.id}?format=csv&table=nope`)).status).toBe(400);
    expect((await t.an('DELETE', `/api/v1/reports/${report.id}`)).body).toMatchObject({ id: report.id, deleted: true });
    expect((await t.an('GET', `/api/v1/reports/${report.id}/snapshots/${snap.id}`)).status).toBe(404);
  });
});
