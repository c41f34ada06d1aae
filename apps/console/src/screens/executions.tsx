import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { TERMINAL_EXECUTION_STATUSES, type ExecutionEvent, type Schemas } from '@assay/client';
import { api, artifactBlob, errorText } from '../api';
import { Link, navigate } from '../router';
import { ArtifactImage, ErrorNote, Field, formatDate, Loading, ms, OutcomeBadge, Page, ProjectSelect, StatusBadge, useLoad, useProjects } from '../ui';
import { FailureAnalysisPanel } from './analysis';

const OUTCOMES: Array<[string, string]> = [
  ['', 'Any'],
  ['failed', 'Failed'],
  ['passed', 'Passed'],
  ['cancelled', 'Cancelled'],
  ['running', 'Running or queued'],
];

export function ExecutionList(): JSX.Element {
  const [outcome, setOutcome] = useState(new URLSearchParams(window.location.search).get('outcome') ?? '');
  const [projectId, setProjectId] = useState(new URLSearchParams(window.location.search).get('project') ?? '');
  const projects = useProjects();
  // The API lists one project's executions at a time: the first project until another is chosen.
  const project = projectId || projects.data?.[0]?.id || '';
  const list = useLoad(
    async () => (project ? (await api().api.GET('/api/v1/executions', { params: { query: { limit: 50, project_id: project, ...(outcome ? { outcome } : {}) } as never } })).data! : { data: [] }),
    [outcome, project],
  );
  return (
    <Page title="Executions">
      <div class="filters" role="search">
        <ProjectSelect id="executions-project" projects={projects.data} value={project} onChange={setProjectId} />
        <Field label="Outcome" id="executions-outcome">
          {(a) => (
            <select {...a} value={outcome} onChange={(e) => setOutcome((e.target as HTMLSelectElement).value)}>
              {OUTCOMES.map(([v, l]) => (
                <option key={v} value={v}>
                  {l}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button type="button" class="secondary" onClick={list.reload}>
          Refresh
        </button>
      </div>
      <ErrorNote error={list.error} />
      {list.data && list.data.data.length === 0 ? <p class="empty">{outcome ? `No ${outcome} runs in this project.` : 'No executions: run a test plan from its page.'}</p> : null}
      {list.data && list.data.data.length > 0 ? (
        <table class="table" aria-label="Executions">
          <thead>
            <tr>
              <th scope="col">Outcome</th>
              <th scope="col">Run</th>
              <th scope="col">Passed</th>
              <th scope="col">Failed</th>
              <th scope="col">Environment</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((x) => (
              <tr key={x.id}>
                <td>
                  <OutcomeBadge outcome={x.outcome} status={x.status} />
                </td>
                <td>
                  <Link href={`/executions/${x.id}`}>{x.name ?? x.test_plan_name ?? x.id.slice(0, 8)}</Link>
                  {x.rerun_of ? <span class="muted"> (re-run)</span> : null}
                </td>
                <td>{x.passed_tests}</td>
                <td>{x.failed_tests}</td>
                <td>{x.environment ?? <span class="muted">default</span>}</td>
                <td>{formatDate(x.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Page>
  );
}

interface LiveStep {
  step_id: string;
  name: string;
  status: string;
  duration_ms?: number;
  error?: string;
  screenshot?: string;
  visual?: Schemas['VisualResult'];
  accessibility?: Schemas['StepResult']['accessibility'];
}

/** A failed screenshot comparison: expected, actual and diff side by side, and Accept as new baseline. */
function VisualDiff(props: { executionId: string; testId: string; step: LiveStep; index: number; testName: string }): JSX.Element {
  const v = props.step.visual!;
  const [accepted, setAccepted] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const where = `step ${props.index + 1} of ${props.testName}`;
  const accept = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api().api.POST('/api/v1/screenshot-baselines', { body: { execution_id: props.executionId, test_id: props.testId, step_id: props.step.step_id } });
      setAccepted('Accepted: the next run compares against this capture.');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const images: Array<[string, string | undefined]> = [
    ['Expected', v.expected_url],
    ['Actual', v.actual_url],
    ['Diff', v.diff_url],
  ];
  return (
    <section class="visual-diff" aria-label={`Screenshot comparison at ${where}`}>
      <p class="muted">
        {((v.diff_ratio ?? 0) * 100).toFixed(2)}% of pixels differ ({v.diff_pixels ?? 0}) · {v.browser} {v.viewport}
        {v.regions?.length ? ` · ${v.regions.length} region${v.regions.length === 1 ? '' : 's'}` : ''}
      </p>
      <div class="visual-images">
        {images.map(([label, url]) =>
          url ? (
            <figure key={label}>
              <figcaption>{label}</figcaption>
              <ArtifactImage url={url} alt={`${label} screenshot at ${where}`} />
            </figure>
          ) : null,
        )}
      </div>
      {accepted ? (
        <p role="status">{accepted}</p>
      ) : (
        <button type="button" disabled={busy || !v.actual_url} onClick={accept}>
          Accept as new baseline<span class="visually-hidden"> for {where}</span>
        </button>
      )}
      <ErrorNote error={error} />
    </section>
  );
}

/** A failed accessibility scan: each violation with its impact, help link and nodes. */
function AccessibilityViolations(props: { step: LiveStep; index: number; testName: string }): JSX.Element {
  const a = props.step.accessibility!;
  return (
    <table class="violations" aria-label={`Accessibility violations at step ${props.index + 1} of ${props.testName}`}>
      <caption>
        {a.violations.length} violation{a.violations.length === 1 ? '' : 's'} of {a.standard} ({a.min_impact} or worse)
      </caption>
      <thead>
        <tr>
          <th scope="col">Rule</th>
          <th scope="col">Impact</th>
          <th scope="col">Nodes</th>
        </tr>
      </thead>
      <tbody>
        {a.violations.map((x) => (
          <tr key={x.rule}>
            <td>
              <a href={x.help_url} target="_blank" rel="noopener noreferrer">
                {x.rule}
              </a>
              <div class="muted">{x.help}</div>
            </td>
            <td>{x.impact ?? 'unknown'}</td>
            <td>
              {x.nodes.map((n) => (
                <code key={n}>{n}</code>
              ))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
interface LiveTest {
  test_id: string;
  name: string;
  status: string;
  duration_ms?: number;
  error?: string;
  screenshot?: string;
  trace?: string;
  steps: LiveStep[];
}

function fromResults(results: { test_results?: Schemas['TestResult'][] } | undefined): LiveTest[] {
  return (results?.test_results ?? []).map((t) => ({ ...t, steps: t.steps.map((s) => ({ ...s })) })) as LiveTest[];
}

/** Applies one stream event to the tests shown. */
function applyEvent(tests: LiveTest[], e: ExecutionEvent): LiveTest[] {
  if (e.event === 'test_started') {
    if (tests.some((t) => t.test_id === e.data.test_id)) return tests;
    return [...tests, { test_id: e.data.test_id, name: e.data.name, status: 'running', steps: [] }];
  }
  if (e.event === 'step_finished') {
    return tests.map((t) =>
      t.test_id !== e.data.test_id || t.steps.some((s) => s.step_id === e.data.step_id)
        ? t
        : { ...t, steps: [...t.steps, { step_id: e.data.step_id, name: e.data.name, status: e.data.status, duration_ms: e.data.duration_ms, ...(e.data.error ? { error: e.data.error } : {}) }] },
    );
  }
  if (e.event === 'test_finished') {
    const known = tests.some((t) => t.test_id === e.data.test_id);
    const base = known ? tests : [...tests, { test_id: e.data.test_id, name: e.data.name, status: 'running', steps: [] }];
    return base.map((t) => (t.test_id === e.data.test_id ? { ...t, ...e.data, steps: t.steps } : t));
  }
  return tests;
}

/** Opens Playwright's trace viewer (served by this gateway at /trace/) and hands it the trace, fetched with the session. */
async function openTrace(url: string): Promise<void> {
  const viewer = window.open('/trace/index.html', '_blank');
  if (!viewer) throw new Error('The browser blocked the trace viewer window: allow pop-ups for this site');
  const blob = await artifactBlob(url);
  await new Promise<void>((resolve) => {
    const onMessage = (m: MessageEvent) => {
      if (m.source !== viewer || (m.data as { method?: string })?.method !== 'ready') return;
      window.removeEventListener('message', onMessage);
      viewer.postMessage({ method: 'load', params: { trace: blob } }, window.location.origin);
      resolve();
    };
    window.addEventListener('message', onMessage);
  });
}

export function ExecutionView(props: { id: string }): JSX.Element {
  const [execution, setExecution] = useState<Schemas['Execution']>();
  const [tests, setTests] = useState<LiveTest[]>([]);
  const [status, setStatus] = useState<string>('');
  const [error, setError] = useState<string>();
  const [live, setLive] = useState(false);

  useEffect(() => {
    const abort = new AbortController();
    const load = async () => {
      const x = (await api().api.GET('/api/v1/executions/{execution_id}', { params: { path: { execution_id: props.id } } })).data!;
      setExecution(x);
      setStatus(x.status);
      setTests(fromResults(x.results));
      return x;
    };
    (async () => {
      try {
        const x = await load();
        if (TERMINAL_EXECUTION_STATUSES.has(x.status)) return;
        setLive(true);
        setTests([]);
        const ended = await api().followExecution(props.id, {
          signal: abort.signal,
          onEvent: (e) => {
            if (e.event === 'status' || e.event === 'completed') setStatus(e.data.status);
            setTests((t) => applyEvent(t, e));
          },
        });
        setLive(false);
        if (ended.finished) {
          setExecution(ended.execution);
          setStatus(ended.execution.status);
          setTests(fromResults(ended.execution.results));
        }
      } catch (err) {
        if (!abort.signal.aborted) setError(errorText(err));
      }
    })();
    return () => abort.abort();
  }, [props.id]);

  if (error && !execution) return <Page title="Execution">{<ErrorNote error={error} />}</Page>;
  if (!execution) return <Loading what="execution" />;
  const passed = tests.filter((t) => t.status === 'passed').length;
  const failed = tests.filter((t) => t.status === 'failed').length;
  const ended = TERMINAL_EXECUTION_STATUSES.has(status);
  // The outcome arrives with the execution once it ended; the live counts tell it a moment earlier.
  const outcome = ended ? (execution.outcome ?? (status === 'cancelled' ? 'cancelled' : status === 'failed' || failed > 0 || passed < (execution.total_tests || tests.length) ? 'failed' : 'passed')) : null;
  const title = execution.kind === 'run' ? `Run of ${execution.name ?? 'a test case'}` : `Run of ${execution.test_plan_name ?? 'a plan'}`;
  const rerun = async () => {
    try {
      const queued = (await api().api.POST('/api/v1/executions/{execution_id}/rerun', { params: { path: { execution_id: props.id } }, body: {} })).data!;
      navigate(`/executions/${queued.id}`);
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <Page
      title={title}
      actions={
        !ended ? (
          <button
            type="button"
            class="secondary danger"
            onClick={async () => {
              try {
                await api().api.DELETE('/api/v1/executions/{execution_id}', { params: { path: { execution_id: props.id } } });
              } catch (err) {
                setError(errorText(err));
              }
            }}
          >
            Cancel run
          </button>
        ) : outcome !== 'passed' && (execution.kind === 'plan' || execution.test_case_id) ? (
          <button type="button" onClick={rerun}>
            {execution.kind === 'plan' ? 'Re-run failed cases' : 'Run again'}
          </button>
        ) : undefined
      }
    >
      <p class="summary" aria-live="polite" data-testid="execution-summary">
        <OutcomeBadge outcome={outcome} status={status} /> {live && !ended ? <span class="live-dot">live</span> : null} {passed} passed · {failed} failed · {execution.total_tests || tests.length} tests
        {execution.duration_seconds ? ` · ${execution.duration_seconds} s` : ''}
      </p>
      <p class="muted">
        {execution.kind === 'plan' ? (
          <>
            Plan <Link href={`/plans/${execution.test_plan_id}`}>{execution.test_plan_name ?? 'the plan'}</Link>
          </>
        ) : execution.test_case_id ? (
          <>
            Test case <Link href={`/cases/${execution.test_case_id}`}>{execution.name}</Link>
          </>
        ) : (
          'Exploratory run'
        )}{' '}
        · project <Link href={`/projects/${execution.project_id}`}>{execution.project_name ?? 'the project'}</Link> · {execution.environment ?? 'default environment'} · started {formatDate(execution.created_at)}
        {execution.rerun_of ? (
          <>
            {' '}
            · re-run of <Link href={`/executions/${execution.rerun_of}`}>an earlier run</Link>
          </>
        ) : null}
      </p>
      <ErrorNote error={error} />
      {(execution as { error?: string }).error ? <ErrorNote error={(execution as { error?: string }).error} /> : null}
      <ol class="tests">
        {tests.map((t) => (
          <TestResult key={t.test_id} test={t} executionId={props.id} ended={ended} onError={setError} />
        ))}
      </ol>
      {ended && (execution.failed_tests > 0 || failed > 0) ? <FailureAnalysisPanel executionId={props.id} /> : null}
    </Page>
  );
}

/** One test of a run: its steps with their status, errors, screenshots or visual diff and accessibility violations, and its trace. */
function TestResult(props: { test: LiveTest; executionId: string; ended: boolean; onError: (error: string) => void }): JSX.Element {
  const { test: t, ended } = props;
  return (
    <li class={`test test-${t.status}`}>
      <h2>
        <StatusBadge status={t.status} /> <Link href={`/cases/${t.test_id}`}>{t.name}</Link> <span class="muted">{ms(t.duration_ms)}</span>
      </h2>
      <ol class="step-results" aria-label={`Steps of ${t.name}`}>
        {t.steps.map((s, i) => (
          <li key={s.step_id} class={`step step-${s.status}`} aria-current={s.status === 'failed' ? 'step' : undefined}>
            <span class="step-icon" aria-hidden="true">
              {s.status === 'passed' ? '✓' : s.status === 'failed' ? '✗' : '–'}
            </span>
            <span class="visually-hidden">{s.status}: </span>
            <span>
              {i + 1}. {s.name}
            </span>
            <span class="muted">{ms(s.duration_ms)}</span>
            {s.error ? (
              <p class="error-note" role="note">
                {s.error}
              </p>
            ) : null}
            {s.visual?.result === 'mismatch' && ended ? (
              <VisualDiff executionId={props.executionId} testId={t.test_id} step={s} index={i} testName={t.name} />
            ) : s.screenshot ? (
              <ArtifactImage url={s.screenshot} alt={`Screenshot at step ${i + 1} of ${t.name}`} />
            ) : null}
            {s.accessibility?.violations.length ? <AccessibilityViolations step={s} index={i} testName={t.name} /> : null}
          </li>
        ))}
      </ol>
      {t.error && !t.steps.some((s) => s.error) ? <p class="error-note">{t.error}</p> : null}
      {t.screenshot && !t.steps.some((s) => s.screenshot) ? <ArtifactImage url={t.screenshot} alt={`Screenshot of ${t.name} at the failure`} /> : null}
      {t.trace ? (
        <button type="button" class="secondary" onClick={() => openTrace(t.trace!).catch((err) => props.onError(errorText(err)))}>
          Open trace of {t.name}
        </button>
      ) : null}
    </li>
  );
}
