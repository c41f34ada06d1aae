import { FAILURE_CATEGORIES, ISSUE_STATUSES, TRIAGE_TYPES } from './failure-categories.js';
import type { JsonSchema } from './json-schema.js';

const timestamp = { type: 'string', format: 'date-time' };
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' };

const flakiness = {
  type: 'object',
  description: 'The test’s last runs (at most 30) on the same plan, environment and test-case version.',
  required: ['runs', 'passed', 'failed', 'flips', 'flip_rate', 'flaky', 'band'],
  properties: {
    runs: { type: 'integer' },
    passed: { type: 'integer' },
    failed: { type: 'integer' },
    flips: { type: 'integer', description: 'Status changes between consecutive runs.' },
    flip_rate: { type: 'number', minimum: 0, maximum: 1, description: 'flips / (runs − 1).' },
    flaky: { type: 'boolean', description: 'Two flips or more: it failed and passed again without a change to the test.' },
    band: { type: ['string', 'null'], enum: ['low', 'medium', 'high', null], description: 'low ≤ 10 %, medium ≤ 50 %, high above (only when flaky).' },
  },
};

const reportKind = {
  type: 'string',
  enum: ['pass_rate', 'flaky_tests', 'slowest_steps', 'failure_categories', 'open_issues'],
  description: 'pass_rate: per plan and environment, by day; flaky_tests: flip rates; slowest_steps: median and p95 per action and selector; failure_categories: counts by analysis category; open_issues.',
};
const reportFilters = {
  type: 'object',
  additionalProperties: false,
  properties: {
    test_plan_ids: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 64 } },
    environments: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 32 }, description: '`""` stands for runs that named no environment.' },
    tags: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      items: { type: 'string', minLength: 1, maxLength: 50 },
      description: 'Only the results of test cases that carry at least one of these tags (exactly as written) when the snapshot is taken; deleted cases count with the tags they had.',
    },
  },
};
const reportSchedule = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['cron'],
      properties: {
        cron: { type: 'string', minLength: 9, maxLength: 100, description: 'Five fields: minute hour day-of-month month day-of-week, e.g. `0 8 * * 1` (Mondays at 08:00).' },
        timezone: { type: 'string', minLength: 1, maxLength: 64, default: 'UTC', description: 'An IANA time zone for the cron.' },
      },
    },
    { type: 'null' },
  ],
  description: 'Takes a snapshot at each occurrence and emits `report.snapshot.created`; `null` removes the schedule. Occurrences missed while the service was down become one snapshot.',
};
const reportScheduleState = {
  oneOf: [
    {
      type: 'object',
      required: ['cron', 'timezone', 'next_snapshot_at'],
      properties: {
        cron: { type: 'string' },
        timezone: { type: 'string' },
        next_snapshot_at: { type: ['string', 'null'], format: 'date-time' },
        last_snapshot_at: { type: ['string', 'null'], format: 'date-time' },
        last_error: { type: ['string', 'null'], description: 'Why the last due snapshot could not be taken (it is tried again).' },
      },
    },
    { type: 'null' },
  ],
};
const reportPeriod = {
  type: 'object',
  additionalProperties: false,
  description: '`last_days` (default 30) counts back from the moment a snapshot is taken; `from`/`to` is a fixed range (`to` defaults to that moment).',
  properties: {
    last_days: { type: 'integer', minimum: 1, maximum: 366 },
    from: { type: 'string', format: 'date-time' },
    to: { type: 'string', format: 'date-time' },
  },
};

export const analysisSchemas: Record<string, JsonSchema> = {
  Dashboard: {
    type: 'object',
    required: ['project_id', 'period', 'summary', 'pass_rate_by_day', 'slowest_cases', 'flakiest_cases', 'open_issues', 'last_runs'],
    properties: {
      project_id: { type: 'string' },
      period: { type: 'object', required: ['from', 'to', 'days'], properties: { from: { type: 'string' }, to: { type: 'string' }, days: { type: 'integer' } } },
      summary: {
        type: 'object',
        required: ['runs', 'passed_runs', 'failed_runs', 'run_pass_rate', 'tests_passed', 'tests_failed', 'test_pass_rate', 'open_issues'],
        description: 'Runs and tests of the period; rates in percent with one decimal (null without data).',
        properties: {
          runs: { type: 'integer' },
          passed_runs: { type: 'integer' },
          failed_runs: { type: 'integer' },
          run_pass_rate: { type: ['number', 'null'] },
          tests_passed: { type: 'integer' },
          tests_failed: { type: 'integer' },
          test_pass_rate: { type: ['number', 'null'] },
          open_issues: { type: 'integer' },
        },
      },
      pass_rate_by_day: { type: 'array', items: { type: 'object', required: ['day', 'runs', 'passed_runs', 'tests_passed', 'tests_failed', 'pass_rate'], properties: { day: { type: 'string' }, runs: { type: 'integer' }, passed_runs: { type: 'integer' }, tests_passed: { type: 'integer' }, tests_failed: { type: 'integer' }, pass_rate: { type: ['number', 'null'] } } } },
      slowest_cases: { type: 'array', items: { type: 'object', required: ['test_case_id', 'name', 'runs', 'median_ms', 'p95_ms'], properties: { test_case_id: { type: 'string' }, name: { type: 'string' }, runs: { type: 'integer' }, median_ms: { type: 'integer' }, p95_ms: { type: 'integer' } } } },
      flakiest_cases: { type: 'array', items: { type: 'object', required: ['test_case_id', 'name', 'runs', 'failed', 'flips', 'flip_rate'], properties: { test_case_id: { type: 'string' }, name: { type: 'string' }, runs: { type: 'integer' }, failed: { type: 'integer' }, flips: { type: 'integer' }, flip_rate: { type: 'number' } } } },
      open_issues: { type: 'array', items: { type: 'object', required: ['issue_id', 'title', 'category', 'status', 'test_name', 'occurrences', 'last_seen'], properties: { issue_id: { type: 'string' }, title: { type: 'string' }, category: { type: 'string' }, status: { type: 'string' }, test_name: { type: ['string', 'null'] }, occurrences: { type: 'integer' }, last_seen: { type: ['string', 'null'] } } } },
      last_runs: {
        type: 'array',
        items: {
          type: 'object',
          required: ['execution_id', 'name', 'environment', 'outcome', 'passed', 'failed', 'total', 'completed_at', 'duration_ms'],
          properties: {
            execution_id: { type: 'string' },
            name: { type: 'string' },
            environment: { type: ['string', 'null'] },
            outcome: { type: 'string', enum: ['passed', 'failed'] },
            passed: { type: 'integer' },
            failed: { type: 'integer' },
            total: { type: 'integer' },
            completed_at: { type: 'string' },
            duration_ms: { type: ['integer', 'null'] },
          },
        },
      },
    },
  },
  FailureAnalysisItem: {
    type: 'object',
    required: ['test_id', 'test_name', 'failure_category', 'confidence', 'description', 'evidence', 'fix_suggestions'],
    properties: {
      test_id: { type: 'string' },
      test_name: { type: 'string' },
      failure_category: { type: 'string', enum: [...FAILURE_CATEGORIES] },
      confidence: { type: 'number', minimum: 0, maximum: 1 },
      summary: { type: 'string', description: 'One sentence of what changed, in a tester’s words (no selectors, scores or API routes).' },
      next_step: { type: ['string', 'null'], description: 'One sentence of what to do about it.' },
      description: { type: 'string' },
      evidence: {
        type: 'object',
        description:
          'The spec’s three fields (null when they do not apply) and what the category rests on: `error`, `failed_step`, `page_url`, category facts (`status`, `found`, `expected`, `reason`, `cause`…), `flakiness`, `element` (the element as last seen passing), `candidates` (top three with per-factor scores and a selector hint), `diff` (old vs new attributes), `verification` ({verified, selector, snapshot, rerun; `reruns`: every verification re-run with the 1-based steps whose selectors it had replaced (`steps`), its `status` and `failed_step`; `further_steps`: later broken steps of the case healed in those re-runs, each {index, step_id, expected_selector, selector, pick: confident | plausible}}). When the analysis makes no pick, `candidates` still ranks the closest elements with their scores.',
        required: ['expected_selector', 'suggested_alternative', 'screenshot'],
        properties: {
          expected_selector: { type: ['string', 'null'], description: 'The failing step’s selector.' },
          suggested_alternative: { type: ['string', 'null'], description: 'Only a selector verified twice (the DOM at the failure, a re-run against the live target).' },
          screenshot: { type: ['string', 'null'], description: 'URL of the PNG taken at the failure.' },
          flakiness,
        },
      },
      fix_suggestions: { type: 'array', items: { type: 'string' } },
      triage_type: { type: 'string', enum: [...TRIAGE_TYPES] },
      issue_id: { type: ['string', 'null'] },
      suggestion_state: { type: 'string', enum: ['none', 'unverified', 'offered', 'applied', 'rejected'] },
      applied_at: nullableTimestamp,
      rejected_at: nullableTimestamp,
    },
  },
  FailureAnalysis: {
    type: 'object',
    description: '200 once produced. While the execution runs or the analysis is produced the answer is 202 with `Retry-After` and `status` `waiting`, `pending` or `running`.',
    required: ['id', 'analysis'],
    properties: {
      id: { type: 'string', description: 'The execution id.' },
      status: { type: 'string', enum: ['waiting', 'pending', 'running', 'completed', 'failed'] },
      produced_at: nullableTimestamp,
      message: { type: 'string' },
      error: { type: 'string' },
      analysis: { type: 'array', items: { $ref: 'FailureAnalysisItem' } },
    },
  },
  FailureAnalysisApplied: {
    type: 'object',
    required: ['execution_id', 'test_id', 'applied', 'selector', 'replaced', 'step_ids'],
    properties: {
      execution_id: { type: 'string' },
      test_id: { type: 'string' },
      applied: { type: 'boolean', enum: [true] },
      selector: { type: 'string' },
      replaced: { type: 'string' },
      step_ids: { type: 'array', items: { type: 'string' } },
      also: {
        type: 'array',
        description: 'Later broken steps of the case healed in the same verified re-run, replaced after the first, in order (selectors only).',
        items: { type: 'object', properties: { selector: { type: 'string' }, replaced: { type: 'string' }, step_ids: { type: 'array', items: { type: 'string' } } } },
      },
      applied_at: nullableTimestamp,
      test_case: { type: 'object', description: 'The updated test case (first apply only).' },
    },
  },
  FailureAnalysisRejectRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { reason: { type: 'string', maxLength: 500 } },
  },
  FailureAnalysisRejected: {
    type: 'object',
    required: ['execution_id', 'test_id', 'rejected', 'selector'],
    properties: {
      execution_id: { type: 'string' },
      test_id: { type: 'string' },
      rejected: { type: 'boolean', enum: [true] },
      selector: { type: 'string' },
      rejected_at: nullableTimestamp,
    },
  },
  Issue: {
    type: 'object',
    required: ['id', 'project_id', 'test_case_id', 'test_name', 'category', 'triage_type', 'title', 'status', 'occurrence_count', 'first_seen', 'last_seen', 'last_execution_id'],
    properties: {
      id: { type: 'string' },
      project_id: { type: 'string' },
      test_case_id: { type: 'string' },
      test_name: { type: 'string' },
      step: { type: ['object', 'null'], properties: { step_id: { type: 'string' }, index: { type: ['integer', 'null'] }, description: { type: ['string', 'null'] } } },
      category: { type: 'string', enum: [...FAILURE_CATEGORIES] },
      triage_type: { type: 'string', enum: [...TRIAGE_TYPES] },
      title: { type: 'string' },
      normalized_error: { type: 'string' },
      status: { type: 'string', enum: [...ISSUE_STATUSES] },
      occurrence_count: { type: 'integer' },
      reopened_count: { type: 'integer' },
      first_seen: timestamp,
      last_seen: timestamp,
      last_execution_id: { type: 'string' },
      flakiness: { oneOf: [flakiness, { type: 'null' }] },
      resolved_at: nullableTimestamp,
      created_at: timestamp,
      updated_at: timestamp,
    },
  },
  IssueList: {
    type: 'object',
    required: ['data', 'pagination'],
    properties: { data: { type: 'array', items: { $ref: 'Issue' } }, pagination: { $ref: 'Pagination' } },
  },
  IssueDetail: {
    allOf: [
      { $ref: 'Issue' },
      {
        type: 'object',
        required: ['occurrences', 'latest_analysis'],
        properties: {
          occurrences: {
            type: 'array',
            description: 'Newest first, at most 100.',
            items: { type: 'object', required: ['execution_id', 'occurred_at', 'category'], properties: { execution_id: { type: 'string' }, occurred_at: timestamp, category: { type: 'string' }, error: { type: ['string', 'null'] }, confidence: { type: 'number' } } },
          },
          latest_analysis: { oneOf: [{ $ref: 'FailureAnalysisItem' }, { type: 'null' }] },
        },
      },
    ],
  },
  IssueUpdateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: { status: { type: 'string', enum: [...ISSUE_STATUSES] } },
  },
  TestCaseFlakiness: {
    type: 'object',
    required: ['test_case_id', 'window', 'flaky', 'flip_rate', 'band', 'groups'],
    properties: {
      test_case_id: { type: 'string' },
      window: { type: 'integer', description: 'Runs considered per group (30).' },
      flaky: { type: 'boolean', description: 'The newest group (plan, environment, version) is flaky.' },
      flip_rate: { type: 'number' },
      band: { type: ['string', 'null'] },
      groups: {
        type: 'array',
        description: 'One per plan, environment and test-case version, newest first.',
        items: {
          allOf: [
            flakiness,
            { type: 'object', properties: { test_plan_id: { type: 'string' }, environment: { type: ['string', 'null'] }, test_case_version: { type: 'string' }, last_run_at: timestamp, last_execution_id: { type: 'string' } } },
          ],
        },
      },
    },
  },
  ReportCreateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['project_id', 'name', 'kind'],
    properties: {
      project_id: { type: 'string', minLength: 1, maxLength: 64 },
      name: { type: 'string', minLength: 1, maxLength: 200 },
      kind: reportKind,
      filters: reportFilters,
      period: reportPeriod,
      schedule: reportSchedule,
    },
  },
  ReportUpdateRequest: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      project_id: { type: 'string', description: 'Read-only: must be the report’s own.' },
      name: { type: 'string', minLength: 1, maxLength: 200 },
      kind: reportKind,
      filters: reportFilters,
      period: reportPeriod,
      schedule: reportSchedule,
    },
  },
  Report: {
    type: 'object',
    required: ['id', 'project_id', 'name', 'kind', 'filters', 'period', 'schedule', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string' },
      project_id: { type: 'string' },
      name: { type: 'string' },
      kind: reportKind,
      filters: reportFilters,
      period: reportPeriod,
      schedule: reportScheduleState,
      created_at: { type: 'string', format: 'date-time' },
      updated_at: { type: 'string', format: 'date-time' },
    },
  },
  ReportList: { type: 'object', required: ['data', 'pagination'], properties: { data: { type: 'array', items: { $ref: 'Report' } }, pagination: { $ref: 'Pagination' } } },
  ReportDeleted: { type: 'object', required: ['id', 'deleted', 'deleted_at'], properties: { id: { type: 'string' }, deleted: { type: 'boolean' }, deleted_at: { type: 'string', format: 'date-time' } } },
  ReportSnapshot: {
    type: 'object',
    required: ['id', 'report_id', 'project_id', 'period', 'trigger', 'scheduled_for', 'created_at'],
    description: 'A report frozen when it was taken: the row never changes afterwards. `definition` and `data` are in the single-snapshot answer, not in the list.',
    properties: {
      id: { type: 'string' },
      report_id: { type: 'string' },
      project_id: { type: 'string' },
      trigger: { type: 'string', enum: ['manual', 'schedule'], description: 'Taken by `POST …/snapshots`, or by the report’s schedule.' },
      scheduled_for: { type: ['string', 'null'], format: 'date-time', description: 'The schedule’s occurrence it was taken for (null when manual).' },
      period: { type: 'object', required: ['from', 'to'], properties: { from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' } } },
      created_at: { type: 'string', format: 'date-time' },
      definition: { $ref: 'Report' },
      data: {
        type: 'object',
        required: ['kind', 'period', 'executions_counted', 'tables'],
        properties: {
          kind: reportKind,
          period: { type: 'object' },
          executions_counted: { type: 'integer', description: 'Finished (completed or failed, not cancelled) plan executions that ended in the period; exploratory runs are not counted.' },
          tables: {
            type: 'object',
            description:
              'Named tables `{columns, rows}`. pass_rate: `by_day` and `totals` (passed ÷ (passed + failed) tests, %, one decimal); flaky_tests: `tests` (flips between consecutive runs ÷ (runs − 1)); slowest_steps: `steps` (median and nearest-rank p95 of step durations per action and selector, top 50 by p95); failure_categories: `categories` (failure-analysis items of the period’s executions); open_issues: `issues` (open and acknowledged, now).',
            additionalProperties: { type: 'object', required: ['columns', 'rows'], properties: { columns: { type: 'array', items: { type: 'string' } }, rows: { type: 'array', items: { type: 'array' } } } },
          },
        },
      },
    },
  },
  ReportSnapshotList: { type: 'object', required: ['data', 'pagination'], properties: { data: { type: 'array', items: { $ref: 'ReportSnapshot' } }, pagination: { $ref: 'Pagination' } } },
};
