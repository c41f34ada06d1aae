import { idParam, routesOf, type InternalRouteContract } from './route.js';

const an = routesOf('analysis');
const rp = routesOf('analysis', 'Reports');
const execution = idParam('execution_id');
const test = idParam('test_id');
const reportId = idParam('report_id');
const snapshotId = idParam('snapshot_id');
const analysisDescription =
  'One item per failed test: `failure_category` (selector_changed, element_missing, element_not_interactable, assertion_mismatch, page_error, network_error, script_error, timeout, flaky), `confidence` from the evidence, a plain `description`, `evidence` and concrete `fix_suggestions`. Produced after the execution ends; until then 202 with `Retry-After` (a passed execution answers an empty `analysis`). `suggested_alternative` is only a selector verified twice: against the DOM at the failure and by re-running the test against the live target.';

const FAILURE_ANALYSIS_AND_ISSUES = [
  an({ method: 'GET', path: '/api/v1/executions/{execution_id}/failure-analysis', scope: 'executions:read', aliases: ['P0'], tag: 'Failure analysis', summary: 'The failure analysis of an execution', description: analysisDescription, params: [execution], response: { status: 200, schema: 'FailureAnalysis' }, errors: [404] }),
  an({ method: 'GET', path: '/api/executions/{execution_id}/failure-analysis', alias: 'P0', tag: 'Failure analysis', summary: 'The failure analysis of an execution (unversioned form)', description: 'The same resource as `/api/v1/executions/{execution_id}/failure-analysis`.', params: [execution], response: { status: 200, schema: 'FailureAnalysis' }, errors: [404] }),
  an({
    method: 'POST',
    path: '/api/v1/executions/{execution_id}/failure-analysis/{test_id}/apply',
    scope: 'executions:write',
    aliases: ['P0'],
    tag: 'Failure analysis',
    summary: 'Write the verified selector into the test case',
    description: 'Replaces the failing selector in every step of the case that used it (`test.case.updated` carries the change). 409 when the suggestion was not verified, was rejected, or the case changed since the run. Applying twice answers the same.',
    params: [execution, test],
    response: { status: 200, schema: 'FailureAnalysisApplied' },
    errors: [404, 409],
  }),
  an({
    method: 'POST',
    path: '/api/v1/executions/{execution_id}/failure-analysis/{test_id}/reject',
    scope: 'executions:write',
    aliases: ['P0'],
    tag: 'Failure analysis',
    summary: 'Reject a suggested element',
    description: 'The element is remembered for this step and never suggested again. Optional body `{reason}`.',
    params: [execution, test],
    body: 'FailureAnalysisRejectRequest',
    response: { status: 200, schema: 'FailureAnalysisRejected' },
    errors: [400, 404, 409],
  }),
  an({
    method: 'GET',
    path: '/api/v1/issues',
    scope: 'executions:read',
    tag: 'Issues',
    summary: 'List issues (failures grouped by cause)',
    description: 'One issue per project, test case, step, category and normalised error; newest occurrence first.',
    params: [
      { name: 'project_id', in: 'query', schema: { type: 'string' } },
      { name: 'status', in: 'query', schema: { type: 'string', enum: ['open', 'acknowledged', 'resolved', 'ignored'] } },
      { name: 'category', in: 'query', schema: { type: 'string' } },
      { name: 'test_case_id', in: 'query', schema: { type: 'string' } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
    ],
    response: { status: 200, schema: 'IssueList' },
    errors: [400],
  }),
  an({ method: 'GET', path: '/api/v1/issues/{issue_id}', scope: 'executions:read', tag: 'Issues', summary: 'An issue with its occurrences and latest analysis', params: [idParam('issue_id')], response: { status: 200, schema: 'IssueDetail' }, errors: [404] }),
  an({
    method: 'PATCH',
    path: '/api/v1/issues/{issue_id}',
    scope: 'executions:write',
    tag: 'Issues',
    summary: 'Triage an issue',
    description: '`{status: open | acknowledged | resolved | ignored}`. A new occurrence of a resolved issue reopens it.',
    params: [idParam('issue_id')],
    body: 'IssueUpdateRequest',
    response: { status: 200, schema: 'Issue' },
    errors: [400, 404],
  }),
  an({
    method: 'GET',
    path: '/api/v1/test-cases/{test_case_id}/flakiness',
    scope: 'test_cases:read',
    aliases: ['P0'],
    rateBucket: 'test_cases',
    tag: 'Issues',
    summary: 'How flaky a test case is',
    description: 'Flip rate over its last 30 analysed runs per plan, environment and test-case version; bands low ≤ 10 %, medium ≤ 50 %, high.',
    params: [idParam('test_case_id')],
    response: { status: 200, schema: 'TestCaseFlakiness' },
    errors: [404],
  }),
];

const REPORTS = [
  rp({ method: 'POST', path: '/api/v1/reports', scope: 'executions:write', summary: 'Define a report over a project’s executions and analyses', body: 'ReportCreateRequest', response: { status: 201, schema: 'Report' }, errors: [400, 404] }),
  rp({
    method: 'GET',
    path: '/api/v1/reports',
    scope: 'executions:read',
    summary: 'List a project’s report definitions',
    params: [
      { name: 'project_id', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
    ],
    response: { status: 200, schema: 'ReportList' },
    errors: [400, 404],
  }),
  rp({
    method: 'GET',
    path: '/api/v1/reports/dashboard',
    scope: 'executions:read',
    summary: 'A project’s dashboard: pass rate over time, slowest and flakiest cases, open issues, last runs',
    description:
      'Computed when asked from the data reports count (finished plan runs of the last `days`, open issues): pass rate by day (every day of the period), the ten slowest cases (median and p95 in ms), the ten flakiest (flip rate in %), up to ten open issues and the last ten runs with their outcome. `format=csv` answers one of its lists (`table`) as CSV.',
    params: [
      { name: 'project_id', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'days', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 90, default: 30 } },
      { name: 'format', in: 'query', schema: { type: 'string', enum: ['json', 'csv'], default: 'json' } },
      { name: 'table', in: 'query', schema: { type: 'string', enum: ['pass_rate_by_day', 'slowest_cases', 'flakiest_cases', 'open_issues', 'last_runs'], default: 'pass_rate_by_day' }, description: 'The list a CSV export holds.' },
    ],
    response: { status: 200, schema: 'Dashboard' },
    errors: [400, 404],
  }),
  rp({ method: 'GET', path: '/api/v1/reports/{report_id}', scope: 'executions:read', summary: 'A report definition', params: [reportId], response: { status: 200, schema: 'Report' }, errors: [404] }),
  rp({ method: 'PUT', path: '/api/v1/reports/{report_id}', scope: 'executions:write', summary: 'Change a report definition (its snapshots stay as they were)', params: [reportId], body: 'ReportUpdateRequest', response: { status: 200, schema: 'Report' }, errors: [400, 404] }),
  rp({ method: 'DELETE', path: '/api/v1/reports/{report_id}', scope: 'executions:write', summary: 'Delete a report definition and its snapshots', params: [reportId], response: { status: 200, schema: 'ReportDeleted' }, errors: [404] }),
  rp({
    method: 'POST',
    path: '/api/v1/reports/{report_id}/snapshots',
    scope: 'executions:write',
    summary: 'Freeze the report’s data now',
    description: 'Computes the report from the runner’s raw results and the analyses and stores it as a row that never changes: reopening it later shows exactly what it showed.',
    params: [reportId],
    response: { status: 201, schema: 'ReportSnapshot' },
    errors: [400, 404],
  }),
  rp({ method: 'GET', path: '/api/v1/reports/{report_id}/snapshots', scope: 'executions:read', summary: 'List a report’s snapshots, newest first', params: [reportId], response: { status: 200, schema: 'ReportSnapshotList' }, errors: [404] }),
  rp({
    method: 'GET',
    path: '/api/v1/reports/{report_id}/snapshots/{snapshot_id}',
    scope: 'executions:read',
    summary: 'A snapshot as JSON, CSV or a self-contained HTML page',
    description:
      '`format=json` (default); `format=csv` (one table, the first unless `table=` names another); `format=html`: a page with the chart as SVG rendered on the server (Vega-Lite) and every table, no script and no external resource, to open or attach to a mail.',
    params: [
      reportId,
      snapshotId,
      { name: 'format', in: 'query', schema: { type: 'string', enum: ['json', 'csv', 'html'], default: 'json' } },
      { name: 'table', in: 'query', schema: { type: 'string' }, description: 'CSV only: which table.' },
    ],
    response: { status: 200, schema: 'ReportSnapshot' },
    errors: [400, 404],
  }),
];

/** The analysis service's routes: failure analyses, issues and flakiness, reports and the dashboard. */
export const ANALYSIS_ROUTES = [...FAILURE_ANALYSIS_AND_ISSUES, ...REPORTS];

/** The analysis service serves no internal route. */
export const ANALYSIS_INTERNAL_ROUTES = {} as const satisfies Record<string, InternalRouteContract>;
