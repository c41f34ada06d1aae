import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, errorText } from '../api';
import { Link, navigate } from '../router';
import { ErrorNote, Field, formatDate, Loading, ms, Page, StatusBadge, useLoad } from '../ui';

interface SuiteTest {
  id: string;
  project: string;
  file: string;
  line: number;
  title: string;
  title_path: string[];
}
interface Suite {
  id: string;
  project_id: string;
  name: string;
  latest_version: number;
  updated_at: string;
}
interface SuitePage extends Suite {
  latest: { version: number; status?: 'listing' | 'ready' | 'invalid'; error?: string | null; total_tests: number; playwright_version: string; dependencies: string; created_at: string; tests: SuiteTest[] } | null;
  last_runs: Array<{ id: string; status: string; passed_tests: number; failed_tests: number; skipped_tests: number; total_tests: number; shards: number; created_at: string }>;
  slowest_tests: Array<{ test_id: string; name: string; runs: number; mean_ms: number; max_ms: number }>;
  flaky_tests: Array<{ test_id: string; name: string; runs: number; flaky: number; failed: number }>;
}

/** A project's Playwright suites, and the upload of a new one (or a new version). */
export function SuiteList(props: { projectId: string }): JSX.Element {
  const suites = useLoad(async () => (props.projectId ? api().requestJson<{ data: Suite[] }>('GET', `/api/v1/suites?project_id=${encodeURIComponent(props.projectId)}`) : { data: [] }), [props.projectId]);
  const [name, setName] = useState('');
  const [file, setFile] = useState<File>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const upload = async (e: Event) => {
    e.preventDefault();
    if (!file) return setError('Choose the archive of the Playwright project (.tar.gz or .zip)');
    setBusy(true);
    setError(undefined);
    try {
      const form = new FormData();
      form.append('project_id', props.projectId);
      form.append('name', name);
      form.append('archive', file, file.name);
      const suite = await api().requestJson<Suite>('POST', '/api/v1/suites', { body: form });
      navigate(`/suites/${suite.id}`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Page title="Playwright suites">
      <p class="muted">The Playwright Test projects your team already has, run here unchanged but for their base URL, sharded across the runners.</p>
      <ErrorNote error={suites.error} />
      {suites.loading ? <Loading what="suites" /> : null}
      {suites.data && suites.data.data.length === 0 ? <p class="empty">No suite yet: upload one below.</p> : null}
      {suites.data && suites.data.data.length > 0 ? (
        <ul class="list">
          {suites.data.data.map((s) => (
            <li key={s.id}>
              <Link href={`/suites/${s.id}`}>{s.name}</Link> <span class="muted">version {s.latest_version} · {formatDate(s.updated_at)}</span>
            </li>
          ))}
        </ul>
      ) : null}
      <form class="form" onSubmit={upload} aria-label="Upload a suite">
        <h2>Upload a suite</h2>
        <Field label="Name (an existing name gets a new version)" id="suite-name">
          {(a) => <input {...a} required maxLength={200} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="Archive (.tar.gz or .zip of the project, its playwright.config at the root)" id="suite-archive">
          {(a) => <input {...a} type="file" accept=".gz,.tgz,.zip" onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0])} />}
        </Field>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Listing its tests…' : 'Upload'}
        </button>
      </form>
    </Page>
  );
}

/** One suite: run it, its tests, its last runs, its flaky and slowest tests. */
export function SuiteView(props: { id: string }): JSX.Element {
  const page = useLoad(() => api().requestJson<SuitePage>('GET', `/api/v1/suites/${encodeURIComponent(props.id)}`), [props.id]);
  const [shards, setShards] = useState(2);
  const [error, setError] = useState<string>();
  if (page.error) return <ErrorNote error={page.error} />;
  const s = page.data;
  if (!s) return <Loading what="the suite" />;
  const run = async () => {
    try {
      const queued = await api().requestJson<{ id: string }>('POST', '/api/v1/executions/async', { body: { suite_id: s.id, project_id: s.project_id, shards } });
      navigate(`/executions/${queued.id}`);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <Page
      title={s.name}
      actions={
        <>
          <label class="inline">
            Shards{' '}
            <input type="number" min={1} max={16} value={shards} aria-label="Shards" onInput={(e) => setShards(Number((e.target as HTMLInputElement).value) || 1)} />
          </label>
          <button type="button" onClick={run}>
            Run
          </button>
        </>
      }
    >
      <ErrorNote error={error} />
      {s.latest ? (
        <p class="muted">
          Version {s.latest.version} · {s.latest.total_tests} tests · Playwright {s.latest.playwright_version} · uploaded {formatDate(s.latest.created_at)}
          {s.latest.status === 'listing' ? ' · its tests are being listed (reload in a moment)' : ''}
        </p>
      ) : null}
      {s.latest?.status === 'invalid' ? <ErrorNote error={`Version ${s.latest.version} could not be listed: ${s.latest.error ?? ''}`} /> : null}
      <h2>Last runs</h2>
      {s.last_runs.length === 0 ? <p class="empty">Not run yet.</p> : null}
      <ul class="list">
        {s.last_runs.map((r) => (
          <li key={r.id}>
            <Link href={`/executions/${r.id}`}>{formatDate(r.created_at)}</Link> <StatusBadge status={r.status} /> {r.passed_tests} passed, {r.failed_tests} failed
            {r.skipped_tests ? `, ${r.skipped_tests} skipped` : ''} · {r.shards} shard{r.shards > 1 ? 's' : ''}
          </li>
        ))}
      </ul>
      <h2>Flaky tests</h2>
      {s.flaky_tests.length === 0 ? <p class="empty">None in the last runs.</p> : null}
      <ul class="list">
        {s.flaky_tests.map((t) => (
          <li key={t.test_id}>
            {t.name} <span class="muted">passed on a retry {t.flaky}×, failed {t.failed}× in {t.runs} runs</span>
          </li>
        ))}
      </ul>
      <h2>Slowest tests</h2>
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Test</th>
            <th scope="col">Mean</th>
            <th scope="col">Longest</th>
            <th scope="col">Runs</th>
          </tr>
        </thead>
        <tbody>
          {s.slowest_tests.map((t) => (
            <tr key={t.test_id}>
              <td>{t.name}</td>
              <td>{ms(t.mean_ms)}</td>
              <td>{ms(t.max_ms)}</td>
              <td>{t.runs}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Tests</h2>
      <ul class="list">
        {(s.latest?.tests ?? []).map((t) => (
          <li key={t.id}>
            <span class="muted">[{t.project}]</span> {t.title_path.join(' › ')} <span class="muted">{t.file}:{t.line}</span>
          </li>
        ))}
      </ul>
    </Page>
  );
}
