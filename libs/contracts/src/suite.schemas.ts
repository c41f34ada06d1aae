import type { JsonSchema } from './json-schema.js';

const timestamp = { type: 'string', format: 'date-time' };

const suiteTest = {
  type: 'object',
  required: ['id', 'project', 'file', 'line', 'title', 'title_path'],
  properties: {
    id: { type: 'string', description: 'The test’s id in every run of the suite: a result’s `test_id`.' },
    project: { type: 'string', description: 'The playwright.config project.' },
    file: { type: 'string', description: 'Relative to the config’s test directory.' },
    line: { type: 'integer' },
    title: { type: 'string' },
    title_path: { type: 'array', items: { type: 'string' }, description: 'Describe blocks, then the title.' },
    tags: { type: 'array', items: { type: 'string' } },
  },
};

const version = {
  type: 'object',
  required: ['id', 'suite_id', 'version', 'format', 'size', 'sha256', 'files', 'dependencies', 'playwright_version', 'status', 'total_tests', 'created_at'],
  properties: {
    id: { type: 'string' },
    suite_id: { type: 'string' },
    version: { type: 'integer', minimum: 1 },
    format: { type: 'string', enum: ['tar.gz', 'zip'] },
    size: { type: 'integer', description: 'Bytes of the archive as uploaded.' },
    sha256: { type: 'string' },
    files: { type: 'integer' },
    config_file: { type: ['string', 'null'], description: 'The suite’s own playwright.config, at the archive’s root.' },
    dependencies: { type: 'string', enum: ['runner', 'archive'], description: '`runner`: only @playwright/test, the runner’s; `archive`: the archive brings the rest in node_modules.' },
    playwright_version: { type: 'string', description: 'The @playwright/test the runner runs it with.' },
    fully_parallel: { type: 'boolean' },
    status: {
      type: 'string',
      enum: ['listing', 'ready', 'invalid'],
      description: '`ready`: listed, runs may use it. `listing`: stored by a runner that cannot make the box (the chart’s runner pods); a suite-shard process lists its tests, no test yet and runs answer 409. `invalid`: Playwright could not list it (`error`); runs answer 409.',
    },
    error: { type: ['string', 'null'], description: 'Why an `invalid` version could not be listed (Playwright’s message).' },
    projects: { type: 'array', items: { type: 'string' }, description: 'The playwright.config project names it was uploaded with (empty: its Chromium projects).' },
    listed_at: { type: ['string', 'null'], format: 'date-time', description: 'When its listing ended (null while `listing`).' },
    total_tests: { type: 'integer' },
    tests: { type: 'array', items: suiteTest, description: 'What `playwright test --list` finds (in the runs’ projects).' },
    created_at: timestamp,
  },
};

const suite = {
  type: 'object',
  required: ['id', 'project_id', 'name', 'projects', 'latest_version', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string' },
    project_id: { type: 'string' },
    name: { type: 'string' },
    projects: { type: 'array', items: { type: 'string' }, description: 'The playwright.config projects runs use (empty: its Chromium projects).' },
    latest_version: { type: 'integer' },
    created_at: timestamp,
    updated_at: timestamp,
  },
};

/** Playwright suites: uploads, versions, the suite page. */
export const suiteSchemas: Record<string, JsonSchema> = {
  Suite: suite,
  SuiteUploaded: { ...suite, required: [...suite.required, 'version'], properties: { ...suite.properties, version } },
  SuiteVersion: version,
  SuiteList: { type: 'object', required: ['data', 'pagination'], properties: { data: { type: 'array', items: { $ref: 'Suite' } }, pagination: { $ref: 'Pagination' } } },
  SuiteVersionList: { type: 'object', required: ['data', 'pagination'], properties: { data: { type: 'array', items: { $ref: 'SuiteVersion' } }, pagination: { $ref: 'Pagination' } } },
  SuitePage: {
    type: 'object',
    required: [...suite.required, 'latest', 'last_runs', 'slowest_tests', 'flaky_tests'],
    properties: {
      ...suite.properties,
      latest: { oneOf: [version, { type: 'null' }] },
      last_runs: { type: 'array', items: { type: 'object' }, description: 'The ten newest runs: status, counts, shards.' },
      slowest_tests: { type: 'array', items: { type: 'object' }, description: 'Mean and longest duration over the last 20 runs, ten slowest.' },
      flaky_tests: { type: 'array', items: { type: 'object' }, description: 'Tests that passed on a retry (`flaky`) or both passed and failed in the last 20 runs.' },
    },
  },
};
