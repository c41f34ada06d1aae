import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { Schemas } from '@assay/client';
import { api, errorText, fieldErrors } from '../api';
import { Link, navigate } from '../router';
import { ErrorNote, Field, formatDate, Loading, Page, ProjectSelect, useLoad, useProjects } from '../ui';
import { inZone, TIME_ZONES } from './schedules';

type ReportKind = Schemas['Report']['kind'];
const KINDS: Array<[ReportKind, string]> = [
  ['pass_rate', 'Pass rate per plan and environment, by day'],
  ['flaky_tests', 'Flaky tests (flip rates)'],
  ['slowest_steps', 'Slowest steps (median and p95)'],
  ['failure_categories', 'Failure categories'],
  ['open_issues', 'Open issues'],
];
const kindLabel = (k: string): string => KINDS.find(([v]) => v === k)?.[1] ?? k;

/** Field errors keyed as the form names its fields: `filters.tags.0` belongs to the tags field, `schedule.cron` to the cron field. */
function reportFieldErrors(err: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fieldErrors(err))) {
    const key = k.startsWith('filters.tags') ? 'tags' : k.startsWith('schedule') && !['schedule.cron', 'schedule.timezone'].includes(k) ? 'schedule.cron' : k;
    out[key] ??= v;
  }
  return out;
}

/** `/reports`: a project's report definitions (the API lists one project at a time) and a form to define one. */
export function ReportList(props: { projectId: string }): JSX.Element {
  const projects = useProjects();
  const project = props.projectId || projects.data?.[0]?.id || '';
  const reports = useLoad(async () => (project ? (await api().api.GET('/api/v1/reports', { params: { query: { project_id: project, limit: 100 } } })).data!.data : []), [project]);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ReportKind>('pass_rate');
  const [tags, setTags] = useState('');
  const [scheduled, setScheduled] = useState(false);
  const [cron, setCron] = useState('0 8 * * 1');
  const [timezone, setTimezone] = useState('UTC');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();

  const create = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setError(undefined);
    const tagList = tags
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    try {
      const created = (
        await api().api.POST('/api/v1/reports', {
          body: { project_id: project, name: name.trim(), kind, ...(tagList.length ? { filters: { tags: tagList } } : {}), ...(scheduled ? { schedule: { cron: cron.trim(), timezone: timezone.trim() } } : {}) },
        })
      ).data!;
      navigate(`/reports/${created.id}`);
    } catch (err) {
      setErrors(reportFieldErrors(err));
      setError(errorText(err));
    }
  };

  return (
    <Page title="Reports">
      <p class="muted">Definitions over a project’s runs and analyses; each snapshot freezes the data as it was when taken.</p>
      <div class="filters" role="search">
        <ProjectSelect id="reports-project" projects={projects.data} value={project} onChange={(id) => navigate(`/reports?project=${encodeURIComponent(id)}`)} />
      </div>
      <ErrorNote error={projects.error ?? reports.error} />
      {projects.data && projects.data.length === 0 ? <p class="empty">No project yet: create one first.</p> : null}
      {reports.data && reports.data.length === 0 && project ? <p class="empty">No report for this project.</p> : null}
      {reports.data && reports.data.length > 0 ? (
        <table class="table" aria-label="Reports of the project">
          <thead>
            <tr>
              <th scope="col">Report</th>
              <th scope="col">Kind</th>
              <th scope="col">Tags</th>
              <th scope="col">Schedule</th>
            </tr>
          </thead>
          <tbody>
            {reports.data.map((r) => (
              <tr key={r.id}>
                <td>
                  <Link href={`/reports/${r.id}`}>{r.name}</Link>
                </td>
                <td>{kindLabel(r.kind)}</td>
                <td>{r.filters.tags?.length ? r.filters.tags.join(', ') : <span class="muted">any</span>}</td>
                <td>{r.schedule ? `${r.schedule.cron} (${r.schedule.timezone})` : <span class="muted">manual</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {project ? (
        <form class="card form" aria-labelledby="report-new-title" onSubmit={create}>
          <h2 id="report-new-title">New report</h2>
          <Field label="Report name" id="report-name" error={errors.name}>
            {(a) => <input {...a} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />}
          </Field>
          <Field label="Kind" id="report-kind" error={errors.kind}>
            {(a) => (
              <select {...a} value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as ReportKind)}>
                {KINDS.map(([v, l]) => (
                  <option key={v} value={v}>
                    {l}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Tag filter" id="report-tags" error={errors.tags} hint="Comma-separated: only test cases with at least one of these tags. Empty: every test case.">
            {(a) => <input {...a} autoComplete="off" value={tags} onInput={(e) => setTags((e.target as HTMLInputElement).value)} />}
          </Field>
          <label class="check">
            <input type="checkbox" checked={scheduled} onChange={(e) => setScheduled((e.target as HTMLInputElement).checked)} /> Take snapshots on a schedule
          </label>
          {scheduled ? (
            <>
              <Field label="Snapshot cron" id="report-cron" error={errors['schedule.cron']} hint="Five fields: 0 8 * * 1 is Mondays at 08:00">
                {(a) => <input {...a} required spellcheck={false} autoComplete="off" value={cron} onInput={(e) => setCron((e.target as HTMLInputElement).value)} />}
              </Field>
              <Field label="Snapshot time zone" id="report-timezone" error={errors['schedule.timezone']}>
                {(a) => <input {...a} required list="report-timezones" autoComplete="off" value={timezone} onInput={(e) => setTimezone((e.target as HTMLInputElement).value)} />}
              </Field>
              <datalist id="report-timezones">
                {TIME_ZONES.map((z) => (
                  <option key={z} value={z} />
                ))}
              </datalist>
            </>
          ) : null}
          <ErrorNote error={Object.keys(errors).length ? undefined : error} />
          <button type="submit">Create report</button>
        </form>
      ) : null}
    </Page>
  );
}

/** One snapshot's data: its tables as the server froze them. */
/** Where a name column of a report links to, by the id column beside it: ids are read as names (the id stays in the CSV and JSON). */
const NAME_LINKS: Record<string, [string, string]> = { test_plan_name: ['test_plan_id', '/plans/'], test_name: ['test_case_id', '/cases/'], title: ['issue_id', '/issues/'] };

function SnapshotData(props: { snapshot: Schemas['ReportSnapshot'] }): JSX.Element {
  const s = props.snapshot;
  const tables = Object.entries(s.data?.tables ?? {});
  return (
    <div class="card" role="region" aria-label={`Snapshot of ${formatDate(s.created_at)}`} data-testid="snapshot-data">
      <p>
        {formatDate(s.period.from)} – {formatDate(s.period.to)} · <strong data-testid="executions-counted">{s.data?.executions_counted ?? 0}</strong> execution(s) counted ·{' '}
        {s.trigger === 'schedule' ? `scheduled for ${formatDate(s.scheduled_for)}` : 'taken by hand'}
      </p>
      {tables.map(([tableName, full]) => {
        // An id column with a name column for it is shown as a link on the name.
        const hidden = new Set(Object.entries(NAME_LINKS).filter(([name, [id]]) => full.columns.includes(name) && full.columns.includes(id)).map(([, [id]]) => id));
        const keep = full.columns.map((c, i) => [c, i] as const).filter(([c]) => !hidden.has(c));
        const t = { columns: keep.map(([c]) => c), rows: full.rows.map((r) => keep.map(([, i]) => r[i])) };
        const link = (column: string, row: unknown[]) => {
          const target = NAME_LINKS[column];
          const id = target ? row[full.columns.indexOf(target[0])] : undefined;
          return target && typeof id === 'string' ? `${target[1]}${id}` : undefined;
        };
        return (
        <div class="table-scroll" key={tableName}>
          <table class="table compact">
            <caption>{tableName.replace(/_/g, ' ')}</caption>
            <thead>
              <tr>
                {t.columns.map((c) => (
                  <th scope="col" key={c}>
                    {c.replace(/_/g, ' ')}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {t.rows.length === 0 ? (
                <tr>
                  <td colSpan={t.columns.length} class="empty">
                    No rows
                  </td>
                </tr>
              ) : (
                t.rows.map((row, i) => (
                  <tr key={i}>
                    {row.map((v, j) => {
                      const href = link(t.columns[j]!, full.rows[i]!);
                      const text = v === null || v === undefined ? '—' : String(v);
                      return <td key={j}>{href ? <Link href={href}>{text}</Link> : text}</td>;
                    })}
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
        );
      })}
    </div>
  );
}

/** `/reports/{id}`: the definition, its snapshots (newest first), take one now, open one, delete the report. */
export function ReportView(props: { id: string }): JSX.Element {
  const path = { params: { path: { report_id: props.id } } };
  const report = useLoad(async () => (await api().api.GET('/api/v1/reports/{report_id}', path)).data!, [props.id]);
  const snapshots = useLoad(async () => (await api().api.GET('/api/v1/reports/{report_id}/snapshots', path)).data!.data, [props.id]);
  const [open, setOpen] = useState<Schemas['ReportSnapshot']>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  if (report.error) return <Page title="Report">{<ErrorNote error={report.error} />}</Page>;
  if (!report.data) return <Loading what="report" />;
  const r = report.data;

  const show = async (snapshotId: string) => {
    setError(undefined);
    try {
      setOpen((await api().api.GET('/api/v1/reports/{report_id}/snapshots/{snapshot_id}', { params: { path: { report_id: r.id, snapshot_id: snapshotId }, query: { format: 'json' } } })).data as Schemas['ReportSnapshot']);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const take = async () => {
    setError(undefined);
    setBusy(true);
    try {
      const taken = (await api().api.POST('/api/v1/reports/{report_id}/snapshots', path)).data!;
      setOpen(taken);
      snapshots.reload();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    if (!window.confirm(`Delete the report “${r.name}” and its snapshots?`)) return;
    setError(undefined);
    try {
      await api().api.DELETE('/api/v1/reports/{report_id}', path);
      navigate(`/reports?project=${encodeURIComponent(r.project_id)}`);
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <Page
      title={r.name}
      actions={
        <>
          <button type="button" onClick={take} disabled={busy}>
            {busy ? 'Taking a snapshot…' : 'Take snapshot now'}
          </button>
          <button type="button" class="secondary danger" onClick={remove}>
            Delete report
          </button>
        </>
      }
    >
      <p>
        <Link href={`/reports?project=${encodeURIComponent(r.project_id)}`}>All reports of the project</Link>
      </p>
      <dl class="facts">
        <dt>Kind</dt>
        <dd>{kindLabel(r.kind)}</dd>
        <dt>Tags</dt>
        <dd data-testid="report-tags">{r.filters.tags?.length ? r.filters.tags.join(', ') : 'any'}</dd>
        <dt>Period</dt>
        <dd>{r.period.last_days ? `the last ${r.period.last_days} days` : `${formatDate(r.period.from)} – ${formatDate(r.period.to)}`}</dd>
        <dt>Schedule</dt>
        <dd data-testid="report-schedule">
          {r.schedule ? (
            <>
              <code>{r.schedule.cron}</code> ({r.schedule.timezone}) · next snapshot {r.schedule.next_snapshot_at ? <time dateTime={r.schedule.next_snapshot_at}>{inZone(r.schedule.next_snapshot_at, r.schedule.timezone)}</time> : '—'}
              {r.schedule.last_error ? <span class="field-error"> · last attempt failed: {r.schedule.last_error}</span> : null}
            </>
          ) : (
            'none (snapshots by hand)'
          )}
        </dd>
      </dl>
      <ErrorNote error={error ?? snapshots.error} />
      {open ? <SnapshotData snapshot={open} /> : null}
      <h2>Snapshots</h2>
      {snapshots.data && snapshots.data.length === 0 ? <p class="empty">No snapshot yet.</p> : null}
      <ul class="list" aria-label="Snapshots of the report">
        {snapshots.data?.map((s) => (
          <li key={s.id}>
            {formatDate(s.created_at)} · {s.trigger === 'schedule' ? 'scheduled' : 'by hand'}{' '}
            <button type="button" class="link" onClick={() => (open?.id === s.id ? setOpen(undefined) : show(s.id))}>
              {open?.id === s.id ? 'Hide' : 'View'}
              <span class="visually-hidden"> the snapshot of {formatDate(s.created_at)}</span>
            </button>
          </li>
        ))}
      </ul>
    </Page>
  );
}
