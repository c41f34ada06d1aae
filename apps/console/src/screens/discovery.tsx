import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { TERMINAL_DISCOVERY_STATUSES, type Schemas } from '@assay/client';
import { api, errorText, fieldErrors } from '../api';
import { Link, navigate, useLocation } from '../router';
import { ErrorNote, Field, formatDate, Loading, Page, ProjectSelect, StatusBadge, useLoad, useProjects } from '../ui';

const SESSIONS_PAGE = 20;

/** The project's sessions from `GET /api/v1/discovery`, newest first, a page at a time. */
function SessionList(props: { projectId: string }): JSX.Element {
  const [offset, setOffset] = useState(0);
  useEffect(() => setOffset(0), [props.projectId]);
  const sessions = useLoad(
    async () => (props.projectId ? (await api().api.GET('/api/v1/discovery', { params: { query: { project_id: props.projectId, limit: SESSIONS_PAGE, offset } } })).data! : undefined),
    [props.projectId, offset],
  );
  const list = sessions.data?.data ?? [];
  const total = sessions.data?.pagination.total ?? 0;
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">
        Sessions of the project{' '}
        <button type="button" class="secondary" onClick={sessions.reload}>
          Refresh
        </button>
      </h2>
      <ErrorNote error={sessions.error} />
      {sessions.data && total === 0 ? <p class="empty">No crawl of this project yet.</p> : null}
      {list.length ? (
        <table class="table" aria-label="Discovery sessions">
          <thead>
            <tr>
              <th scope="col">Target</th>
              <th scope="col">Status</th>
              <th scope="col">Pages</th>
              <th scope="col">Flows</th>
              <th scope="col">Started</th>
              <th scope="col">Ended</th>
            </tr>
          </thead>
          <tbody>
            {list.map((s) => (
              <tr key={s.session_id}>
                <td>
                  <Link href={`/discovery/${s.session_id}`}>{s.target_url}</Link> <span class="muted">{s.session_id.slice(0, 8)}</span>
                  {s.error ? <p class="field-error">{s.error}</p> : null}
                </td>
                <td>
                  <StatusBadge status={s.status} />
                </td>
                <td>{s.pages_crawled}</td>
                <td>{s.flows_detected}</td>
                <td>{formatDate(s.started_at)}</td>
                <td>{formatDate(s.completed_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {total > SESSIONS_PAGE ? (
        <div class="row">
          <button type="button" class="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - SESSIONS_PAGE))}>
            Newer
          </button>
          <span>
            {offset + 1}–{Math.min(total, offset + SESSIONS_PAGE)} of {total}
          </span>
          <button type="button" class="secondary" disabled={offset + SESSIONS_PAGE >= total} onClick={() => setOffset(offset + SESSIONS_PAGE)}>
            Older
          </button>
        </div>
      ) : null}
    </section>
  );
}

export function DiscoveryList(): JSX.Element {
  const { query } = useLocation();
  const projects = useProjects();
  const [projectId, setProjectId] = useState(query.get('project') ?? '');
  const [target, setTarget] = useState('');
  const [maxPages, setMaxPages] = useState('20');
  const [maxDepth, setMaxDepth] = useState('3');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  useEffect(() => {
    const p = projects.data?.find((x) => x.id === projectId) ?? (projectId ? undefined : projects.data?.[0]);
    // Functional updates: a project chosen while this effect was pending (the list had just rendered) stays chosen.
    if (p) setProjectId((chosen) => chosen || p.id);
    if (p) setTarget((typed) => typed || p.base_url);
  }, [projects.data, projectId]);
  return (
    <Page title="Discovery">
      <p class="muted">Crawl your app in Chromium: its pages, the flows through them (sign-in, search, checkout, forms) and the API calls it makes; then turn flows into test cases.</p>
      <form
        class="card form"
        aria-label="Start a crawl"
        onSubmit={async (e) => {
          e.preventDefault();
          setErrors({});
          setError(undefined);
          try {
            const s = (await api().api.POST('/api/v1/discovery/start', { body: { project_id: projectId, target_url: target, max_pages: Number(maxPages), max_depth: Number(maxDepth) } })).data!;
            navigate(`/discovery/${s.session_id}`);
          } catch (err) {
            setErrors(fieldErrors(err));
            setError(errorText(err));
          }
        }}
      >
        <ProjectSelect id="discovery-project" projects={projects.data} value={projectId} onChange={setProjectId} error={errors.project_id} />
        <Field label="Target URL" id="discovery-target" error={errors.target_url}>
          {(a) => <input {...a} type="url" value={target} onInput={(e) => setTarget((e.target as HTMLInputElement).value)} />}
        </Field>
        <div class="row">
          <Field label="Max pages" id="discovery-max-pages" error={errors.max_pages}>
            {(a) => <input {...a} inputMode="numeric" value={maxPages} onInput={(e) => setMaxPages((e.target as HTMLInputElement).value)} />}
          </Field>
          <Field label="Max depth" id="discovery-max-depth" error={errors.max_depth}>
            {(a) => <input {...a} inputMode="numeric" value={maxDepth} onInput={(e) => setMaxDepth((e.target as HTMLInputElement).value)} />}
          </Field>
        </div>
        <ErrorNote error={Object.keys(errors).length ? undefined : error} />
        <button type="submit" disabled={!projectId}>
          Start crawl
        </button>
      </form>
      <SessionList projectId={projectId} />
    </Page>
  );
}

type Flow = Schemas['DiscoveryResults']['flows'][number];
type Warning = NonNullable<Schemas['DiscoveryResults']['warnings']>[number];

const FLOW_TITLES: Record<string, string> = {
  authentication: 'Sign in',
  search: 'Search',
  checkout: 'Checkout',
  crud: 'Records',
  navigation: 'Navigation',
  form_submission: 'Form',
};

/** A URL as a path of the crawled origin (`/login`), or as it is elsewhere. */
const pathOf = (url: string, origin: string) => (url.startsWith(origin) ? url.slice(origin.length) || '/' : url);

/** A flow step in words: what the generated case will do there. */
function stepText(s: NonNullable<Flow['steps']>[number], origin: string): string {
  const at = s.url ? pathOf(s.url, origin) : '';
  switch (s.action) {
    case 'navigate':
      return `Open ${at}`;
    case 'click':
      return `Click ${s.selector}${at ? ` (to ${at})` : ''}`;
    case 'fill_form':
      return `Fill ${s.selector} with "${s.value ?? ''}"`;
    case 'submit':
      return `Submit with ${s.selector}`;
    case 'type':
      return `Type "${s.value ?? ''}" into ${s.selector}`;
    case 'wait_for':
      return `Wait until ${s.selector} shows${s.value ? ` "${s.value}"` : ''}`;
    default:
      return `${s.action} ${s.selector ?? s.url ?? ''}`;
  }
}

/** One flow: a labelled checkbox beside its name, and a preview of its pages and steps. */
function FlowItem(props: { flow: Flow; origin: string; checked: boolean; onToggle: () => void }): JSX.Element {
  const { flow: f, origin } = props;
  const id = `flow-${f.flow_id}`;
  const title = f.name ?? `${FLOW_TITLES[f.type] ?? f.type} on ${pathOf(f.pages[0] ?? '', origin)}`;
  return (
    <li class="flow">
      <div class="flow-head">
        <input type="checkbox" id={id} checked={props.checked} onChange={props.onToggle} />
        <label for={id}>
          <strong>{title}</strong> <span class="muted">{f.type.replace(/_/g, ' ')}</span>
          {typeof f.confidence === 'number' ? <span class="muted"> · confidence {Math.round(f.confidence * 100)}%</span> : null}
        </label>
      </div>
      {f.evidence?.length ? <p class="muted flow-evidence">{f.evidence.join('; ')}</p> : null}
      <details>
        <summary>Preview: {f.pages.length} page(s), {f.steps?.length ?? 0} step(s)</summary>
        <p>Pages: {f.pages.map((u) => pathOf(u, origin)).join(' → ')}</p>
        <ol class="steps">
          {(f.steps ?? []).map((s, i) => (
            <li key={i}>{stepText(s, origin)}</li>
          ))}
        </ol>
      </details>
    </li>
  );
}

interface TreeNode {
  name: string;
  url?: string;
  title?: string;
  children: Map<string, TreeNode>;
}

/** Pages as a tree of their URL paths. */
function buildTree(urls: Array<{ url: string; title: string }>): TreeNode {
  const root: TreeNode = { name: '/', children: new Map() };
  for (const p of urls) {
    let u: URL;
    try {
      u = new URL(p.url);
    } catch {
      continue;
    }
    const parts = u.pathname.split('/').filter(Boolean);
    let node = root;
    for (const part of parts) {
      if (!node.children.has(part)) node.children.set(part, { name: part, children: new Map() });
      node = node.children.get(part)!;
    }
    const tail = u.search ? `${u.search}` : '';
    if (tail) {
      if (!node.children.has(tail)) node.children.set(tail, { name: tail, children: new Map() });
      node = node.children.get(tail)!;
    }
    node.url = p.url;
    node.title = p.title;
  }
  return root;
}

function Tree(props: { node: TreeNode; highlighted: Set<string> }): JSX.Element {
  const { node } = props;
  const on = node.url !== undefined && props.highlighted.has(node.url);
  return (
    <li role="treeitem" aria-expanded={node.children.size ? true : undefined} aria-selected={on} class={on ? 'in-flow' : ''}>
      <span>
        {node.name} {node.title ? <span class="muted">{node.title}</span> : null}
      </span>
      {node.children.size ? (
        <ul role="group">
          {[...node.children.values()].map((c) => (
            <Tree key={c.name} node={c} highlighted={props.highlighted} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/** A session as it goes: its progress, the pages, flows and warnings as its stream reports them, and its results once it ends. */
function useDiscoverySession(id: string) {
  const [progress, setProgress] = useState<Schemas['DiscoveryProgress']>();
  const [pages, setPages] = useState<Array<{ url: string; title: string; status_code?: number }>>([]);
  const [flows, setFlows] = useState<Flow[]>([]);
  const [warnings, setWarnings] = useState<Warning[]>([]);
  const [results, setResults] = useState<Schemas['DiscoveryResults']>();
  const [error, setError] = useState<string>();
  const [live, setLive] = useState(false);

  useEffect(() => {
    const abort = new AbortController();
    const path = { params: { path: { session_id: id } } };
    (async () => {
      try {
        const p = (await api().api.GET('/api/v1/discovery/{session_id}/progress', path)).data!;
        setProgress(p);
        setWarnings(p.warnings ?? []);
        if (!TERMINAL_DISCOVERY_STATUSES.has(p.status)) {
          setLive(true);
          await api().followDiscovery(id, {
            signal: abort.signal,
            onEvent: (e) => {
              if (e.event === 'page_discovered') setPages((x) => (x.some((y) => y.url === e.data.url) ? x : [...x, e.data]));
              if (e.event === 'flow_detected') setFlows((x) => (x.some((y) => y.flow_id === e.data.flow_id) ? x : [...x, e.data]));
              if (e.event === 'warning') setWarnings((x) => [...x.filter((w) => w.code !== e.data.code), e.data as Warning]);
            },
          });
          setLive(false);
        }
        const [r, p2] = await Promise.all([api().api.GET('/api/v1/discovery/{session_id}/results', path), api().api.GET('/api/v1/discovery/{session_id}/progress', path)]);
        setResults(r.data!);
        setProgress(p2.data!);
        setPages(r.data!.pages);
        setFlows(r.data!.flows as Flow[]);
        setWarnings(r.data!.warnings ?? []);
      } catch (err) {
        if (!abort.signal.aborted) setError(errorText(err));
      }
    })();
    return () => abort.abort();
  }, [id]);
  return { progress, setProgress, pages, flows, warnings, results, setResults, error, setError, live };
}

/** The warnings that say why a crawl's results may be incomplete, with example pages. */
function DiscoveryWarnings(props: { warnings: Warning[]; origin: string }): JSX.Element | null {
  if (!props.warnings.length) return null;
  return (
    <section aria-labelledby="warnings-title" class="warnings" role="note">
      <h2 id="warnings-title">Why the results may be incomplete</h2>
      <ul>
        {props.warnings.map((w) => (
          <li key={w.code}>
            {w.message}
            {w.pages.length ? <span class="muted"> For example: {w.pages.map((u) => pathOf(u, props.origin)).join(', ')}</span> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function DiscoveryView(props: { id: string }): JSX.Element {
  const { progress, setProgress, pages, flows, warnings, results, setResults, error, setError, live } = useDiscoverySession(props.id);
  const [selected, setSelected] = useState<Set<string>>(new Set());

  if (!progress) return error ? <Page title="Discovery">{<ErrorNote error={error} />}</Page> : <Loading what="discovery session" />;
  const highlighted = new Set(flows.filter((f) => selected.has(f.flow_id)).flatMap((f) => f.pages));
  const status = results?.status ?? progress.status;
  const control = async (action: 'pause' | 'resume' | 'cancel') => {
    const path = { params: { path: { session_id: props.id } } };
    try {
      if (action === 'pause') await api().api.POST('/api/v1/discovery/{session_id}/pause', path);
      else if (action === 'resume') await api().api.POST('/api/v1/discovery/{session_id}/resume', path);
      else await api().api.DELETE('/api/v1/discovery/{session_id}', path);
      setProgress((await api().api.GET('/api/v1/discovery/{session_id}/progress', path)).data!);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <Page
      title={`Discovery of ${progress.target_url}`}
      actions={
        !TERMINAL_DISCOVERY_STATUSES.has(status) ? (
          <>
            {status === 'paused' ? (
              <button type="button" class="secondary" onClick={() => control('resume')}>
                Resume
              </button>
            ) : (
              <button type="button" class="secondary" onClick={() => control('pause')}>
                Pause
              </button>
            )}
            <button type="button" class="secondary danger" onClick={() => control('cancel')}>
              Cancel
            </button>
          </>
        ) : undefined
      }
    >
      <p class="summary" aria-live="polite" data-testid="discovery-summary">
        <StatusBadge status={status} /> {live ? <span class="live-dot">live</span> : null} {pages.length} pages · {flows.length} flows
        {results ? ` · ${results.summary.ui_patterns} UI patterns · ${results.summary.api_endpoints} API endpoints` : ''} · <Link href={`/projects/${progress.project_id}`}>project</Link>
      </p>
      <ErrorNote error={error ?? progress.error} />
      <DiscoveryWarnings warnings={warnings} origin={new URL(progress.target_url).origin} />
      <div class="two-col">
        <section aria-labelledby="pages-title">
          <h2 id="pages-title">Pages</h2>
          <ul role="tree" aria-label="Pages by path" class="tree">
            <Tree node={buildTree(pages)} highlighted={highlighted} />
          </ul>
        </section>
        <section aria-labelledby="flows-title">
          <h2 id="flows-title">Flows</h2>
          {flows.length === 0 ? <p class="empty">No flows detected yet.</p> : null}
          <ul class="flows" aria-label="Detected flows">
            {flows.map((f) => (
              <FlowItem
                key={f.flow_id}
                flow={f}
                origin={new URL(progress.target_url).origin}
                checked={selected.has(f.flow_id)}
                onToggle={() => {
                  const next = new Set(selected);
                  if (next.has(f.flow_id)) next.delete(f.flow_id);
                  else next.add(f.flow_id);
                  setSelected(next);
                }}
              />
            ))}
          </ul>
          {status === 'completed' && flows.length ? (
            <button
              type="button"
              onClick={async () => {
                setError(undefined);
                try {
                  const body = selected.size ? { flow_ids: [...selected] } : {};
                  await api().api.POST('/api/v1/discovery/{session_id}/generate-test-cases', { params: { path: { session_id: props.id } }, body });
                  setResults((await api().api.GET('/api/v1/discovery/{session_id}/results', { params: { path: { session_id: props.id } } })).data!);
                } catch (err) {
                  setError(errorText(err));
                }
              }}
            >
              Generate test cases {selected.size ? `from ${selected.size} selected flow(s)` : 'from every flow'}
            </button>
          ) : null}
          {results?.generated_test_cases?.length ? (
            <section aria-labelledby="generated-title" class="applied">
              <h3 id="generated-title">Test cases made from this session</h3>
              <ul>
                {results.generated_test_cases.map((c) => (
                  <li key={c.test_case_id}>
                    <Link href={`/cases/${c.test_case_id}`}>{c.name}</Link> <span class="muted">{formatDate(c.created_at)}</span>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
        </section>
      </div>
    </Page>
  );
}
