import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '@assay/client';
import { api, errorText } from '../api';
import { Link, navigate } from '../router';
import { ArtifactImage, ErrorNote, Loading } from '../ui';

type Analysis = Schemas['FailureAnalysis'];
type Item = Schemas['FailureAnalysisItem'];
interface Candidate {
  rank?: number;
  score?: number;
  tag?: string;
  text?: string;
  selector_hint?: string | null;
}

/** The failure analysis of an ended execution; polls while the analysis service produces it (202). */
export function FailureAnalysisPanel(props: { executionId: string }): JSX.Element {
  const [analysis, setAnalysis] = useState<Analysis>();
  const [error, setError] = useState<string>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const r = await api().api.GET('/api/v1/executions/{execution_id}/failure-analysis', { params: { path: { execution_id: props.executionId } } });
        if (!live) return;
        setAnalysis(r.data);
        if (r.response.status === 202) timer = setTimeout(poll, 1500);
      } catch (err) {
        if (live) setError(errorText(err));
      }
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [props.executionId, tick]);

  return (
    <section class="analysis" aria-labelledby="analysis-title">
      <h2 id="analysis-title">Failure analysis</h2>
      <ErrorNote error={error} />
      {!analysis ? <Loading what="analysis" /> : null}
      {analysis && analysis.status && analysis.status !== 'completed' ? (
        <p role="status" class="muted">
          Analysis {analysis.status}… {analysis.message ?? ''}
        </p>
      ) : null}
      {analysis?.analysis.map((item) => (
        <AnalysisItem key={item.test_id} executionId={props.executionId} item={item} onChanged={() => setTick((n) => n + 1)} />
      ))}
    </section>
  );
}

/** One test's analysis: category, evidence, candidates, fix suggestions, screenshot, Apply fix / Reject while offered. */
export function AnalysisItem(props: { executionId: string; item: Item; onChanged: () => void }): JSX.Element {
  const { item } = props;
  const [applied, setApplied] = useState<Schemas['FailureAnalysisApplied']>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const evidence = item.evidence as Evidence;
  const canApply = item.suggestion_state === 'offered' && Boolean(evidence.suggested_alternative);
  const path = { params: { path: { execution_id: props.executionId, test_id: item.test_id } } };
  return (
    <article class="card analysis-item" aria-label={`Analysis of ${item.test_name}`}>
      <h3>{item.test_name}</h3>
      <p class="what-changed" data-testid="analysis-summary">
        <strong>What changed:</strong> {item.summary ?? item.description}
      </p>
      {item.next_step ?? item.fix_suggestions[0] ? (
        <p class="what-to-do" data-testid="analysis-next-step">
          <strong>What to do:</strong> {item.next_step ?? item.fix_suggestions[0]}
        </p>
      ) : null}
      <AnalysisEvidence item={item} />
      {evidence.screenshot ? <ArtifactImage url={evidence.screenshot} alt={`Page at the failure of ${item.test_name}`} /> : null}
      <ErrorNote error={error} />
      {applied ? (
        <AppliedFix applied={applied} executionId={props.executionId} testId={item.test_id} onError={setError} />
      ) : item.suggestion_state === 'applied' ? (
        <p class="muted">This fix was applied {item.applied_at ? new Date(item.applied_at).toLocaleString() : ''}.</p>
      ) : item.suggestion_state === 'rejected' ? (
        <p class="muted">This suggestion was rejected.</p>
      ) : canApply ? (
        <div class="row">
          <button
            type="button"
            disabled={busy}
            onClick={async () => {
              setBusy(true);
              setError(undefined);
              try {
                setApplied((await api().api.POST('/api/v1/executions/{execution_id}/failure-analysis/{test_id}/apply', path)).data!);
              } catch (err) {
                setError(errorText(err));
              } finally {
                setBusy(false);
              }
            }}
          >
            Apply fix
          </button>
          <button
            type="button"
            class="secondary"
            disabled={busy}
            onClick={async () => {
              try {
                await api().api.POST('/api/v1/executions/{execution_id}/failure-analysis/{test_id}/reject', { ...path, body: {} });
                props.onChanged();
              } catch (err) {
                setError(errorText(err));
              }
            }}
          >
            Reject
          </button>
        </div>
      ) : null}
    </article>
  );
}

type Evidence = Item['evidence'] & { candidates?: Candidate[]; error?: string; page_url?: string };

/** Why the analysis says what it says: category, confidence, triage, the failing and suggested selectors, candidates, fixes, the error. */
function AnalysisEvidence({ item }: { item: Item }): JSX.Element {
  const evidence = item.evidence as Evidence;
  return (
    <details class="evidence">
      <summary>Evidence</summary>
      <dl class="facts">
        <dt>Category</dt>
        <dd data-testid="analysis-category">{item.failure_category.replace(/_/g, ' ')}</dd>
        <dt>Confidence</dt>
        <dd>{Math.round(item.confidence * 100)} %</dd>
        {item.triage_type ? (
          <>
            <dt>Triage</dt>
            <dd>{item.triage_type.replace(/_/g, ' ')}</dd>
          </>
        ) : null}
        {evidence.expected_selector ? (
          <>
            <dt>Failing selector</dt>
            <dd>
              <code>{evidence.expected_selector}</code>
            </dd>
          </>
        ) : null}
        {evidence.suggested_alternative ? (
          <>
            <dt>Suggested selector</dt>
            <dd>
              <code data-testid="suggested-selector">{evidence.suggested_alternative}</code> <span class="muted">(verified against the failure’s page and by a re-run)</span>
            </dd>
          </>
        ) : null}
      </dl>
      <p>{item.description}</p>
      {evidence.candidates?.length ? (
        <table class="table compact">
          <caption>Candidate elements</caption>
          <thead>
            <tr>
              <th scope="col">Rank</th>
              <th scope="col">Element</th>
              <th scope="col">Selector</th>
              <th scope="col">Score</th>
            </tr>
          </thead>
          <tbody>
            {evidence.candidates.map((c, i) => (
              <tr key={i}>
                <td>{c.rank ?? i + 1}</td>
                <td>
                  {c.tag ? `<${c.tag}>` : ''} {c.text ?? ''}
                </td>
                <td>
                  <code>{c.selector_hint ?? '—'}</code>
                </td>
                <td>{c.score !== undefined ? c.score.toFixed(2) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {item.fix_suggestions.length ? (
        <ul class="fixes" aria-label="Fix suggestions">
          {item.fix_suggestions.map((f, i) => (
            <li key={i}>{f}</li>
          ))}
        </ul>
      ) : null}
      {evidence.error ? (
        <p>
          <span class="muted">Error:</span> <code>{evidence.error}</code>
        </p>
      ) : null}
    </details>
  );
}

/** A fix just applied: what it replaced, **Re-run now** (the failed cases again, followed live), the updated steps. */
function AppliedFix(props: { applied: Schemas['FailureAnalysisApplied']; executionId: string; testId: string; onError: (error: string | undefined) => void }): JSX.Element {
  const { applied } = props;
  const setError = props.onError;
  return (
    <div class="applied" role="status">
      <p>
        Fix applied: <code>{applied.replaced}</code> → <code>{applied.selector}</code> in {applied.step_ids.length} step(s).{' '}
        <Link href={`/cases/${props.testId}`}>Open the updated test case</Link>
      </p>
      <p>
        <button
          type="button"
          onClick={async () => {
            setError(undefined);
            try {
              // The failed cases of this run again, with the fixed steps: the live view follows.
              const queued = (await api().api.POST('/api/v1/executions/{execution_id}/rerun', { params: { path: { execution_id: props.executionId } }, body: {} })).data!;
              navigate(`/executions/${queued.id}`);
            } catch (err) {
              setError(errorText(err));
            }
          }}
        >
          Re-run now
        </button>
      </p>
      {applied.test_case ? (
        <ol class="steps" aria-label="Updated steps">
          {((applied.test_case as { steps?: Array<{ step_id: string; action: string; selector?: string; value?: string }> }).steps ?? []).map((s) => (
            <li key={s.step_id}>
              <code class="action">{s.action}</code> {s.selector ? <code>{s.selector}</code> : null} {s.value ? `“${s.value}”` : null}
            </li>
          ))}
        </ol>
      ) : null}
    </div>
  );
}
