import type { JsonSchema } from './json-schema.js';

const timestamp = { type: 'string', format: 'date-time' };

/** One WCAG violation axe-core found: in a failed `assert_accessible` step and in a discovery page's scan. */
export const ACCESSIBILITY_VIOLATION = {
  type: 'object',
  required: ['rule', 'impact', 'help', 'help_url', 'nodes'],
  properties: { rule: { type: 'string' }, impact: { type: ['string', 'null'] }, help: { type: 'string' }, help_url: { type: 'string' }, nodes: { type: 'array', items: { type: 'string' } } },
} as const;
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' };
const runOptions = {
  test_plan_id: { type: 'string', minLength: 1, maxLength: 64 },
  project_id: { type: 'string', minLength: 1, maxLength: 64 },
  timeout_seconds: { type: 'integer', minimum: 1, maximum: 3600, default: 300, description: 'Whole run; past it the execution fails and keeps partial results.' },
  environment: { type: 'string', minLength: 1, maxLength: 32, description: "A key of the project's `environments`: its base URL is used." },
  variables: {
    type: 'object',
    maxProperties: 100,
    propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_.-]{0,63}$' },
    additionalProperties: { type: 'string', maxLength: 10000 },
    description: 'Replaces `{{name}}` in step selectors and values; an unknown placeholder fails its step.',
  },
  trace: {
    type: 'string',
    enum: ['off', 'on', 'retain-on-failure'],
    default: 'off',
    description: 'Record a Playwright trace (actions, DOM snapshots, screenshots, network) per test case: `on` keeps every one, `retain-on-failure` only those of failed cases. Open it with `npx playwright show-trace <file>` or trace.playwright.dev. A suite run records one per test unless `off` is sent (default `on`).',
  },
  suite_id: { type: 'string', minLength: 1, maxLength: 64, description: 'Run a Playwright suite (its latest version) instead of a test plan.' },
  suite_version: { type: 'integer', minimum: 1, description: 'A suite run: the version to run (default the latest).' },
  grep: { type: 'string', minLength: 1, maxLength: 500, description: 'A suite run: only tests whose title matches this regular expression (Playwright `--grep`).' },
  project: {
    oneOf: [
      { type: 'string', minLength: 1, maxLength: 200 },
      { type: 'array', minItems: 1, maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 200 } },
    ],
    description: 'A suite run: the playwright.config project(s) to run (default: the suite’s, else its Chromium projects).',
  },
  shards: { type: 'integer', minimum: 1, maximum: 256, default: 1, description: 'A suite run: pieces any runner replica takes.' },
  retries: { type: 'integer', minimum: 0, maximum: 10, description: 'A suite run: Playwright retries (default: the suite config’s).' },
  split: { type: 'string', enum: ['queue', 'shard'], default: 'queue', description: 'A suite run: `queue` hands tests out longest first by past durations; `shard` is Playwright’s own `--shard`.' },
};
/** A run names a test plan or a suite. */
const planOrSuite = [{ required: ['test_plan_id'] }, { required: ['suite_id'] }];
const stepResult = {
  type: 'object',
  required: ['step_id', 'name', 'status', 'duration_ms'],
  properties: {
    step_id: { type: 'string' },
    name: { type: 'string', description: 'The step description, or a readable form of the action.' },
    status: { type: 'string', enum: ['passed', 'failed', 'skipped'] },
    duration_ms: { type: 'integer' },
    error: { type: 'string' },
    screenshot: { type: 'string', description: 'Absolute URL of a PNG (screenshot steps and the failing step).' },
    visual: { $ref: 'VisualResult' },
    accessibility: {
      type: 'object',
      description: 'A failed `assert_accessible` step: the standard, the lowest impact that fails and each violation.',
      required: ['standard', 'min_impact', 'violations'],
      properties: {
        standard: { type: 'string' },
        min_impact: { type: 'string' },
        violations: {
          type: 'array',
          items: ACCESSIBILITY_VIOLATION,
        },
      },
    },
  },
};

const region = {
  type: 'object',
  required: ['x', 'y', 'width', 'height', 'pixels'],
  properties: { x: { type: 'integer' }, y: { type: 'integer' }, width: { type: 'integer' }, height: { type: 'integer' }, pixels: { type: 'integer', description: 'Differing pixels inside the box.' } },
};

const screenshotBaseline = {
  type: 'object',
  required: ['id', 'project_id', 'test_case_id', 'step_id', 'name', 'browser', 'viewport', 'width', 'height', 'size', 'origin', 'source_execution_id', 'image_url', 'created_at', 'updated_at'],
  description: 'The reference image of one `assert_screenshot` step for one browser and viewport.',
  properties: {
    id: { type: 'string', format: 'uuid' },
    project_id: { type: 'string' },
    test_case_id: { type: 'string' },
    step_id: { type: 'string' },
    name: { type: ['string', 'null'], description: 'The step’s value, when it names the screenshot.' },
    browser: { type: 'string', example: 'chromium' },
    viewport: { type: 'string', example: '1280x720' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    size: { type: 'integer', description: 'Bytes of the PNG; counted in the organization’s artifact storage.' },
    origin: { type: 'string', enum: ['first_run', 'approved'], description: '`first_run`: stored by the first passing run; `approved`: a failed run’s capture accepted through the API.' },
    source_execution_id: { type: ['string', 'null'], description: 'The execution whose capture was accepted (`approved`).' },
    image_url: { type: 'string', description: 'Absolute URL of the PNG.' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

const runResults = {
  type: 'object',
  required: ['test_results', 'summary'],
  properties: {
    test_results: { type: 'array', items: { $ref: 'TestResult' } },
    summary: {
      type: 'object',
      required: ['total', 'passed', 'failed', 'skipped'],
      properties: { total: { type: 'integer' }, passed: { type: 'integer' }, failed: { type: 'integer' }, skipped: { type: 'integer' } },
    },
  },
};

export const executionSchemas: Record<string, JsonSchema> = {
  VisualResult: {
    type: 'object',
    required: ['result', 'browser', 'viewport'],
    description: 'What an `assert_screenshot` step found. A mismatch carries the URLs of the actual, expected and diff images.',
    properties: {
      result: { type: 'string', enum: ['baseline_created', 'matched', 'mismatch'] },
      browser: { type: 'string' },
      viewport: { type: 'string' },
      name: { type: 'string' },
      baseline_id: { type: 'string' },
      diff_pixels: { type: 'integer' },
      diff_ratio: { type: 'number', description: 'Share of differing pixels (0..1).' },
      regions: { type: 'array', items: region, description: 'Bounding boxes of the differing areas, largest first (at most 10).' },
      size_changed: { type: 'object', properties: { expected: { type: 'string' }, actual: { type: 'string' } } },
      actual_url: { type: 'string' },
      expected_url: { type: 'string' },
      diff_url: { type: 'string' },
      capture_ms: { type: 'integer' },
      compare_ms: { type: 'integer' },
    },
  },
  ScreenshotBaseline: screenshotBaseline,
  ScreenshotBaselineList: {
    type: 'object',
    required: ['data', 'pagination'],
    properties: { data: { type: 'array', items: { $ref: 'ScreenshotBaseline' } }, pagination: { $ref: 'Pagination' } },
  },
  ScreenshotBaselineApproveRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['execution_id', 'test_id', 'step_id'],
    description: 'A failed `assert_screenshot` step of an execution (or test run) whose capture becomes the baseline.',
    properties: {
      execution_id: { type: 'string', minLength: 1, maxLength: 64 },
      test_id: { type: 'string', minLength: 1, maxLength: 64, description: 'The result’s `test_id` (the test case).' },
      step_id: { type: 'string', minLength: 1, maxLength: 64 },
    },
  },
  ScreenshotBaselineDeleted: {
    type: 'object',
    required: ['id', 'deleted'],
    properties: { id: { type: 'string' }, deleted: { type: 'boolean', enum: [true] } },
  },
  ArtifactUploaded: {
    type: 'object',
    required: ['id', 'kind', 'filename', 'content_type', 'size', 'created_at', 'url'],
    description: 'A file uploaded for `upload` steps: put its `id` in the step’s `value`.',
    properties: {
      id: { type: 'string', format: 'uuid' },
      kind: { type: 'string', enum: ['upload'] },
      filename: { type: 'string' },
      content_type: { type: 'string' },
      size: { type: 'integer', description: 'Bytes.' },
      created_at: timestamp,
      url: { type: 'string', description: 'Absolute URL that serves the file to the organization.' },
    },
  },
  ExecutionCreateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['project_id'],
    anyOf: planOrSuite,
    properties: {
      ...runOptions,
      wait_for_completion: { type: 'boolean', default: true, description: 'false: answer at once, like the async form.' },
    },
  },
  ExecutionAsyncRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['project_id'],
    anyOf: planOrSuite,
    properties: runOptions,
  },
  ExecutionRerunRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { only: { type: 'string', enum: ['failed', 'all'], default: 'failed', description: '`failed`: the cases that failed or did not run; `all`: every case again.' } },
  },
  ExecutionQueued: {
    type: 'object',
    required: ['id', 'status', 'estimated_wait_seconds', 'polling_url'],
    properties: {
      id: { type: 'string' },
      status: { type: 'string', enum: ['queued'] },
      estimated_wait_seconds: { type: 'integer', minimum: 0 },
      polling_url: { type: 'string', description: 'Versioned path of the status resource.' },
    },
  },
  StepResult: stepResult,
  TestResult: {
    type: 'object',
    required: ['test_id', 'name', 'status', 'duration_ms', 'steps'],
    properties: {
      test_id: { type: 'string' },
      name: { type: 'string' },
      status: { type: 'string', enum: ['passed', 'failed', 'skipped'] },
      duration_ms: { type: 'integer' },
      error: { type: 'string' },
      screenshot: { type: 'string' },
      trace: { type: 'string', description: 'Absolute URL of the Playwright trace (zip), when the run recorded one.' },
      diagnostics: {
        type: 'object',
        description: 'Present when the egress policy refused requests of the page (subresources, fetches, frames); a refused subresource does not fail its step.',
        properties: {
          blocked_requests: {
            type: 'array',
            items: {
              type: 'object',
              required: ['step_id', 'url', 'reason'],
              properties: { step_id: { type: 'string' }, url: { type: 'string' }, method: { type: 'string' }, resource_type: { type: 'string' }, reason: { type: 'string' } },
            },
          },
        },
      },
      steps: { type: 'array', items: { $ref: 'StepResult' } },
    },
  },
  Execution: {
    type: 'object',
    required: ['id', 'test_plan_id', 'project_id', 'status', 'passed_tests', 'failed_tests', 'total_tests', 'duration_seconds', 'created_at', 'completed_at'],
    properties: {
      id: { type: 'string' },
      kind: { type: 'string', enum: ['plan', 'run'], description: '`plan`: a run of a test plan; `run`: a test run (of one stored test case when `test_case_id` is set, else exploratory steps).' },
      test_plan_id: { type: 'string' },
      test_plan_name: { type: ['string', 'null'], description: 'The plan’s name when the run started (null for test runs).' },
      name: { type: ['string', 'null'], description: 'What ran, for people: the plan’s name, or the test run’s (the case’s name for a run of one case).' },
      project_id: { type: 'string' },
      project_name: { type: 'string' },
      test_case_id: { type: ['string', 'null'], description: 'A run of one stored test case: that case.' },
      rerun_of: { type: ['string', 'null'], description: 'A re-run: the execution whose cases it runs again.' },
      status: { type: 'string', enum: ['queued', 'pending', 'running', 'completed', 'failed', 'cancelled'] },
      outcome: {
        type: ['string', 'null'],
        enum: ['passed', 'failed', 'cancelled', null],
        description: '`passed` only when every case passed; `failed` when a case failed or did not run, or the run broke (status `failed`); `cancelled`; null until the run ends. `status` says where the run is, `outcome` whether it passed.',
      },
      environment: { type: ['string', 'null'] },
      base_url: { type: 'string' },
      passed_tests: { type: 'integer' },
      failed_tests: { type: 'integer' },
      skipped_tests: { type: 'integer' },
      total_tests: { type: 'integer' },
      duration_seconds: { type: ['integer', 'null'] },
      timeout_seconds: { type: 'integer' },
      trace: { type: 'string', enum: ['off', 'on', 'retain-on-failure'] },
      created_at: timestamp,
      started_at: nullableTimestamp,
      completed_at: nullableTimestamp,
      cancelled_at: nullableTimestamp,
      cancellation_reason: { type: ['string', 'null'] },
      error: { type: ['string', 'null'] },
      results: { ...runResults, description: 'Only in the answer of a synchronous run.' },
    },
  },
  ExecutionList: {
    type: 'object',
    required: ['data', 'pagination'],
    properties: { data: { type: 'array', items: { $ref: 'Execution' } }, pagination: { $ref: 'Pagination' } },
  },
  ExecutionStatus: {
    type: 'object',
    required: ['id', 'status'],
    description:
      'Running form: {id, status, progress: {current, total, percent}, started_at, estimated_completion}. Terminal form: {id, status, passed_tests, failed_tests, total_tests, duration_seconds, completed_at}.',
    properties: {
      id: { type: 'string' },
      status: { type: 'string' },
      progress: {
        type: 'object',
        properties: { current: { type: 'integer' }, total: { type: 'integer' }, percent: { type: 'integer' } },
      },
      started_at: nullableTimestamp,
      estimated_completion: nullableTimestamp,
      passed_tests: { type: 'integer' },
      failed_tests: { type: 'integer' },
      total_tests: { type: 'integer' },
      duration_seconds: { type: ['integer', 'null'] },
      completed_at: nullableTimestamp,
    },
  },
  ExecutionResults: {
    type: 'object',
    required: ['id', 'test_plan_id', 'test_results'],
    properties: { id: { type: 'string' }, test_plan_id: { type: 'string' }, test_results: { type: 'array', items: { $ref: 'TestResult' } } },
  },
  ExecutionCancelled: {
    type: 'object',
    required: ['id', 'status', 'cancellation_reason', 'cancelled_at'],
    properties: {
      id: { type: 'string' },
      status: { type: 'string', enum: ['cancelled'] },
      cancellation_reason: { type: 'string' },
      cancelled_at: timestamp,
    },
  },
  TestRunCreateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['project_id'],
    description: 'One of `steps` (one test, validated like a test case’s), `discovery_session_id` (every flow of the session as a generated test case, nothing saved) or `test_case_id` (a stored test case alone).',
    properties: {
      project_id: runOptions.project_id,
      name: { type: 'string', minLength: 1, maxLength: 200 },
      steps: { type: 'array', description: 'Steps as in a test case (same actions and validation); step ids are assigned by the run.', items: { $ref: 'StepInput' } },
      discovery_session_id: { type: 'string', minLength: 1, maxLength: 64 },
      test_case_id: { type: 'string', minLength: 1, maxLength: 64, description: 'Run this stored test case alone (its current steps, under its own id: the result links to it and Apply fix edits it).' },
      environment: runOptions.environment,
      variables: runOptions.variables,
      timeout_seconds: runOptions.timeout_seconds,
      trace: runOptions.trace,
      wait_for_completion: { type: 'boolean', default: true, description: 'false: answer 202 at once; follow `stream_url` or poll the run.' },
    },
  },
  TestRun: {
    type: 'object',
    required: ['id', 'project_id', 'name', 'status', 'passed_tests', 'failed_tests', 'total_tests', 'created_at', 'completed_at', 'discovery_session_id', 'saved_test_case_id', 'stream_url'],
    description: 'An exploratory run: an execution of kind `run` (its id works with `/api/v1/executions/{id}/failure-analysis` and the artifact URLs in its results).',
    properties: {
      id: { type: 'string' },
      project_id: { type: 'string' },
      name: { type: ['string', 'null'] },
      status: { type: 'string', enum: ['queued', 'pending', 'running', 'completed', 'failed', 'cancelled'] },
      environment: { type: ['string', 'null'] },
      base_url: { type: 'string' },
      discovery_session_id: { type: ['string', 'null'] },
      saved_test_case_id: { type: ['string', 'null'], description: 'The test case the run was saved as.' },
      passed_tests: { type: 'integer' },
      failed_tests: { type: 'integer' },
      skipped_tests: { type: 'integer' },
      total_tests: { type: 'integer' },
      duration_seconds: { type: ['integer', 'null'] },
      timeout_seconds: { type: 'integer' },
      trace: { type: 'string', enum: ['off', 'on', 'retain-on-failure'] },
      created_at: timestamp,
      started_at: nullableTimestamp,
      completed_at: nullableTimestamp,
      cancelled_at: nullableTimestamp,
      cancellation_reason: { type: ['string', 'null'] },
      error: { type: ['string', 'null'] },
      stream_url: { type: 'string', description: 'Server-Sent Events of the run (as an execution’s stream).' },
      estimated_wait_seconds: { type: 'integer', description: 'Only in the answer of `wait_for_completion: false`.' },
      results: { ...runResults, description: 'Per-test and per-step results, the same shape as an execution’s.' },
    },
  },
  TestRunList: {
    type: 'object',
    required: ['data', 'pagination'],
    properties: { data: { type: 'array', items: { $ref: 'TestRun' } }, pagination: { $ref: 'Pagination' } },
  },
  TestRunSaveRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      description: { type: 'string', maxLength: 5000 },
      tags: { type: 'array', maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 50 } },
      test_plan_id: { type: 'string', minLength: 1, maxLength: 64, description: 'A plan of the run’s project the new case is appended to.' },
    },
  },
  TestRunSaved: {
    type: 'object',
    required: ['test_run_id', 'test_case', 'test_plan_id', 'saved_at'],
    properties: { test_run_id: { type: 'string' }, test_plan_id: { type: ['string', 'null'] }, test_case: { $ref: 'TestCase' }, saved_at: timestamp },
  },
};
