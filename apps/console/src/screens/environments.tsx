import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { Schemas } from '@assay/client';
import { api, errorText, fieldErrors } from '../api';
import { ErrorNote, Field, useLoad } from '../ui';

interface Variable {
  name: string;
  environment: string | null;
  secret: boolean;
  value: string | null;
  reference: string;
  updated_at: string;
}

/**
 * A project's environments (name → base URL) and its variables and secrets.
 * A secret's value is sent once and never shown again: the API answers its
 * name only, and runs mask it wherever it would appear.
 */
export function ProjectEnvironments(props: { project: Schemas['Project']; onChanged: () => void }): JSX.Element {
  const p = props.project;
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const report = { onError: setError, onNotice: setNotice };
  return (
    <section aria-labelledby="environments-title">
      <h2 id="environments-title">Environments and variables</h2>
      <p class="muted">
        Runs use the base URL <code>{p.base_url}</code> unless they pick an environment. Steps use a variable as <code>{'{{name}}'}</code> and a secret as <code>{'{{secret.name}}'}</code>.
      </p>
      <ErrorNote error={error} />
      <p role="status">{notice}</p>
      <Environments project={p} onChanged={props.onChanged} {...report} />
      <Variables project={p} {...report} />
    </section>
  );
}

interface Reports {
  onError: (error: string | undefined) => void;
  onNotice: (notice: string | undefined) => void;
}

/** The environments as a table, each removable, and the form that adds one (the project's `environments`, replaced whole). */
function Environments(props: { project: Schemas['Project']; onChanged: () => void } & Reports): JSX.Element {
  const p = props.project;
  const envs = Object.entries(p.environments ?? {});
  const [envName, setEnvName] = useState('');
  const [envUrl, setEnvUrl] = useState('');
  const [envErrors, setEnvErrors] = useState<Record<string, string>>({});
  const saveEnvironments = async (next: Record<string, string>) => {
    setEnvErrors({});
    props.onError(undefined);
    try {
      await api().api.PUT('/api/v1/projects/{project_id}', { params: { path: { project_id: p.id } }, body: { environments: next } });
      props.onChanged();
      return true;
    } catch (err) {
      const f = fieldErrors(err);
      setEnvErrors(Object.keys(f).length ? { name: Object.values(f)[0]! } : {});
      props.onError(errorText(err));
      return false;
    }
  };
  return (
    <>
      <table class="table compact" aria-label="Environments">
        <thead>
          <tr>
            <th scope="col">Environment</th>
            <th scope="col">Base URL</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td>Default</td>
            <td>
              <code>{p.base_url}</code>
            </td>
            <td />
          </tr>
          {envs.map(([k, url]) => (
            <tr key={k}>
              <td>{k}</td>
              <td>
                <code>{url}</code>
              </td>
              <td>
                <button type="button" class="link danger" aria-label={`Remove environment ${k}`} onClick={() => void saveEnvironments(Object.fromEntries(envs.filter(([n]) => n !== k)))}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        class="inline-form"
        aria-label="Add an environment"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await saveEnvironments({ ...Object.fromEntries(envs), [envName.trim()]: envUrl.trim() })) {
            setEnvName('');
            setEnvUrl('');
          }
        }}
      >
        <Field label="Environment name" id="env-name" error={envErrors.name}>
          {(a) => <input {...a} value={envName} placeholder="staging" onInput={(e) => setEnvName((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="Environment base URL" id="env-url">
          {(a) => <input {...a} type="url" value={envUrl} placeholder="https://staging.example.com" onInput={(e) => setEnvUrl((e.target as HTMLInputElement).value)} />}
        </Field>
        <button type="submit">Add environment</button>
      </form>
    </>
  );
}

/** The variables and secrets as a table, each deletable, and the form that sets one for every environment or one of them. */
function Variables(props: { project: Schemas['Project'] } & Reports): JSX.Element {
  const p = props.project;
  const envs = Object.entries(p.environments ?? {});
  const vars = useLoad(async () => (await api().requestJson<{ data: Variable[] }>('GET', `/api/v1/projects/${p.id}/variables`)).data, [p.id]);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [secret, setSecret] = useState(true);
  const [scope, setScope] = useState('');
  const [varErrors, setVarErrors] = useState<Record<string, string>>({});
  const { onError: setError, onNotice: setNotice } = props;
  return (
    <>
      <ErrorNote error={vars.error} />
      <table class="table compact" aria-label="Variables">
        <thead>
          <tr>
            <th scope="col">Variable</th>
            <th scope="col">Environment</th>
            <th scope="col">Value</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {vars.data?.length === 0 ? (
            <tr>
              <td colSpan={4} class="muted">
                No variables yet.
              </td>
            </tr>
          ) : null}
          {vars.data?.map((v) => (
            <tr key={`${v.environment ?? ''}/${v.name}`}>
              <td>
                <code>{v.reference}</code>
              </td>
              <td>{v.environment ?? 'every environment'}</td>
              <td>{v.secret ? <span class="secret-ref">🔒 •••••• (secret: set, never shown)</span> : <code>{v.value}</code>}</td>
              <td>
                <button
                  type="button"
                  class="link danger"
                  aria-label={`Delete ${v.name}${v.environment ? ` of ${v.environment}` : ''}`}
                  onClick={async () => {
                    try {
                      await api().request('DELETE', `/api/v1/projects/${p.id}/variables/${encodeURIComponent(v.name)}${v.environment ? `?environment=${encodeURIComponent(v.environment)}` : ''}`);
                      setNotice(`Deleted ${v.name}.`);
                      vars.reload();
                    } catch (err) {
                      setError(errorText(err));
                    }
                  }}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        class="inline-form"
        aria-label="Set a variable"
        onSubmit={async (e) => {
          e.preventDefault();
          setVarErrors({});
          setError(undefined);
          setNotice(undefined);
          try {
            const path = `/api/v1/projects/${p.id}/variables/${encodeURIComponent(name.trim())}${scope ? `?environment=${encodeURIComponent(scope)}` : ''}`;
            const saved = await api().requestJson<Variable>('PUT', path, { body: { value, secret } });
            setNotice(`${saved.secret ? 'Secret' : 'Variable'} ${saved.name} saved: use it as ${saved.reference}.`);
            setName('');
            setValue('');
            vars.reload();
          } catch (err) {
            const f = fieldErrors(err);
            setVarErrors(f);
            if (!Object.keys(f).length) setError(errorText(err));
          }
        }}
      >
        <Field label="Variable name" id="var-name" error={varErrors.name}>
          {(a) => <input {...a} value={name} placeholder="password" onInput={(e) => setName((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="Variable value" id="var-value" error={varErrors.value}>
          {(a) => <input {...a} type={secret ? 'password' : 'text'} autoComplete="new-password" value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="Applies to" id="var-environment" error={varErrors.environment}>
          {(a) => (
            <select {...a} value={scope} onChange={(e) => setScope((e.target as HTMLSelectElement).value)}>
              <option value="">Every environment</option>
              {envs.map(([k]) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          )}
        </Field>
        <label class="check">
          <input type="checkbox" checked={secret} onChange={(e) => setSecret((e.target as HTMLInputElement).checked)} /> Secret (encrypted, never shown, masked in results)
        </label>
        <button type="submit">Save variable</button>
      </form>
    </>
  );
}
