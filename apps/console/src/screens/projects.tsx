import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { Schemas } from '@assay/client';
import { api, errorText, fieldErrors } from '../api';
import { Link, navigate } from '../router';
import { ErrorNote, Field, formatDate, Loading, Page, StatusBadge, useLoad } from '../ui';
import { ProjectEnvironments } from './environments';

export function ProjectList(): JSX.Element {
  const projects = useLoad(async () => (await api().api.GET('/api/v1/projects', { params: { query: { limit: 200 } } })).data!, []);
  const [creating, setCreating] = useState(false);
  return (
    <Page
      title="Projects"
      actions={
        <button type="button" onClick={() => setCreating(!creating)} aria-expanded={creating}>
          New project
        </button>
      }
    >
      {creating ? <ProjectForm onCreated={(p) => navigate(`/projects/${p.id}`)} /> : null}
      <ErrorNote error={projects.error} />
      {projects.loading && !projects.data ? <Loading what="projects" /> : null}
      {projects.data && projects.data.data.length === 0 ? <p class="empty">No projects yet: create one with the base URL of the app you test.</p> : null}
      <ul class="cards">
        {projects.data?.data.map((p) => (
          <li key={p.id} class="card">
            <h2>
              <Link href={`/projects/${p.id}`}>{p.name}</Link>
            </h2>
            <p class="muted">{p.base_url}</p>
            {p.description ? <p>{p.description}</p> : null}
          </li>
        ))}
      </ul>
    </Page>
  );
}

function ProjectForm(props: { onCreated: (p: Schemas['Project']) => void }): JSX.Element {
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  return (
    <form
      class="card form"
      aria-label="New project"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          props.onCreated((await api().api.POST('/api/v1/projects', { body: { name, base_url: baseUrl } })).data!);
        } catch (err) {
          setErrors(fieldErrors(err));
          setError(errorText(err));
        }
      }}
    >
      <Field label="Name" id="project-name" error={errors.name}>
        {(a) => <input {...a} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />}
      </Field>
      <Field label="Base URL" id="project-base-url" error={errors.base_url} hint="Where the app under test runs, e.g. http://localhost:3000">
        {(a) => <input {...a} type="url" value={baseUrl} onInput={(e) => setBaseUrl((e.target as HTMLInputElement).value)} />}
      </Field>
      <ErrorNote error={Object.keys(errors).length ? undefined : error} />
      <button type="submit">Create project</button>
    </form>
  );
}

export function ProjectView(props: { id: string }): JSX.Element {
  const project = useLoad(async () => (await api().api.GET('/api/v1/projects/{project_id}', { params: { path: { project_id: props.id } } })).data!, [props.id]);
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<'active' | 'archived' | 'all'>('active');
  const cases = useLoad(
    async () => (await api().api.GET('/api/v1/test-cases', { params: { query: { project_id: props.id, search: search || undefined, status, limit: 200 } as never } })).data!,
    [props.id, search, status],
  );
  const plans = useLoad(async () => (await api().api.GET('/api/v1/test-plans', { params: { query: { project_id: props.id, limit: 200 } } })).data!, [props.id]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [planName, setPlanName] = useState('');
  const [planError, setPlanError] = useState<string>();

  if (project.error) return <Page title="Project">{<ErrorNote error={project.error} />}</Page>;
  if (!project.data) return <Loading what="project" />;
  const p = project.data;
  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  return (
    <Page
      title={p.name}
      actions={
        <>
          <Link class="button" href={`/cases/new?project=${p.id}`}>
            New test case
          </Link>
          <Link class="button secondary" href={`/projects/${p.id}/record`}>
            Record
          </Link>
          <Link class="button secondary" href={`/dashboard?project=${p.id}`}>
            Dashboard
          </Link>
          <Link class="button secondary" href={`/discovery?project=${p.id}`}>
            Discover
          </Link>
          <Link class="button secondary" href={`/suites?project=${p.id}`}>
            Suites
          </Link>
        </>
      }
    >
      <p class="muted">
        Base URL <code>{p.base_url}</code>
        {Object.keys(p.environments ?? {}).length ? ` · environments: ${Object.keys(p.environments).join(', ')}` : ''}
      </p>

      <section aria-labelledby="cases-title">
        <h2 id="cases-title">Test cases</h2>
        <div class="filters" role="search">
          <label>
            Search
            <input type="search" value={search} placeholder="Name contains…" onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
          </label>
          <Field label="Status" id="cases-status">
            {(a) => (
              <select {...a} value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value as typeof status)}>
                <option value="active">Active</option>
                <option value="archived">Archived</option>
                <option value="all">All</option>
              </select>
            )}
          </Field>
        </div>
        <ErrorNote error={cases.error} />
        {cases.data && cases.data.data.length === 0 ? <p class="empty">No test cases match.</p> : null}
        {cases.data && cases.data.data.length > 0 ? (
          <table class="table">
            <caption class="visually-hidden">Test cases of {p.name}</caption>
            <thead>
              <tr>
                <th scope="col">
                  <span class="visually-hidden">Select</span>
                </th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Steps</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {cases.data.data.map((c) => (
                <tr key={c.id}>
                  <td>
                    <input type="checkbox" aria-label={`Select ${c.name}`} checked={selected.has(c.id)} onChange={() => toggle(c.id)} />
                  </td>
                  <td>
                    <Link href={`/cases/${c.id}`}>{c.name}</Link>
                  </td>
                  <td>
                    <StatusBadge status={c.status} />
                  </td>
                  <td>{c.steps.length}</td>
                  <td>{formatDate(c.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <form
          class="inline-form"
          aria-label="New test plan from the selected cases"
          onSubmit={async (e) => {
            e.preventDefault();
            setPlanError(undefined);
            try {
              const plan = (await api().api.POST('/api/v1/test-plans', { body: { project_id: p.id, name: planName, test_case_ids: [...selected] } })).data!;
              navigate(`/plans/${plan.id}`);
            } catch (err) {
              setPlanError(fieldErrors(err).name ?? errorText(err));
            }
          }}
        >
          <label>
            New plan from {selected.size} selected
            <input value={planName} placeholder="Plan name" onInput={(e) => setPlanName((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit" disabled={selected.size === 0}>
            Create plan
          </button>
          <ErrorNote error={planError} />
        </form>
      </section>

      <ProjectEnvironments project={p} onChanged={project.reload} />

      <section aria-labelledby="plans-title">
        <h2 id="plans-title">Test plans</h2>
        <ErrorNote error={plans.error} />
        {plans.data && plans.data.data.length === 0 ? <p class="empty">No plans yet: select cases above and create one.</p> : null}
        <ul class="list">
          {plans.data?.data.map((tp) => (
            <li key={tp.id}>
              <Link href={`/plans/${tp.id}`}>{tp.name}</Link> <span class="muted">{tp.test_case_ids.length} cases</span>
            </li>
          ))}
        </ul>
      </section>
    </Page>
  );
}
