import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { Schemas } from '@assay/client';
import { api, errorText } from '../api';
import { Link, navigate } from '../router';
import { ErrorNote, Field, formatDate, Loading, ms, OutcomeBadge, Page, ProjectSelect, useLoad, useProjects } from '../ui';

type Dashboard = Schemas['Dashboard'];
const TABLES: Array<[string, string]> = [
  ['pass_rate_by_day', 'Pass rate by day'],
  ['slowest_cases', 'Slowest cases'],
  ['flakiest_cases', 'Flakiest cases'],
  ['open_issues', 'Open issues'],
  ['last_runs', 'Last runs'],
];
const pct = (n: number | null | undefined) => (n === null || n === undefined ? '—' : `${n} %`);

/** Pass rate per day as bars (0–100 %), days without runs marked, with the figures in a table one click away. */
function PassRateChart(props: { days: Dashboard['pass_rate_by_day'] }): JSX.Element {
  const w = 960;
  const h = 180;
  const pad = 28;
  const bw = (w - pad * 2) / Math.max(1, props.days.length);
  const withRuns = props.days.filter((d) => d.runs);
  const label = withRuns.length ? `Pass rate by day: ${withRuns.map((d) => `${d.day} ${pct(d.pass_rate)}`).join(', ')}` : 'No finished runs in this period';
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${w} ${h + 24}`} role="img" aria-label={label} data-testid="pass-rate-chart">
        {[0, 50, 100].map((y) => (
          <g key={y}>
            <line x1={pad} x2={w - pad} y1={h - (y / 100) * (h - 10)} y2={h - (y / 100) * (h - 10)} stroke="#d0d7de" stroke-width="1" />
            <text x={2} y={h - (y / 100) * (h - 10) + 4} font-size="10" fill="#57606a">
              {y}%
            </text>
          </g>
        ))}
        {props.days.map((d, i) => {
          const x = pad + i * bw + bw * 0.15;
          if (!d.runs) return <rect key={d.day} x={x} y={h - 2} width={bw * 0.7} height={2} fill="#d0d7de" />;
          const rate = d.pass_rate ?? 0;
          const bh = Math.max(2, (rate / 100) * (h - 10));
          return (
            <rect key={d.day} x={x} y={h - bh} width={bw * 0.7} height={bh} fill={rate === 100 ? '#1a7f37' : rate >= 80 ? '#9a6700' : '#cf222e'}>
              <title>
                {d.day}: {pct(d.pass_rate)} of tests passed in {d.runs} run(s)
              </title>
            </rect>
          );
        })}
        {props.days.length ? (
          <>
            <text x={pad} y={h + 16} font-size="10" fill="#57606a">
              {props.days[0]!.day}
            </text>
            <text x={w - pad} y={h + 16} font-size="10" fill="#57606a" text-anchor="end">
              {props.days[props.days.length - 1]!.day}
            </text>
          </>
        ) : null}
      </svg>
      <figcaption class="muted">Share of tests that passed, per day (green: all, amber: 80 % or more, red: less; grey: no run).</figcaption>
    </figure>
  );
}

/** Horizontal bars of a value per case (the slowest: median duration). */
function BarList(props: { label: string; rows: Array<{ id: string; name: string; value: number; text: string }> }): JSX.Element {
  const max = Math.max(1, ...props.rows.map((r) => r.value));
  const w = 320;
  return (
    <ul class="bar-list" aria-label={props.label}>
      {props.rows.map((r) => (
        <li key={r.id}>
          <Link href={`/cases/${r.id}`}>{r.name}</Link> <span class="muted">{r.text}</span>
          <svg viewBox={`0 0 ${w} 8`} preserveAspectRatio="none" aria-hidden="true" class="bar-svg">
            <rect x={0} y={0} width={w} height={8} fill="#eef1f4" />
            <rect x={0} y={0} width={Math.max(2, (r.value / max) * w)} height={8} fill="#1f4e8c" />
          </svg>
        </li>
      ))}
    </ul>
  );
}

/** Downloads one of the dashboard's lists as CSV (fetched with the session: a plain link could not send it). */
async function downloadCsv(projectId: string, days: number, table: string): Promise<void> {
  const res = await api().request('GET', `/api/v1/reports/dashboard?project_id=${encodeURIComponent(projectId)}&days=${days}&format=csv&table=${table}`);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = `dashboard-${table}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** `/dashboard?project=…`: a project at a glance, from the data reports have; every list exports as CSV. */
export function DashboardScreen(props: { projectId: string }): JSX.Element {
  const projects = useProjects();
  const project = props.projectId || projects.data?.[0]?.id || '';
  const [days, setDays] = useState(30);
  const [error, setError] = useState<string>();
  const d = useLoad(async () => (project ? (await api().api.GET('/api/v1/reports/dashboard', { params: { query: { project_id: project, days } } })).data! : undefined), [project, days]);
  const data = d.data;
  return (
    <Page title="Dashboard">
      <div class="filters" role="search">
        <ProjectSelect id="dashboard-project" projects={projects.data} value={project} onChange={(id) => navigate(`/dashboard?project=${encodeURIComponent(id)}`)} />
        <Field label="Period" id="dashboard-days">
          {(a) => (
            <select {...a} value={String(days)} onChange={(e) => setDays(Number((e.target as HTMLSelectElement).value))}>
              {[7, 14, 30, 90].map((n) => (
                <option key={n} value={n}>
                  Last {n} days
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <ErrorNote error={projects.error ?? d.error ?? error} />
      {projects.data && projects.data.length === 0 ? <p class="empty">No project yet: create one first.</p> : null}
      {d.loading && !data ? <Loading what="dashboard" /> : null}
      {data ? (
        <>
          <ul class="tiles" aria-label="Summary">
            <li class="tile">
              <span class="tile-value" data-testid="run-pass-rate">{pct(data.summary.run_pass_rate)}</span>
              <span class="tile-label">of runs passed ({data.summary.passed_runs} of {data.summary.runs})</span>
            </li>
            <li class="tile">
              <span class="tile-value">{pct(data.summary.test_pass_rate)}</span>
              <span class="tile-label">of tests passed ({data.summary.tests_passed} of {data.summary.tests_passed + data.summary.tests_failed})</span>
            </li>
            <li class="tile">
              <span class="tile-value">{data.summary.open_issues}</span>
              <span class="tile-label">open issues</span>
            </li>
          </ul>
          {data.summary.runs === 0 ? <p class="empty">No finished runs in the last {days} days: run a plan to fill the dashboard.</p> : null}
          <section aria-labelledby="dash-rate">
            <h2 id="dash-rate">Pass rate over time</h2>
            <PassRateChart days={data.pass_rate_by_day} />
          </section>
          <div class="grid-2">
            <section aria-labelledby="dash-slow">
              <h2 id="dash-slow">Slowest cases</h2>
              {data.slowest_cases.length ? (
                <BarList label="Slowest cases" rows={data.slowest_cases.map((c) => ({ id: c.test_case_id, name: c.name, value: c.median_ms, text: `median ${ms(c.median_ms)} · p95 ${ms(c.p95_ms)} · ${c.runs} runs` }))} />
              ) : (
                <p class="muted">No case ran yet.</p>
              )}
            </section>
            <section aria-labelledby="dash-flaky">
              <h2 id="dash-flaky">Flakiest cases</h2>
              {data.flakiest_cases.length ? (
                <BarList label="Flakiest cases" rows={data.flakiest_cases.map((c) => ({ id: c.test_case_id, name: c.name, value: c.flip_rate, text: `flips ${c.flip_rate} % of runs · ${c.failed} of ${c.runs} failed` }))} />
              ) : (
                <p class="muted">No case flipped between passing and failing.</p>
              )}
            </section>
          </div>
          <section aria-labelledby="dash-issues">
            <h2 id="dash-issues">Open issues</h2>
            {data.open_issues.length ? (
              <ul class="list" aria-label="Open issues">
                {data.open_issues.map((i) => (
                  <li key={i.issue_id}>
                    <Link href={`/issues/${i.issue_id}`}>{i.title}</Link> <span class="muted">{i.category.replace(/_/g, ' ')} · seen {i.occurrences}× · last {formatDate(i.last_seen)}</span>
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted">No open issue.</p>
            )}
          </section>
          <section aria-labelledby="dash-runs">
            <h2 id="dash-runs">Last runs</h2>
            <table class="table" aria-label="Last runs">
              <thead>
                <tr>
                  <th scope="col">Outcome</th>
                  <th scope="col">Run</th>
                  <th scope="col">Passed</th>
                  <th scope="col">Failed</th>
                  <th scope="col">Took</th>
                  <th scope="col">Ended</th>
                </tr>
              </thead>
              <tbody>
                {data.last_runs.map((r) => (
                  <tr key={r.execution_id}>
                    <td>
                      <OutcomeBadge outcome={r.outcome} status="completed" />
                    </td>
                    <td>
                      <Link href={`/executions/${r.execution_id}`}>{r.name}</Link> {r.environment ? <span class="muted">({r.environment})</span> : null}
                    </td>
                    <td>{r.passed}</td>
                    <td>{r.failed}</td>
                    <td>{ms(r.duration_ms)}</td>
                    <td>{formatDate(r.completed_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <section aria-labelledby="dash-export">
            <h2 id="dash-export">Export</h2>
            <div class="row">
              {TABLES.map(([t, l]) => (
                <button key={t} type="button" class="secondary" onClick={() => downloadCsv(project, days, t).catch((err) => setError(errorText(err)))}>
                  {l} (CSV)
                </button>
              ))}
            </div>
          </section>
        </>
      ) : null}
    </Page>
  );
}
