import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ISSUE_STATUSES } from '@assay/contracts/catalogues';
import { api, errorText } from '../api';
import { Link } from '../router';
import { ErrorNote, Field, formatDate, Page, StatusBadge, useLoad } from '../ui';

export function IssueList(): JSX.Element {
  const [status, setStatus] = useState('open');
  const issues = useLoad(async () => (await api().api.GET('/api/v1/issues', { params: { query: { limit: 100, ...(status ? { status } : {}) } as never } })).data!, [status]);
  const [error, setError] = useState<string>();
  return (
    <Page title="Issues">
      <p class="muted">Failures grouped by cause: one issue per test case, step, category and error.</p>
      <div class="filters" role="search">
        <Field label="Status" id="issues-status">
          {(a) => (
            <select {...a} value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
              <option value="">Any</option>
              {ISSUE_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <ErrorNote error={issues.error ?? error} />
      {issues.data && issues.data.data.length === 0 ? <p class="empty">No issues with this status.</p> : null}
      {issues.data && issues.data.data.length > 0 ? (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Issue</th>
              <th scope="col">Category</th>
              <th scope="col">Seen</th>
              <th scope="col">Last</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {issues.data.data.map((i) => (
              <tr key={i.id}>
                <td>
                  <Link href={`/issues/${i.id}`}>{i.title}</Link>
                  <br />
                  <Link href={`/cases/${i.test_case_id}`}>{i.test_name}</Link> · <Link href={`/executions/${i.last_execution_id}`}>last run</Link>
                </td>
                <td>
                  <StatusBadge status={i.category} />
                </td>
                <td>{i.occurrence_count}×</td>
                <td>{formatDate(i.last_seen)}</td>
                <td>
                  <select
                    aria-label={`Triage state of ${i.title}`}
                    value={i.status}
                    onChange={async (e) => {
                      try {
                        await api().api.PATCH('/api/v1/issues/{issue_id}', { params: { path: { issue_id: i.id } }, body: { status: (e.target as HTMLSelectElement).value as (typeof ISSUE_STATUSES)[number] } });
                        issues.reload();
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
                  </select>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Page>
  );
}
