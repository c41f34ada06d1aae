import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { Schemas } from '@assay/client';
import { api, errorText, fieldErrors } from '../api';
import { Link, navigate } from '../router';
import { ErrorNote, Field, Loading, Page, useLoad } from '../ui';
import { PlanSchedules } from './schedules';

export function PlanView(props: { id: string }): JSX.Element {
  const data = useLoad(async () => {
    const plan = (await api().api.GET('/api/v1/test-plans/{test_plan_id}', { params: { path: { test_plan_id: props.id } } })).data!;
    const [project, cases, active] = await Promise.all([
      api().api.GET('/api/v1/projects/{project_id}', { params: { path: { project_id: plan.project_id } } }),
      api().api.GET('/api/v1/test-cases', { params: { query: { project_id: plan.project_id, test_plan_id: plan.id, status: 'all', limit: 500 } as never } }),
      api().api.GET('/api/v1/test-cases', { params: { query: { project_id: plan.project_id, limit: 500 } as never } }),
    ]);
    const byId = new Map(cases.data!.data.map((c) => [c.id, c]));
    // In run order: the plan's own order of ids.
    const ordered = plan.test_case_ids.map((id) => byId.get(id)).filter((c): c is NonNullable<typeof c> => c !== undefined);
    return { plan, project: project.data!, cases: ordered, addable: active.data!.data.filter((c) => !plan.test_case_ids.includes(c.id)) };
  }, [props.id]);
  const [toAdd, setToAdd] = useState('');
  const [error, setError] = useState<string>();

  if (data.error) return <Page title="Test plan">{<ErrorNote error={data.error} />}</Page>;
  if (!data.data) return <Loading what="test plan" />;
  const { plan, project, cases, addable } = data.data;

  const change = async (call: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await call();
      data.reload();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const move = (from: number, to: number) => {
    const ids = [...plan.test_case_ids];
    const [id] = ids.splice(from, 1);
    ids.splice(to, 0, id!);
    return change(() => api().api.PUT('/api/v1/test-plans/{test_plan_id}', { params: { path: { test_plan_id: plan.id } }, body: { test_case_ids: ids } }));
  };
  const add = (e: Event) => {
    e.preventDefault();
    if (!toAdd) return;
    return change(async () => {
      await api().api.POST('/api/v1/test-plans/{test_plan_id}/test-cases', { params: { path: { test_plan_id: plan.id } }, body: { test_case_id: toAdd } });
      setToAdd('');
    });
  };
  const envs = Object.keys(project.environments ?? {});

  return (
    <Page title={plan.name}>
      <p>
        <Link href={`/projects/${project.id}`}>{project.name}</Link>
        {plan.description ? ` · ${plan.description}` : ''}
      </p>
      <h2>Test cases, in run order</h2>
      <ol class="list" aria-label="Test cases of the plan">
        {cases.map((c, i) => (
          <li key={c.id}>
            <Link href={`/cases/${c.id}`}>{c.name}</Link> {c.status === 'archived' ? <span class="muted">(archived: skipped)</span> : null}{' '}
            <button type="button" class="link" aria-label={`Move ${c.name} up`} disabled={i === 0} onClick={() => move(i, i - 1)}>
              Up
            </button>{' '}
            <button type="button" class="link" aria-label={`Move ${c.name} down`} disabled={i === cases.length - 1} onClick={() => move(i, i + 1)}>
              Down
            </button>{' '}
            <button
              type="button"
              class="link danger"
              aria-label={`Remove ${c.name} from the plan`}
              onClick={() => change(() => api().api.DELETE('/api/v1/test-plans/{test_plan_id}/test-cases/{test_case_id}', { params: { path: { test_plan_id: plan.id, test_case_id: c.id } } }))}
            >
              Remove
            </button>
          </li>
        ))}
      </ol>
      {addable.length ? (
        <form class="form inline" aria-label="Add a test case to the plan" onSubmit={add}>
          <Field label="Test case to add" id="plan-add-case">
            {(a) => (
              <select {...a} value={toAdd} onChange={(e) => setToAdd((e.target as HTMLSelectElement).value)}>
                <option value="">Choose a test case</option>
                {addable.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button type="submit" disabled={!toAdd}>
            Add to plan
          </button>
        </form>
      ) : null}
      <ErrorNote error={error} />
      <RunPlanForm plan={plan} project={project} environments={envs} />
      <PlanSchedules planId={plan.id} environments={envs} />
    </Page>
  );
}

/** Runs the plan (queued; the live view follows) in the default or a chosen environment, with variables and a trace mode. */
function RunPlanForm(props: { plan: Schemas['TestPlan']; project: Schemas['Project']; environments: string[] }): JSX.Element {
  const { plan, project, environments: envs } = props;
  const [environment, setEnvironment] = useState('');
  const [variables, setVariables] = useState('');
  const [trace, setTrace] = useState<'off' | 'on' | 'retain-on-failure'>('retain-on-failure');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const run = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setError(undefined);
    const vars: Record<string, string> = {};
    for (const line of variables.split('\n')) {
      const eq = line.indexOf('=');
      if (line.trim() === '') continue;
      if (eq < 1) return setErrors({ variables: `“${line}” is not name=value` });
      vars[line.slice(0, eq).trim()] = line.slice(eq + 1);
    }
    try {
      const queued = (
        await api().api.POST('/api/v1/executions/async', {
          body: { test_plan_id: plan.id, project_id: plan.project_id, trace, ...(environment ? { environment } : {}), ...(Object.keys(vars).length ? { variables: vars } : {}) },
        })
      ).data!;
      navigate(`/executions/${queued.id}`);
    } catch (err) {
      const f = fieldErrors(err);
      setErrors(Object.fromEntries(Object.entries(f).map(([k, v]) => [k.startsWith('variables') ? 'variables' : k, v])));
      setError(errorText(err));
    }
  };
  return (
    <form class="card form" aria-labelledby="run-title" onSubmit={run}>
      <h2 id="run-title">Run this plan</h2>
      <Field label="Environment" id="run-environment" error={errors.environment} hint={`Default: the project’s base URL (${project.base_url})`}>
        {(a) => (
          <select {...a} value={environment} onChange={(e) => setEnvironment((e.target as HTMLSelectElement).value)}>
            <option value="">Default</option>
            {envs.map((k) => (
              <option key={k} value={k}>
                {k} ({project.environments[k]})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Variables" id="run-variables" error={errors.variables} hint="One name=value a line; replaces {{name}} in steps">
        {(a) => <textarea {...a} rows={3} value={variables} onInput={(e) => setVariables((e.target as HTMLTextAreaElement).value)} />}
      </Field>
      <Field label="Trace" id="run-trace" error={errors.trace}>
        {(a) => (
          <select {...a} value={trace} onChange={(e) => setTrace((e.target as HTMLSelectElement).value as typeof trace)}>
            <option value="retain-on-failure">Keep traces of failed cases</option>
            <option value="on">Keep every trace</option>
            <option value="off">No trace</option>
          </select>
        )}
      </Field>
      <ErrorNote error={Object.keys(errors).length ? undefined : error} />
      <button type="submit">Run plan</button>
    </form>
  );
}
