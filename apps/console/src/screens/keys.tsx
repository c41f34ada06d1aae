import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, errorText, fieldErrors } from '../api';
import { ErrorNote, Field, formatDate, Page, SecretOnce, useLoad } from '../ui';

type Kind = 'service' | 'api';

function KeySection(props: { kind: Kind }): JSX.Element {
  const path = props.kind === 'service' ? '/api/service-keys' : '/api/api-keys';
  const keys = useLoad(async () => (await api().requestJson<{ keys: Array<{ id: string; name: string; environment?: string; scopes?: string[]; created_at: string; last_used: string | null; usage_count?: number }> }>('GET', path)).keys, [path]);
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState('dev');
  const [scopes, setScopes] = useState('');
  const [secret, setSecret] = useState<string>();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const label = props.kind === 'service' ? 'Service keys' : 'API keys (sk_live_)';
  return (
    <section aria-labelledby={`${props.kind}-keys-title`}>
      <h2 id={`${props.kind}-keys-title`}>{label}</h2>
      {secret ? <SecretOnce label={`New ${props.kind === 'service' ? 'service' : 'API'} key`} secret={secret} onDone={() => setSecret(undefined)} /> : null}
      <form
        class="inline-form"
        aria-label={`Create a ${props.kind === 'service' ? 'service' : 'API'} key`}
        onSubmit={async (e) => {
          e.preventDefault();
          setErrors({});
          setError(undefined);
          try {
            const body = props.kind === 'service' ? { name, environment } : { name, scopes: scopes.split(/[\s,]+/).filter(Boolean) };
            const created = await api().requestJson<{ key: string }>('POST', path, { body });
            setSecret(created.key);
            setName('');
            keys.reload();
          } catch (err) {
            setErrors(fieldErrors(err));
            setError(errorText(err));
          }
        }}
      >
        <Field label="Key name" id={`${props.kind}-key-name`} error={errors.name}>
          {(a) => <input {...a} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />}
        </Field>
        {props.kind === 'service' ? (
          <Field label="Environment" id="service-key-env" error={errors.environment}>
            {(a) => (
              <select {...a} value={environment} onChange={(e) => setEnvironment((e.target as HTMLSelectElement).value)}>
                <option value="dev">dev</option>
                <option value="prod">prod</option>
              </select>
            )}
          </Field>
        ) : (
          <Field label="Scopes" id="api-key-scopes" error={errors.scopes} hint="Space-separated, e.g. test_cases:read executions:write; empty = full access">
            {(a) => <input {...a} value={scopes} onInput={(e) => setScopes((e.target as HTMLInputElement).value)} />}
          </Field>
        )}
        <button type="submit">Create key</button>
      </form>
      <ErrorNote error={Object.keys(errors).length ? undefined : (error ?? keys.error)} />
      <p role="status" data-testid={`${props.kind}-keys-notice`}>
        {notice}
      </p>
      {keys.data && keys.data.length === 0 ? <p class="empty">No active {props.kind === 'service' ? 'service' : 'API'} keys: create one above.</p> : null}
      <table class="table" hidden={keys.data?.length === 0}>
        <caption class="visually-hidden">{label}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">{props.kind === 'service' ? 'Environment' : 'Scopes'}</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Calls</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.data?.map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td>{props.kind === 'service' ? k.environment : k.scopes?.length ? k.scopes.join(' ') : 'full access'}</td>
              <td>{formatDate(k.created_at)}</td>
              <td>{formatDate(k.last_used)}</td>
              <td>{k.usage_count ?? 0}</td>
              <td>
                <button
                  type="button"
                  class="secondary danger"
                  aria-label={`Revoke ${k.name}`}
                  onClick={async () => {
                    if (!window.confirm(`Revoke “${k.name}”? Calls with it stop working within seconds.`)) return;
                    try {
                      await api().request('DELETE', `${path}/${encodeURIComponent(k.id)}`);
                      setNotice(`Revoked “${k.name}”: calls with it are refused (401) within seconds.`);
                      keys.reload();
                    } catch (err) {
                      setError(errorText(err));
                    }
                  }}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function KeysScreen(): JSX.Element {
  return (
    <Page title="Keys">
      <p class="muted">Keys call the API as this organization (Admin level). The secret is shown once, when it is created.</p>
      <KeySection kind="service" />
      <KeySection kind="api" />
    </Page>
  );
}
