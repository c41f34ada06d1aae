import { idParam, routesOf, type InternalRouteContract } from './route.js';

const ex = routesOf('execution-runner', 'Executions');
const tr = routesOf('execution-runner', 'Test runs');
const sb = routesOf('execution-runner', 'Screenshot baselines');
const rc = routesOf('execution-runner', 'Recorder');
const schedule = routesOf('execution-runner', 'Schedules');
const su = routesOf('execution-runner', 'Suites');
const suiteId = idParam('suite_id');
const executionId = { name: 'execution_id', in: 'path' as const, required: true, schema: { type: 'string' } };
const testRunId = idParam('test_run_id');
const baselineId = idParam('baseline_id');
const recordingId = idParam('recording_id');
const planId = idParam('test_plan_id');
const scheduleId = idParam('schedule_id');

const EXECUTIONS = [
  ex({
    method: 'POST',
    path: '/api/v1/executions',
    scope: 'executions:write',
    aliases: ['P0'],
    quota: { quotas: ['executions', 'browser_minutes'], what: 'executions' },
    summary: 'Run a test plan or a Playwright suite (waits for the results by default)',
    description: 'With `wait_for_completion` (default true) answers when the run ends, with `results`; false answers at once like the async form. A suite version still `listing` or `invalid` answers 409.',
    body: 'ExecutionCreateRequest',
    response: { status: 200, schema: 'Execution' },
    errors: [400, 404, 409],
  }),
  ex({ method: 'POST', path: '/api/v1/executions/async', scope: 'executions:write', aliases: ['P0'], quota: { quotas: ['executions', 'browser_minutes'], what: 'executions' }, summary: 'Queue a run of a test plan', body: 'ExecutionAsyncRequest', response: { status: 202, schema: 'ExecutionQueued' }, errors: [400, 404, 409] }),
  ex({
    method: 'GET',
    path: '/api/v1/executions',
    scope: 'executions:read',
    aliases: ['P0'],
    summary: 'List executions of a project, newest first',
    params: [
      { name: 'project_id', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'status', in: 'query', schema: { type: 'string', enum: ['queued', 'pending', 'running', 'completed', 'failed', 'cancelled'] } },
      {
        name: 'outcome',
        in: 'query',
        schema: { type: 'string', enum: ['passed', 'failed', 'cancelled', 'running'] },
        description: 'What a person reads first: `passed` (every case passed), `failed` (a case failed or did not run, or the run broke: `status` completed with failures, or failed), `cancelled`, `running` (not ended).',
      },
      { name: 'created_after', in: 'query', schema: { type: 'string', format: 'date-time' } },
      { name: 'created_before', in: 'query', schema: { type: 'string', format: 'date-time' } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
    ],
    response: { status: 200, schema: 'ExecutionList' },
    errors: [400],
  }),
  ex({ method: 'GET', path: '/api/v1/executions/{execution_id}', scope: 'executions:read', aliases: ['P0'], summary: 'The whole execution with its results', params: [executionId], response: { status: 200, schema: 'Execution' }, errors: [404] }),
  ex({ method: 'GET', path: '/api/v1/executions/{execution_id}/status', scope: 'executions:read', aliases: ['P0'], summary: 'Progress while running, counts once finished', params: [executionId], response: { status: 200, schema: 'ExecutionStatus' }, errors: [404] }),
  ex({ method: 'GET', path: '/api/v1/executions/{execution_id}/results', scope: 'executions:read', aliases: ['P0'], summary: 'Per-test and per-step results with screenshots', params: [executionId], response: { status: 200, schema: 'ExecutionResults' }, errors: [404] }),
  ex({
    method: 'GET',
    path: '/api/v1/executions/{execution_id}/stream',
    scope: 'executions:read',
    aliases: ['P0'],
    summary: 'Server-Sent Events of the run as it happens',
    description: 'Events `status`, `test_started`, `step_finished`, `test_finished`, `completed`; resumable with `Last-Event-ID`.',
    params: [executionId],
    response: { status: 200, contentType: 'text/event-stream' },
    errors: [404],
  }),
  ex({
    method: 'POST',
    path: '/api/v1/executions/{execution_id}/rerun',
    scope: 'executions:write',
    aliases: ['P0'],
    summary: 'Run an ended execution’s failed cases again',
    description:
      'A new execution (`rerun_of` names this one) with the same environment, variables, trace mode and timeout: of a plan run, the cases that failed or did not run (`only: "all"`: every case), as the plan holds them now; of a run of one test case, that case. 409 while it runs, when every case passed, or for an exploratory run of steps.',
    params: [executionId],
    body: 'ExecutionRerunRequest',
    response: { status: 202, schema: 'ExecutionQueued' },
    errors: [400, 404, 409],
  }),
  ex({ method: 'DELETE', path: '/api/v1/executions/{execution_id}', scope: 'executions:write', aliases: ['P0'], summary: 'Cancel a queued or running execution', params: [executionId], response: { status: 200, schema: 'ExecutionCancelled' }, errors: [404, 409] }),
  ex({
    method: 'POST',
    path: '/api/v1/artifacts',
    scope: 'executions:write',
    summary: 'Upload a file for `upload` steps',
    description:
      'multipart/form-data with one `file` field (at most `ARTIFACT_MAX_BYTES`, 10 MB by default). The file belongs to the organization: an `upload` step that names it (its `id` as the `value`) sets it on a file input. Another organization’s steps cannot read it.',
    response: { status: 201, schema: 'ArtifactUploaded' },
    errors: [400, 413, 415],
  }),
  ex({
    method: 'GET',
    path: '/api/v1/artifacts/{artifact_id}',
    scope: 'executions:read',
    summary: 'A screenshot (PNG) or trace of an execution, or an uploaded file',
    params: [{ name: 'artifact_id', in: 'path', required: true, schema: { type: 'string' } }],
    response: { status: 200, contentType: 'image/png' },
    errors: [404],
  }),
];

const TEST_RUNS = [
  tr({
    method: 'POST',
    path: '/api/v1/test-runs',
    scope: 'executions:write',
    quota: { quotas: ['executions', 'browser_minutes'], what: 'test runs' },
    summary: 'Run steps, or a discovery session’s flows, once without saving a test case',
    description:
      'The "try it" of test authoring: `steps` run as one test in Chromium, with the results, screenshots, traces, stream, events and failure analysis of an execution. `discovery_session_id` instead generates the session’s flows as test cases in memory and runs them all. Waits for the results unless `wait_for_completion` is false (202).',
    body: 'TestRunCreateRequest',
    response: { status: 200, schema: 'TestRun' },
    errors: [400, 404, 409, 501],
  }),
  tr({
    method: 'GET',
    path: '/api/v1/test-runs',
    scope: 'executions:read',
    summary: 'List exploratory runs of a project, newest first',
    params: [
      { name: 'project_id', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'status', in: 'query', schema: { type: 'string', enum: ['queued', 'pending', 'running', 'completed', 'failed', 'cancelled'] } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
    ],
    response: { status: 200, schema: 'TestRunList' },
    errors: [400, 404],
  }),
  tr({ method: 'GET', path: '/api/v1/test-runs/{test_run_id}', scope: 'executions:read', summary: 'An exploratory run with its per-step results', params: [testRunId], response: { status: 200, schema: 'TestRun' }, errors: [404] }),
  tr({ method: 'DELETE', path: '/api/v1/test-runs/{test_run_id}', scope: 'executions:write', summary: 'Cancel a queued or running exploratory run', params: [testRunId], response: { status: 200, schema: 'ExecutionCancelled' }, errors: [404, 409] }),
  tr({
    method: 'GET',
    path: '/api/v1/test-runs/{test_run_id}/stream',
    scope: 'executions:read',
    summary: 'Server-Sent Events of the run as it happens',
    description: 'The events of an execution’s stream (`status`, `test_started`, `step_finished`, `test_finished`, `completed`); resumable with `Last-Event-ID`.',
    params: [testRunId],
    response: { status: 200, contentType: 'text/event-stream' },
    errors: [404],
  }),
  tr({
    method: 'POST',
    path: '/api/v1/test-runs/{test_run_id}/save',
    scope: 'executions:write',
    summary: 'Save a finished run of steps as a test case',
    description:
      'The new case keeps the run’s test id and step ids, so the element fingerprints its run captured are the case’s history for failure analysis from day one; `test_plan_id` appends it to a plan. 409 while the run is going or once it was saved.',
    params: [testRunId],
    body: 'TestRunSaveRequest',
    response: { status: 201, schema: 'TestRunSaved' },
    errors: [400, 404, 409],
  }),
];

const SCREENSHOT_BASELINES = [
  sb({
    method: 'GET',
    path: '/api/v1/screenshot-baselines',
    scope: 'executions:read',
    summary: 'The `assert_screenshot` baselines of a test case (or a project), optionally of one step',
    description: 'One baseline per case, step, browser and viewport, newest first. `test_case_id` or `project_id` is required.',
    params: [
      { name: 'test_case_id', in: 'query', schema: { type: 'string' } },
      { name: 'step_id', in: 'query', schema: { type: 'string' } },
      { name: 'project_id', in: 'query', schema: { type: 'string' } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
      { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
    ],
    response: { status: 200, schema: 'ScreenshotBaselineList' },
    errors: [400],
  }),
  sb({
    method: 'POST',
    path: '/api/v1/screenshot-baselines',
    scope: 'executions:write',
    summary: 'Accept a failed screenshot comparison’s capture as the new baseline',
    description:
      'Names a failed `assert_screenshot` step of an execution or test run (`execution_id`, `test_id`, `step_id`); its capture replaces the baseline of that case, step, browser and viewport (or becomes it). The next run compares against it. 409 when the step did not fail on a comparison or its capture has expired; 403 when the artifact storage quota is full.',
    body: 'ScreenshotBaselineApproveRequest',
    response: { status: 201, schema: 'ScreenshotBaseline' },
    errors: [400, 404, 409],
  }),
  sb({ method: 'GET', path: '/api/v1/screenshot-baselines/{baseline_id}', scope: 'executions:read', summary: 'One screenshot baseline', params: [baselineId], response: { status: 200, schema: 'ScreenshotBaseline' }, errors: [404] }),
  sb({
    method: 'DELETE',
    path: '/api/v1/screenshot-baselines/{baseline_id}',
    scope: 'executions:write',
    summary: 'Delete a screenshot baseline (the next run stores a new one)',
    description: 'Its PNG is deleted too and its bytes given back to the artifact storage quota.',
    params: [baselineId],
    response: { status: 200, schema: 'ScreenshotBaselineDeleted' },
    errors: [404],
  }),
];

const RECORDINGS = [
  rc({
    method: 'POST',
    path: '/api/v1/recordings',
    scope: 'executions:write',
    quota: { quotas: ['browser_minutes'], what: 'recordings' },
    summary: 'Open a recording: a remote browser page on the project’s app whose input becomes test steps',
    description:
      'The page lives in a runner process (a browser context of its own, through the egress policy like a run), opens at `start_path` under the base URL and records it as the first `navigate` step. Follow it with `GET …/stream` (screencast frames, steps) and drive it with `POST …/input`. At most `RECORDER_MAX_PER_ORG` (2) open per organization (409); closed after `RECORDER_IDLE_SECONDS` without input or `RECORDER_MAX_SECONDS` in all.',
    body: 'RecordingCreateRequest',
    response: { status: 201, schema: 'Recording' },
    errors: [400, 404, 409, 501],
  }),
  rc({ method: 'GET', path: '/api/v1/recordings', scope: 'executions:read', summary: 'The organization’s open recordings', response: { status: 200, schema: 'RecordingList' }, errors: [501] }),
  rc({ method: 'GET', path: '/api/v1/recordings/{recording_id}', scope: 'executions:read', summary: 'A recording with its steps and their selector alternatives', params: [recordingId], response: { status: 200, schema: 'Recording' }, errors: [404, 501] }),
  rc({ method: 'DELETE', path: '/api/v1/recordings/{recording_id}', scope: 'executions:write', summary: 'Stop a recording and close its page; answers its steps', params: [recordingId], response: { status: 200, schema: 'Recording' }, errors: [404, 501] }),
  rc({
    method: 'POST',
    path: '/api/v1/recordings/{recording_id}/input',
    scope: 'executions:write',
    summary: 'Forward one input to the page (click, text, key, select, scroll, navigate), record an assertion, or pick an element',
    description: 'Inputs run in order. The element under the point (or the focused one) is named by the same selector ranking failure analysis uses before the input is dispatched; the answer says which step it recorded or updated and the element’s selector alternatives with their stability.',
    params: [recordingId],
    body: 'RecordingInput',
    response: { status: 200, schema: 'RecordingInputResult' },
    errors: [400, 404, 501],
  }),
  rc({
    method: 'GET',
    path: '/api/v1/recordings/{recording_id}/stream',
    scope: 'executions:read',
    summary: 'Server-Sent Events of a recording: screencast frames, steps, the page’s address, the end',
    description: 'Events `frame` (`data`: a base64 JPEG of the 1280x720 page, `width`, `height`; the latest frame first, then each change; frames a slow client cannot take are dropped), `step` (`index`, `step`, `updated`), `url`, `ended` (`reason`; the stream ends).',
    params: [recordingId],
    response: { status: 200, contentType: 'text/event-stream' },
    errors: [404, 501],
  }),
];

const SCHEDULES = [
  schedule({
    method: 'POST',
    path: '/api/v1/test-plans/{test_plan_id}/schedules',
    scope: 'executions:write',
    aliases: ['P0'],
    summary: 'Schedule a test plan (5-field cron in a time zone)',
    description: 'Each occurrence starts one execution and emits `test.plan.scheduled`. The answer lists the next five run times. At most 10 schedules per plan.',
    params: [planId],
    body: 'ScheduleCreateRequest',
    response: { status: 201, schema: 'Schedule' },
    errors: [400, 404, 409],
  }),
  schedule({ method: 'GET', path: '/api/v1/test-plans/{test_plan_id}/schedules', scope: 'executions:read', aliases: ['P0'], summary: 'List a test plan’s schedules', params: [planId], response: { status: 200, schema: 'ScheduleList' }, errors: [404] }),
  schedule({ method: 'GET', path: '/api/v1/test-plans/{test_plan_id}/schedules/{schedule_id}', scope: 'executions:read', aliases: ['P0'], summary: 'Get a schedule with its next run times', params: [planId, scheduleId], response: { status: 200, schema: 'Schedule' }, errors: [404] }),
  schedule({
    method: 'PATCH',
    path: '/api/v1/test-plans/{test_plan_id}/schedules/{schedule_id}',
    scope: 'executions:write',
    aliases: ['P0'],
    summary: 'Change a schedule (any subset of its fields)',
    description: 'A new cron or time zone recomputes the next run; `enabled: false` pauses it.',
    params: [planId, scheduleId],
    body: 'ScheduleUpdateRequest',
    response: { status: 200, schema: 'Schedule' },
    errors: [400, 404],
  }),
  schedule({ method: 'DELETE', path: '/api/v1/test-plans/{test_plan_id}/schedules/{schedule_id}', scope: 'executions:write', aliases: ['P0'], summary: 'Delete a schedule', params: [planId, scheduleId], response: { status: 200, schema: 'ScheduleDeleted' }, errors: [404] }),
];

const SUITES = [
  su({
    method: 'POST',
    path: '/api/v1/suites',
    scope: 'executions:write',
    summary: 'Upload a Playwright project as a new version of a suite',
    description:
      'multipart/form-data: `archive` (a `.tar.gz` or `.zip` of the project, its playwright.config at the root or in one top folder; at most `SUITE_ARCHIVE_MAX_BYTES`; regular files and directories only, every path inside), `project_id`, `name` (a new name makes a suite, a known one a new version), optional `projects` (comma-separated playwright.config project names; default its Chromium projects). The answer (201) lists the tests `playwright test --list` finds, run in a box. A runner that cannot make the box (the chart’s runner pods, `SUITE_LIST_ON_UPLOAD=false`) checks what it can without one (the archive, the config, dependencies), stores the version as `listing` and answers 202 with it (no tests yet, `Location` the version); a suite-shard process lists it, the version then `ready` with its tests or `invalid` with Playwright’s message (GET the version). Dependencies: @playwright/test is the runner’s; anything else must be in the archive’s node_modules (400 otherwise).',
    response: { status: 201, schema: 'SuiteUploaded' },
    errors: [400, 404, 413, 415, 501],
  }),
  su({ method: 'GET', path: '/api/v1/suites', scope: 'executions:read', summary: 'A project’s suites', params: [{ name: 'project_id', in: 'query', required: true, schema: { type: 'string' } }], response: { status: 200, schema: 'SuiteList' }, errors: [400, 404] }),
  su({ method: 'GET', path: '/api/v1/suites/{suite_id}', scope: 'executions:read', summary: 'A suite with its latest version’s tests, its last runs, slowest and flaky tests', params: [suiteId], response: { status: 200, schema: 'SuitePage' }, errors: [404] }),
  su({ method: 'GET', path: '/api/v1/suites/{suite_id}/versions', scope: 'executions:read', summary: 'A suite’s versions, newest first', params: [suiteId], response: { status: 200, schema: 'SuiteVersionList' }, errors: [404] }),
  su({
    method: 'GET',
    path: '/api/v1/suites/{suite_id}/versions/{version}',
    scope: 'executions:read',
    summary: 'One version of a suite with its tests',
    params: [suiteId, { name: 'version', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
    response: { status: 200, schema: 'SuiteVersion' },
    errors: [404],
  }),
];

/** The execution-runner's routes: executions and artifacts, test runs, screenshot baselines, the recorder, schedules, suites. */
export const EXECUTION_RUNNER_ROUTES = [...EXECUTIONS, ...TEST_RUNS, ...RECORDINGS, ...SCREENSHOT_BASELINES, ...SCHEDULES, ...SUITES];

/** A report's period can hold many executions: a longer wait for report-results. */
export const EXECUTION_RUNNER_INTERNAL_ROUTES = {
  execution: { service: 'execution-runner', method: 'GET', path: '/internal/executions/{execution_id}' },
  executionFingerprints: { service: 'execution-runner', method: 'GET', path: '/internal/executions/{execution_id}/fingerprints' },
  testDiagnostics: { service: 'execution-runner', method: 'GET', path: '/internal/executions/{execution_id}/tests/{test_id}/diagnostics' },
  reportResults: { service: 'execution-runner', method: 'GET', path: '/internal/report-results', timeout: { headersMs: 15_000, bodyMs: 60_000 } },
} as const satisfies Record<string, InternalRouteContract>;
