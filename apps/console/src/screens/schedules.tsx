import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { Schemas } from '@assay/client';
import { api, errorText, fieldErrors } from '../api';
import { Link } from '../router';
import { ErrorNote, Field, formatDate, StatusBadge, useLoad } from '../ui';

/** The IANA zones the browser knows, for the time zone field's suggestions (the server checks the value). */
export const TIME_ZONES: string[] = (() => {
  try {
    return (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
})();

/** A run time as the schedule reads it: in its own time zone, 24-hour clock. */
export function inZone(iso: string, timeZone: string): string {
  try {
    return new Date(iso).toLocaleString(undefined, { timeZone, weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  } catch {
    return formatDate(iso);
  }
}

/** A test plan's schedules (`/api/v1/test-plans/{id}/schedules`): list with next run times, create, enable/disable, delete. */
export function PlanSchedules(props: { planId: string; environments: string[] }): JSX.Element {
  const planPath = { test_plan_id: props.planId };
  const schedules = useLoad(async () => (await api().api.GET('/api/v1/test-plans/{test_plan_id}/schedules', { params: { path: planPath } })).data!, [props.planId]);
  const [cron, setCron] = useState('0 8 * * 1-5');
  const [timezone, setTimezone] = useState('UTC');
  const [environment, setEnvironment] = useState('');
  const [enabled, setEnabled] = useState(true);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const [createError, setCreateError] = useState<string>();

  const change = async (call: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await call();
      schedules.reload();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const create = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setCreateError(undefined);
    try {
      await api().api.POST('/api/v1/test-plans/{test_plan_id}/schedules', { params: { path: planPath }, body: { cron: cron.trim(), timezone: timezone.trim(), enabled, environment: environment || null } });
      schedules.reload();
    } catch (err) {
      setErrors(fieldErrors(err));
      setCreateError(errorText(err));
    }
  };
  const list: Array<Schemas['Schedule']> = schedules.data?.data ?? [];

  return (
    <section aria-labelledby="schedules-title">
      <h2 id="schedules-title">Schedules</h2>
      <ErrorNote error={schedules.error ?? error} />
      {schedules.data && list.length === 0 ? <p class="empty">No schedule: this plan runs only when started.</p> : null}
      <ul class="cards" aria-label="Schedules of the plan">
        {list.map((s) => {
          const label = `${s.cron} (${s.timezone})`;
          return (
            <li key={s.id} class="card schedule">
              <h3>
                <code>{s.cron}</code> <span class="muted">{s.timezone}</span> <StatusBadge status={s.enabled ? 'enabled' : 'disabled'} />
              </h3>
              <p class="muted">
                Environment: {s.environment ?? 'default'}
                {s.last_run_at ? (
                  <>
                    {' '}
                    · last run {formatDate(s.last_run_at)}
                    {s.last_execution_id ? (
                      <>
                        {' '}
                        (<Link href={`/executions/${s.last_execution_id}`}>execution</Link>)
                      </>
                    ) : null}
                  </>
                ) : null}
              </p>
              {s.last_error ? <p class="error-note">Last occurrence started nothing: {s.last_error}</p> : null}
              {s.next_runs.length ? (
                <>
                  <p>Next runs ({s.timezone}):</p>
                  <ol class="next-runs" aria-label={`Next runs of ${label}`}>
                    {s.next_runs.map((t) => (
                      <li key={t}>
                        <time dateTime={t}>{inZone(t, s.timezone)}</time>
                      </li>
                    ))}
                  </ol>
                </>
              ) : (
                <p class="muted">Paused: no next run.</p>
              )}
              <div class="row">
                <button
                  type="button"
                  class="secondary"
                  aria-label={`${s.enabled ? 'Disable' : 'Enable'} schedule ${label}`}
                  onClick={() => change(() => api().api.PATCH('/api/v1/test-plans/{test_plan_id}/schedules/{schedule_id}', { params: { path: { ...planPath, schedule_id: s.id } }, body: { enabled: !s.enabled } }))}
                >
                  {s.enabled ? 'Disable' : 'Enable'}
                </button>
                <button
                  type="button"
                  class="secondary danger"
                  aria-label={`Delete schedule ${label}`}
                  onClick={() => window.confirm(`Delete the schedule ${label}?`) && change(() => api().api.DELETE('/api/v1/test-plans/{test_plan_id}/schedules/{schedule_id}', { params: { path: { ...planPath, schedule_id: s.id } } }))}
                >
                  Delete
                </button>
              </div>
            </li>
          );
        })}
      </ul>
      <form class="card form" aria-labelledby="schedule-new-title" onSubmit={create}>
        <h3 id="schedule-new-title">New schedule</h3>
        <Field label="Cron" id="schedule-cron" error={errors.cron} hint="Five fields: minute hour day-of-month month day-of-week (0 8 * * 1-5: weekdays at 08:00)">
          {(a) => <input {...a} required spellcheck={false} autoComplete="off" value={cron} onInput={(e) => setCron((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="Time zone" id="schedule-timezone" error={errors.timezone} hint="An IANA time zone: UTC, Europe/Paris, America/New_York">
          {(a) => <input {...a} required list="schedule-timezones" autoComplete="off" value={timezone} onInput={(e) => setTimezone((e.target as HTMLInputElement).value)} />}
        </Field>
        <datalist id="schedule-timezones">
          {TIME_ZONES.map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
        <Field label="Schedule environment" id="schedule-environment" error={errors.environment}>
          {(a) => (
            <select {...a} value={environment} onChange={(e) => setEnvironment((e.target as HTMLSelectElement).value)}>
              <option value="">Default (the project’s base URL)</option>
              {props.environments.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          )}
        </Field>
        <label class="check">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled((e.target as HTMLInputElement).checked)} /> Enabled
        </label>
        <ErrorNote error={Object.keys(errors).length ? undefined : createError} />
        <button type="submit">Add schedule</button>
      </form>
    </section>
  );
}
