import type { JsonSchema } from './json-schema.js';

const timestamp = { type: 'string', format: 'date-time' };
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
    description: 'Record a Playwright trace (actions, DOM snapshots, screenshots, network) per test case: `on` keeps every one, `retain-on-failure` only those of failed cases. Open it with `npx playwright show-trace <file>` or trace.playwright.dev.',
  },
};
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
  },
};

export const executionSchemas: Record<string, JsonSchema> = {
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
    required: ['test_plan_id', 'project_id'],
    properties: {
      ...runOptions,
      wait_for_completion: { type: 'boolean', default: true, description: 'false: answer at once, like the async form.' },
    },
  },
  ExecutionAsyncRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['test_plan_id', 'project_id'],
    properties: runOptions,
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
      test_plan_id: { type: 'string' },
      project_id: { type: 'string' },
      status: { type: 'string', enum: ['queued', 'pending', 'running', 'completed', 'failed', 'cancelled'] },
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
      results: {
        type: 'object',
        description: 'Only in the answer of a synchronous run.',
        required: ['test_results', 'summary'],
        properties: {
          test_results: { type: 'array', items: { $ref: 'TestResult' } },
          summary: {
            type: 'object',
            required: ['total', 'passed', 'failed', 'skipped'],
            properties: { total: { type: 'integer' }, passed: { type: 'integer' }, failed: { type: 'integer' }, skipped: { type: 'integer' } },
          },
        },
      },
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
};
