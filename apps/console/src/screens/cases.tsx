import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, errorText, fieldErrors } from '../api';
import { Link, navigate } from '../router';
import { toApiStep, toEditable, type EditableStep } from '../steps';
import { ErrorNote, Field, formatDate, Loading, Page, StatusBadge, useLoad } from '../ui';
import { emptyStep, StepsEditor } from './step-editor';

const getCase = async (id: string) => (await api().api.GET('/api/v1/test-cases/{test_case_id}', { params: { path: { test_case_id: id } } })).data!;

/** Runs this case alone (POST /api/v1/test-runs with its id) in the project's default or a chosen environment, then follows it live. */
function RunCase(props: { caseId: string; projectId: string; archived: boolean; onError: (e: string | undefined) => void }): JSX.Element {
  const project = useLoad(async () => (await api().api.GET('/api/v1/projects/{project_id}', { params: { path: { project_id: props.projectId } } })).data!, [props.projectId]);
  const [environment, setEnvironment] = useState('');
  const [busy, setBusy] = useState(false);
  const envs = Object.keys(project.data?.environments ?? {});
  return (
    <form
      class="run-case"
      aria-label="Run this test case"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        props.onError(undefined);
        try {
          const run = await api().requestJson<{ id: string }>('POST', '/api/v1/test-runs', {
            body: { project_id: props.projectId, test_case_id: props.caseId, wait_for_completion: false, trace: 'retain-on-failure', ...(environment ? { environment } : {}) },
          });
          navigate(`/executions/${run.id}`);
        } catch (err) {
          props.onError(errorText(err));
          setBusy(false);
        }
      }}
    >
      {envs.length ? (
        <label>
          <span class="visually-hidden">Environment</span>
          <select aria-label="Environment" value={environment} onChange={(e) => setEnvironment((e.target as HTMLSelectElement).value)}>
            <option value="">Default ({project.data?.base_url})</option>
            {envs.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <button type="submit" disabled={busy || props.archived} title={props.archived ? 'Restore the case to run it' : undefined}>
        {busy ? 'Starting…' : 'Run'}
      </button>
    </form>
  );
}

/** How a step's value reads on the case page: a `{{secret.name}}` reference is shown as the secret it names, never a value. */
function StepValue(props: { value: string }): JSX.Element {
  if (/\{\{\s*secret\.[A-Za-z_][A-Za-z0-9_-]*\s*\}\}/.test(props.value)) {
    return (
      <span class="value secret-ref" title="A secret of the project: stored encrypted, masked in results">
        🔒 {props.value}
      </span>
    );
  }
  return <span class="value">“{props.value}”</span>;
}

export function CaseView(props: { id: string }): JSX.Element {
  const tc = useLoad(() => getCase(props.id), [props.id]);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  if (tc.error) return <Page title="Test case">{<ErrorNote error={tc.error} />}</Page>;
  if (!tc.data) return <Loading what="test case" />;
  const c = tc.data;
  const archive = async () => {
    setError(undefined);
    try {
      if (c.status === 'archived') await api().api.POST('/api/v1/test-cases/{test_case_id}/restore', { params: { path: { test_case_id: c.id } } });
      else await api().api.DELETE('/api/v1/test-cases/{test_case_id}', { params: { path: { test_case_id: c.id } } });
      setNotice(c.status === 'archived' ? 'Restored.' : 'Archived: runs skip it until it is restored.');
      tc.reload();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <Page
      title={c.name}
      actions={
        <>
          <RunCase caseId={c.id} projectId={c.project_id} archived={c.status === 'archived'} onError={setError} />
          <Link class="button secondary" href={`/cases/${c.id}/edit`}>
            Edit
          </Link>
          <button type="button" class="secondary" onClick={archive}>
            {c.status === 'archived' ? 'Restore' : 'Archive'}
          </button>
        </>
      }
    >
      <p>
        <StatusBadge status={c.status} /> <span class="muted">priority {c.priority} · updated {formatDate(c.updated_at)} ·</span>{' '}
        <Link href={`/projects/${c.project_id}`}>Back to the project</Link>
      </p>
      {c.description ? <p>{c.description}</p> : null}
      <p role="status">{notice}</p>
      <ErrorNote error={error} />
      <h2>Steps</h2>
      <ol class="steps" aria-label="Steps">
        {c.steps.map((s) => (
          <li key={s.step_id}>
            <code class="action">{s.action}</code> {s.selector ? <code>{s.selector}</code> : null} {s.value !== undefined && s.value !== null ? <StepValue value={s.value} /> : null}
            {s.description ? <span class="muted"> — {s.description}</span> : null}
          </li>
        ))}
      </ol>
    </Page>
  );
}

export function CaseEditor(props: { id?: string; projectId?: string }): JSX.Element {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [priority, setPriority] = useState('medium');
  const [steps, setSteps] = useState<EditableStep[]>([emptyStep()]);
  const [projectId, setProjectId] = useState(props.projectId ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(Boolean(props.id));

  useEffect(() => {
    if (!props.id) return;
    getCase(props.id).then(
      (c) => {
        setName(c.name);
        setDescription(c.description ?? '');
        setPriority(c.priority);
        setProjectId(c.project_id);
        setSteps(c.steps.map((s) => toEditable(s as never)));
        setLoading(false);
      },
      (err) => {
        setError(errorText(err));
        setLoading(false);
      },
    );
  }, [props.id]);

  if (loading) return <Loading what="test case" />;
  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setError(undefined);
    const body = { name, description: description || null, priority, steps: steps.map(toApiStep) };
    try {
      const saved = props.id
        ? (await api().api.PUT('/api/v1/test-cases/{test_case_id}', { params: { path: { test_case_id: props.id } }, body: body as never })).data!
        : (await api().api.POST('/api/v1/test-cases', { body: { ...body, project_id: projectId } as never })).data!;
      navigate(`/cases/${saved.id}`);
    } catch (err) {
      const fields = fieldErrors(err);
      setErrors(fields);
      setError(Object.keys(fields).length ? `The test case was not saved: ${Object.keys(fields).length} field(s) need a change.` : errorText(err));
    }
  };

  return (
    <Page title={props.id ? `Edit ${name || 'test case'}` : 'New test case'}>
      <form class="form case-form" onSubmit={save} noValidate>
        <Field label="Name" id="case-name" error={errors.name}>
          {(a) => <input {...a} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="Description" id="case-description" error={errors.description}>
          {(a) => <textarea {...a} rows={2} value={description} onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)} />}
        </Field>
        <Field label="Priority" id="case-priority" error={errors.priority}>
          {(a) => (
            <select {...a} value={priority} onChange={(e) => setPriority((e.target as HTMLSelectElement).value)}>
              {['low', 'medium', 'high', 'critical'].map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          )}
        </Field>
        <StepsEditor steps={steps} onChange={setSteps} errors={errors} projectId={projectId} onError={setError} />
        <ErrorNote error={error} />
        <div class="row">
          <button type="submit">Save test case</button>
          <Link class="button secondary" href={props.id ? `/cases/${props.id}` : `/projects/${projectId}`}>
            Cancel
          </Link>
        </div>
      </form>
    </Page>
  );
}
