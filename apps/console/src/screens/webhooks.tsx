import { Fragment, type JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { Schemas } from '@assay/client';
import { WEBHOOK_EVENT_TYPES } from '@assay/contracts/catalogues';
import { api, errorText, fieldErrors } from '../api';
import { EVENT_GROUPS } from '../events';
import { Link, navigate } from '../router';
import { ErrorNote, Field, formatDate, Loading, Page, SecretOnce, StatusBadge, useLoad } from '../ui';

/** Checkboxes for the webhook's `events` (libs/contracts WEBHOOK_EVENT_TYPES), with the server's error for the field. */
function EventFilter(props: { idPrefix: string; value: Set<string>; onChange: (next: Set<string>) => void; error?: string | undefined }): JSX.Element {
  const toggle = (evs: string[], on: boolean) => {
    const next = new Set(props.value);
    for (const ev of evs) {
      if (on) next.add(ev);
      else next.delete(ev);
    }
    props.onChange(next);
  };
  const errorId = `${props.idPrefix}-events-error`;
  return (
    <fieldset aria-describedby={props.error ? errorId : undefined} aria-invalid={props.error ? true : undefined}>
      <legend>Events ({props.value.size} of {WEBHOOK_EVENT_TYPES.length})</legend>
      {props.error ? (
        <p id={errorId} class="field-error">
          {props.error}
        </p>
      ) : null}
      <div class="row">
        <button type="button" class="link" onClick={() => toggle([...WEBHOOK_EVENT_TYPES], true)}>
          Select all
        </button>
        <button type="button" class="link" onClick={() => props.onChange(new Set())}>
          Clear
        </button>
      </div>
      {EVENT_GROUPS.map(([group, evs]) => (
        <fieldset key={group} class="event-group">
          <legend>{group}</legend>
          <div class="checks">
            {evs.map((ev) => (
              <label key={ev} class="check">
                <input type="checkbox" checked={props.value.has(ev)} onChange={(e) => toggle([ev], (e.target as HTMLInputElement).checked)} /> {ev}
              </label>
            ))}
          </div>
        </fieldset>
      ))}
    </fieldset>
  );
}

/** Field errors by form field: `events.3` is the events field's. */
function webhookFieldErrors(err: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fieldErrors(err))) out[k.startsWith('events') ? 'events' : k] ??= v;
  return out;
}

/** Name, URL and the event filter of an existing webhook (PATCH /api/v1/webhooks/{id}). */
function WebhookSettings(props: { hook: Schemas['Webhook']; onSaved: () => void }): JSX.Element {
  const h = props.hook;
  const [name, setName] = useState(h.name);
  const [url, setUrl] = useState(h.url);
  const [events, setEvents] = useState<Set<string>>(new Set(h.events));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState(false);
  return (
    <form
      class="card form"
      aria-labelledby="webhook-settings-title"
      onSubmit={async (e) => {
        e.preventDefault();
        setErrors({});
        setError(undefined);
        setSaved(false);
        try {
          await api().api.PATCH('/api/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: h.id } }, body: { name, url, events: [...events] as never } });
          setSaved(true);
          props.onSaved();
        } catch (err) {
          setErrors(webhookFieldErrors(err));
          setError(errorText(err));
        }
      }}
    >
      <h2 id="webhook-settings-title">Settings</h2>
      <Field label="Name" id="webhook-edit-name" error={errors.name}>
        {(a) => <input {...a} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />}
      </Field>
      <Field label="URL" id="webhook-edit-url" error={errors.url}>
        {(a) => <input {...a} type="url" value={url} onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />}
      </Field>
      <EventFilter idPrefix="webhook-edit" value={events} onChange={setEvents} error={errors.events} />
      <ErrorNote error={Object.keys(errors).length ? undefined : error} />
      <div class="row">
        <button type="submit">Save changes</button>
        <span role="status">{saved ? 'Saved' : ''}</span>
      </div>
    </form>
  );
}

/** The secret of a webhook just created, carried to its page once. */
let createdSecret: { id: string; secret: string } | undefined;

export function WebhookList(): JSX.Element {
  const hooks = useLoad(async () => (await api().api.GET('/api/v1/webhooks', { params: { query: { limit: 100 } } as never })).data!, []);
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Set<string>>(new Set(['test.execution.completed']));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  return (
    <Page title="Webhooks">
      <form
        class="card form"
        aria-label="New webhook"
        onSubmit={async (e) => {
          e.preventDefault();
          setErrors({});
          setError(undefined);
          try {
            const created = (await api().api.POST('/api/v1/webhooks', { body: { name, url, events: [...events] as never } })).data!;
            createdSecret = { id: created.id, secret: created.secret };
            navigate(`/webhooks/${created.id}`);
          } catch (err) {
            setErrors(webhookFieldErrors(err));
            setError(errorText(err));
          }
        }}
      >
        <h2>New webhook</h2>
        <Field label="Name" id="webhook-name" error={errors.name}>
          {(a) => <input {...a} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="URL" id="webhook-url" error={errors.url} hint="HTTPS (plain HTTP to loopback only where the deployment allows it)">
          {(a) => <input {...a} type="url" value={url} onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />}
        </Field>
        <EventFilter idPrefix="webhook-new" value={events} onChange={setEvents} error={errors.events} />
        <ErrorNote error={Object.keys(errors).length ? undefined : error} />
        <button type="submit">Create webhook</button>
      </form>
      <ErrorNote error={hooks.error} />
      <ul class="cards">
        {hooks.data?.data.map((h) => (
          <li key={h.id} class="card">
            <h2>
              <Link href={`/webhooks/${h.id}`}>{h.name}</Link>
            </h2>
            <p class="muted">{h.url}</p>
            <p>
              {h.enabled ? <StatusBadge status="enabled" /> : <StatusBadge status="disabled" />} {h.events.join(', ')}
            </p>
          </li>
        ))}
      </ul>
    </Page>
  );
}

export function WebhookView(props: { id: string }): JSX.Element {
  const path = { params: { path: { webhook_id: props.id } } };
  const hook = useLoad(async () => (await api().api.GET('/api/v1/webhooks/{webhook_id}', path)).data!, [props.id]);
  const deliveries = useLoad(async () => (await api().api.GET('/api/v1/webhooks/{webhook_id}/deliveries', { ...path, params: { ...path.params, query: { limit: 50 } } } as never)).data as unknown as { data: Array<Schemas['WebhookDelivery']> }, [props.id]);
  const [secret, setSecret] = useState<string | undefined>(createdSecret?.id === props.id ? createdSecret.secret : undefined);
  const [error, setError] = useState<string>();
  const [open, setOpen] = useState<string>();
  if (createdSecret?.id === props.id) createdSecret = undefined;
  if (hook.error) return <Page title="Webhook">{<ErrorNote error={hook.error} />}</Page>;
  if (!hook.data) return <Loading what="webhook" />;
  const h = hook.data;
  const act = async (fn: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await fn();
      deliveries.reload();
      hook.reload();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <Page
      title={h.name}
      actions={
        <>
          <button type="button" onClick={() => act(() => api().api.POST('/api/v1/webhooks/{webhook_id}/test', { ...path, body: {} }))}>
            Send test event
          </button>
          <button
            type="button"
            class="secondary"
            onClick={() =>
              act(async () => {
                const r = (await api().api.POST('/api/v1/webhooks/{webhook_id}/rotate-secret', { ...path, body: {} })).data!;
                setSecret(r.secret);
              })
            }
          >
            Rotate secret
          </button>
          <button type="button" class="secondary" onClick={() => act(() => api().api.PATCH('/api/v1/webhooks/{webhook_id}', { ...path, body: { enabled: !h.enabled } }))}>
            {h.enabled ? 'Disable' : 'Enable'}
          </button>
          <button
            type="button"
            class="secondary danger"
            onClick={() =>
              window.confirm(`Delete the webhook “${h.name}” and its delivery log?`) &&
              act(async () => {
                await api().api.DELETE('/api/v1/webhooks/{webhook_id}', path);
                navigate('/webhooks');
              })
            }
          >
            Delete
          </button>
        </>
      }
    >
      <p class="muted">
        {h.url} · {h.events.join(', ')} {h.disabled_reason ? `· disabled: ${h.disabled_reason}` : ''}
      </p>
      {secret ? <SecretOnce label="Signing secret" secret={secret} onDone={() => setSecret(undefined)} /> : null}
      <ErrorNote error={error ?? deliveries.error} />
      <details class="card">
        <summary>Edit name, URL and events</summary>
        <WebhookSettings hook={h} onSaved={hook.reload} />
      </details>
      <h2>
        Deliveries{' '}
        <button type="button" class="secondary" onClick={deliveries.reload}>
          Refresh
        </button>
      </h2>
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">HTTP</th>
            <th scope="col">Attempts</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {deliveries.data?.data.map((d) => (
            <Fragment key={d.id}>
              <tr>
                <td>
                  {d.event} {d.test ? <span class="muted">(test)</span> : null}
                </td>
                <td>
                  <StatusBadge status={d.status} />
                </td>
                <td>{d.status_code ?? '—'}</td>
                <td>
                  {d.attempt_count}/{d.max_attempts}
                </td>
                <td>{formatDate(d.created_at)}</td>
                <td>
                  <button type="button" class="link" aria-expanded={open === d.id} onClick={() => setOpen(open === d.id ? undefined : d.id)}>
                    Details
                  </button>{' '}
                  <button type="button" class="link" onClick={() => act(() => api().api.POST('/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/resend', { params: { path: { webhook_id: props.id, delivery_id: d.id } } }))}>
                    Resend
                  </button>
                </td>
              </tr>
              {open === d.id ? (
                <tr>
                  <td colSpan={6}>
                    {d.error ? <p class="error-note">{d.error}</p> : null}
                    <p>Response body:</p>
                    <pre class="body">{d.response_body ?? '(none)'}</pre>
                    <ol>
                      {(d.attempts as Array<{ attempt?: number; status_code?: number | null; error?: string | null; at?: string; response_time_ms?: number | null }>).map((a, i) => (
                        <li key={i}>
                          {a.status_code ?? '—'} {a.error ?? ''} {a.response_time_ms !== undefined && a.response_time_ms !== null ? `${a.response_time_ms} ms` : ''} {a.at ? formatDate(a.at) : ''}
                        </li>
                      ))}
                    </ol>
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </tbody>
      </table>
    </Page>
  );
}
