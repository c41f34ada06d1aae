import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, errorText, fieldErrors } from '../api';
import { Link, navigate } from '../router';
import { ACTIONS, actionForm, REQUEST_TEMPLATE, toApiStep, toEditable, type EditableStep } from '../steps';
import { ErrorNote, Field, formatDate, Loading, Page, StatusBadge, useLoad } from '../ui';
import { SelectorPicker } from './recorder';

/** The value of the last `navigate` step before step `i`: where the picker opens. */
const lastNavigation = (steps: EditableStep[], i: number): string | undefined => steps.slice(0, i).reverse().find((s) => s.action === 'navigate' && s.value)?.value;

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

const emptyStep = (): EditableStep => ({ action: 'navigate', selector: '', value: '/', description: '', timeout: '' });

export function CaseEditor(props: { id?: string; projectId?: string }): JSX.Element {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [priority, setPriority] = useState('medium');
  const [steps, setSteps] = useState<EditableStep[]>([emptyStep()]);
  const [projectId, setProjectId] = useState(props.projectId ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(Boolean(props.id));
  /** The step whose selector is being picked on the remote page. */
  const [picking, setPicking] = useState<number>();

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
  const update = (i: number, patch: Partial<EditableStep>) => setSteps(steps.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const move = (i: number, d: number) => {
    const next = [...steps];
    const [s] = next.splice(i, 1);
    next.splice(i + d, 0, s!);
    setSteps(next);
  };
  /** Stores a typed value as a project secret and puts its `{{secret.name}}` reference in the step instead. */
  const saveAsSecret = async (i: number) => {
    const step = steps[i]!;
    const suggested = (/[#[]?([A-Za-z_][A-Za-z0-9_-]*)/.exec(step.selector.replace(/^.*[#=\s"']/, ''))?.[1] ?? 'secret').replace(/-/g, '_');
    const name = window.prompt('Name of the secret (steps use it as {{secret.name}})', suggested)?.trim();
    if (!name) return;
    setError(undefined);
    try {
      await api().requestJson('PUT', `/api/v1/projects/${encodeURIComponent(projectId)}/variables/${encodeURIComponent(name)}`, { body: { value: step.value, secret: true } });
      update(i, { value: `{{secret.${name}}}` });
    } catch (err) {
      setError(errorText(err));
    }
  };
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
        <fieldset class="steps-editor">
          <legend>Steps</legend>
          {errors.steps ? <p class="field-error">{errors.steps}</p> : null}
          <ol>
            {steps.map((s, i) => {
              const rule = actionForm(s.action);
              const n = i + 1;
              const err = (f: string) => errors[`steps[${i}].${f}`];
              const callPrefix = `steps[${i}].`;
              const callErr =
                Object.entries(errors)
                  .filter(([k]) => k.startsWith(callPrefix) && /^(request|expect|save_as)\b/.test(k.slice(callPrefix.length)))
                  .map(([k, v]) => `${k.slice(callPrefix.length)} ${v}`)
                  .join('; ') || undefined;
              return (
                <li key={i} class="step-row" aria-label={`Step ${n}`}>
                  <Field label={`Step ${n} action`} id={`step-${i}-action`} error={err('action')} hint={rule?.hint ?? ''}>
                    {(a) => (
                      <select {...a} value={s.action} onChange={(e) => update(i, { action: (e.target as HTMLSelectElement).value })}>
                        {Object.keys(ACTIONS).map((k) => (
                          <option key={k} value={k}>
                            {k}
                          </option>
                        ))}
                      </select>
                    )}
                  </Field>
                  {rule?.selector !== 'no' || err('selector') ? (
                    <Field label={`Step ${n} selector`} id={`step-${i}-selector`} error={err('selector')}>
                      {(a) => <input {...a} value={s.selector} placeholder="#id, text=…, role=button[name=…]" onInput={(e) => update(i, { selector: (e.target as HTMLInputElement).value })} />}
                    </Field>
                  ) : null}
                  {rule?.selector !== 'no' && projectId ? (
                    picking === i ? (
                      <SelectorPicker
                        projectId={projectId}
                        label={`step ${n}`}
                        {...(lastNavigation(steps, i) ? { startPath: lastNavigation(steps, i)! } : {})}
                        onPick={(selector) => {
                          update(i, { selector });
                          setPicking(undefined);
                        }}
                        onClose={() => setPicking(undefined)}
                      />
                    ) : (
                      <button type="button" class="secondary small" onClick={() => setPicking(i)} aria-label={`Pick an element for step ${n}`}>
                        Pick
                      </button>
                    )
                  ) : null}
                  {rule?.value !== 'no' || err('value') ? (
                    <Field label={`Step ${n} value`} id={`step-${i}-value`} error={err('value')}>
                      {(a) => (
                        <>
                          {/* A password typed here is not shown on screen; "Save as secret" moves it out of the case altogether. */}
                          <input {...a} type={/pass(word)?|pwd|secret|token/i.test(s.selector) ? 'password' : 'text'} autoComplete="off" value={s.value} onInput={(e) => update(i, { value: (e.target as HTMLInputElement).value })} />
                          {(s.action === 'fill' || s.action === 'type') && s.value && !/\{\{/.test(s.value) && projectId ? (
                            <button type="button" class="link" onClick={() => void saveAsSecret(i)}>
                              Save as secret<span class="visually-hidden"> (step {n})</span>
                            </button>
                          ) : null}
                        </>
                      )}
                    </Field>
                  ) : null}
                  {rule?.call || callErr ? (
                    <Field label={`Step ${n} request (JSON: request, expect, save_as)`} id={`step-${i}-request`} error={callErr}>
                      {(a) => <textarea {...a} rows={6} spellcheck={false} value={s.call ?? REQUEST_TEMPLATE} onInput={(e) => update(i, { call: (e.target as HTMLTextAreaElement).value })} />}
                    </Field>
                  ) : null}
                  {rule?.visual ? (
                    <>
                      <Field label={`Step ${n} mask (one selector per line)`} id={`step-${i}-mask`} error={Object.entries(errors).filter(([k]) => k.startsWith(`steps[${i}].mask`)).map(([, v]) => v).join('; ') || undefined} hint="Dynamic parts (dates, avatars), painted over in the baseline and every capture">
                        {(a) => <textarea {...a} rows={2} spellcheck={false} value={s.mask ?? ''} onInput={(e) => update(i, { mask: (e.target as HTMLTextAreaElement).value })} />}
                      </Field>
                      <Field label={`Step ${n} threshold (0–1, default 0.1)`} id={`step-${i}-threshold`} error={err('threshold')}>
                        {(a) => <input {...a} inputMode="decimal" value={s.threshold ?? ''} onInput={(e) => update(i, { threshold: (e.target as HTMLInputElement).value })} />}
                      </Field>
                      <Field label={`Step ${n} allowed share of differing pixels (0–1, default 0)`} id={`step-${i}-max-diff-ratio`} error={err('max_diff_ratio')}>
                        {(a) => <input {...a} inputMode="decimal" value={s.max_diff_ratio ?? ''} onInput={(e) => update(i, { max_diff_ratio: (e.target as HTMLInputElement).value })} />}
                      </Field>
                    </>
                  ) : null}
                  {rule?.timeout || err('timeout') ? (
                    <Field label={`Step ${n} timeout (ms)`} id={`step-${i}-timeout`} error={err('timeout')}>
                      {(a) => <input {...a} inputMode="numeric" value={s.timeout} onInput={(e) => update(i, { timeout: (e.target as HTMLInputElement).value })} />}
                    </Field>
                  ) : null}
                  <Field label={`Step ${n} description`} id={`step-${i}-description`} error={err('description')}>
                    {(a) => <input {...a} value={s.description} onInput={(e) => update(i, { description: (e.target as HTMLInputElement).value })} />}
                  </Field>
                  <div class="step-tools">
                    <button type="button" class="secondary" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`Move step ${n} up`}>
                      ↑
                    </button>
                    <button type="button" class="secondary" disabled={i === steps.length - 1} onClick={() => move(i, 1)} aria-label={`Move step ${n} down`}>
                      ↓
                    </button>
                    <button type="button" class="secondary danger" onClick={() => setSteps(steps.filter((_, j) => j !== i))} aria-label={`Remove step ${n}`}>
                      Remove
                    </button>
                  </div>
                </li>
              );
            })}
          </ol>
          <button type="button" class="secondary" onClick={() => setSteps([...steps, { ...emptyStep(), action: 'click', value: '' }])}>
            Add step
          </button>
        </fieldset>
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
