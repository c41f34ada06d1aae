import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { Schemas } from '@assay/client';
import { ISSUE_STATUSES } from '@assay/contracts/catalogues';
import { api, errorText } from '../api';
import { Link } from '../router';
import { ErrorNote, formatDate, Loading, Page, StatusBadge, useLoad } from '../ui';
import { AnalysisItem } from './analysis';

interface Difference {
  property: string;
  before: unknown;
  after: unknown;
}

const shown = (v: unknown): string => (v === null || v === undefined ? '—' : Array.isArray(v) ? v.join(' ') : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** `/issues/{id}`: what `GET /api/v1/issues/{id}` answers: the issue, its occurrences (newest first) and the latest analysis with its evidence; triage here too. */
export function IssueView(props: { id: string }): JSX.Element {
  const issue = useLoad(async () => (await api().api.GET('/api/v1/issues/{issue_id}', { params: { path: { issue_id: props.id } } })).data!, [props.id]);
  const [error, setError] = useState<string>();
  if (issue.error) return <Page title="Issue">{<ErrorNote error={issue.error} />}</Page>;
  if (!issue.data) return <Loading what="issue" />;
  const i: Schemas['IssueDetail'] = issue.data;
  const analysis = i.latest_analysis;
  // The item names its execution (the list's schema does not promise it): the last occurrence's otherwise.
  const analysisExecution = (analysis as { execution_id?: string } | null)?.execution_id ?? i.last_execution_id;
  const diff = ((analysis?.evidence as { diff?: Difference[] } | undefined)?.diff ?? []).filter((d) => d && typeof d.property === 'string');

  return (
    <Page title={`Issue: ${i.test_name}`}>
      <p>
        <Link href="/issues">All issues</Link> · <Link href={`/cases/${i.test_case_id}`}>test case {i.test_name}</Link>
      </p>
      <p class="issue-title">{i.title}</p>
      <ErrorNote error={error} />
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <select
            aria-label="Triage state"
            value={i.status}
            onChange={async (e) => {
              setError(undefined);
              try {
                await api().api.PATCH('/api/v1/issues/{issue_id}', { params: { path: { issue_id: i.id } }, body: { status: (e.target as HTMLSelectElement).value as (typeof ISSUE_STATUSES)[number] } });
                issue.reload();
              } catch (err) {
                setError(errorText(err));
              }
            }}
          >
            {ISSUE_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>{' '}
          {i.resolved_at ? <span class="muted">resolved {formatDate(i.resolved_at)}</span> : null}
        </dd>
        <dt>Category</dt>
        <dd>
          <StatusBadge status={i.category} /> <span data-testid="issue-category">{i.category.replace(/_/g, ' ')}</span>
        </dd>
        <dt>Triage type</dt>
        <dd>{i.triage_type.replace(/_/g, ' ')}</dd>
        {i.step ? (
          <>
            <dt>Step</dt>
            <dd>
              {i.step.index !== null && i.step.index !== undefined ? `Step ${i.step.index}` : 'A step'}
              {i.step.description ? (
                <>
                  : <code>{i.step.description}</code>
                </>
              ) : null}
            </dd>
          </>
        ) : null}
        {i.normalized_error ? (
          <>
            <dt>Error pattern</dt>
            <dd>
              <code>{i.normalized_error}</code> <span class="muted">(the error with what varies between occurrences taken out: how failures are grouped)</span>
            </dd>
          </>
        ) : null}
        <dt>Seen</dt>
        <dd data-testid="issue-seen">
          {i.occurrence_count}× · first {formatDate(i.first_seen)} · last {formatDate(i.last_seen)}
          {i.reopened_count ? ` · reopened ${i.reopened_count}×` : ''}
        </dd>
        {i.flakiness ? (
          <>
            <dt>Flakiness</dt>
            <dd>
              {i.flakiness.passed} passed, {i.flakiness.failed} failed in {i.flakiness.runs} runs · {i.flakiness.flips} flip(s)
              {i.flakiness.flaky ? ` · flaky (${i.flakiness.band ?? ''})` : ''}
            </dd>
          </>
        ) : null}
      </dl>

      <h2>Occurrences</h2>
      <Occurrences occurrences={i.occurrences} />

      <h2>Latest analysis</h2>
      {analysis ? (
        <>
          <AnalysisItem executionId={analysisExecution} item={analysis} onChanged={issue.reload} />
          {diff.length ? (
            <div class="table-scroll">
              <table class="table compact">
                <caption>What changed in the element (as last seen passing → at the failure)</caption>
                <thead>
                  <tr>
                    <th scope="col">Property</th>
                    <th scope="col">Before</th>
                    <th scope="col">After</th>
                  </tr>
                </thead>
                <tbody>
                  {diff.map((d) => (
                    <tr key={d.property}>
                      <td>{d.property}</td>
                      <td>
                        <code>{shown(d.before)}</code>
                      </td>
                      <td>
                        <code>{shown(d.after)}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </>
      ) : (
        <p class="empty">No analysis of this issue’s failures.</p>
      )}
    </Page>
  );
}

/** Each failure the issue groups, newest first: when, in which execution, its category, confidence and error. */
function Occurrences(props: { occurrences: Schemas['IssueDetail']['occurrences'] }): JSX.Element {
  return (
    <div class="table-scroll">
      <table class="table" aria-label="Occurrences">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Execution</th>
            <th scope="col">Category</th>
            <th scope="col">Confidence</th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {props.occurrences.map((o) => (
            <tr key={`${o.execution_id}-${o.occurred_at}`}>
              <td>{formatDate(o.occurred_at)}</td>
              <td>
                <Link href={`/executions/${o.execution_id}`}>{o.execution_id.slice(0, 8)}</Link>
              </td>
              <td>{o.category.replace(/_/g, ' ')}</td>
              <td>{o.confidence !== undefined ? `${Math.round(o.confidence * 100)} %` : '—'}</td>
              <td>{o.error ? <code>{o.error}</code> : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
