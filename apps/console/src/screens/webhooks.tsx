import { Fragment, type JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { Schemas } from '@assay/client';
import { api, errorText, fieldErrors } from '../api';
import { Link, navigate } from '../router';
import { ErrorNote, Field, formatDate, Loading, Page, SecretOnce, StatusBadge, useLoad } from '../ui';

const EVENTS = ['test.execution.completed', 'test.execution.failed', 'test.execution.passed', 'test.execution.started', 'test.case.created', 'test.case.updated', 'test.case.deleted', 'discovery.session.completed', 'discovery.flow.detected', 'organization.quota.warning'];

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
            setErrors(fieldErrors(err));
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
        <fieldset>
          <legend>Events</legend>
          {errors.events ? <p class="field-error">{errors.events}</p> : null}
          <div class="checks">
            {EVENTS.map((ev) => (
              <label key={ev}>
                <input
                  type="checkbox"
                  checked={events.has(ev)}
                  onChange={() => {
                    const next = new Set(events);
                    if (next.has(ev)) next.delete(ev);
                    else next.add(ev);
                    setEvents(next);
                  }}
                />{' '}
                {ev}
              </label>
            ))}
          </div>
        </fieldset>
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
