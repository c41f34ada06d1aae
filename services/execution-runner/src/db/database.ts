import type { ColumnType, Generated, Selectable } from 'kysely';
import type { DefaultTimestamp, NullableTimestamp, Json } from '@assay/db';
import type { OutboxTables } from '@assay/bus';
import type { Step, VisualOutcome } from '@assay/steps';

export type ExecutionStatus = 'queued' | 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';
export const TERMINAL: readonly ExecutionStatus[] = ['completed', 'failed', 'cancelled'];
export type TraceMode = 'off' | 'on' | 'retain-on-failure';
export type ResultStatus = 'pending' | 'running' | 'passed' | 'failed' | 'skipped';


/** A test case as a run snapshots it: the internal catalogue's (test-case answers it). */
export type { SnapshotCase } from '@assay/contracts';

export interface StepOutcome {
  step_id: string;
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  duration_ms: number;
  error?: string;
  screenshot_artifact_id?: string;
  /** `assert_screenshot`: the baseline it stored or matched, or the mismatch with its images (artifact ids). */
  visual?: VisualOutcome;
  /** A Playwright step of a suite test: `test.step`, `pw:api` (an action) or `expect`, and how deep in test.steps it sits. */
  category?: string;
  depth?: number;
  /** A failed `assert_accessible`: the standard, the impact floor and each violation (rule, impact, help URL, nodes). */
  accessibility?: { standard: string; min_impact: string; violations: Array<{ rule: string; impact: string | null; help: string; help_url: string; nodes: string[] }> };
}

export interface ExecutionTable {
  id: Generated<string>;
  org_id: string;
  project_id: string;
  project_name: string;
  test_plan_id: string;
  test_plan_name: string;
  status: Generated<ExecutionStatus>;
  environment: string | null;
  base_url: string;
  variables: Json<Record<string, string>>;
  timeout_seconds: number;
  trace: Generated<TraceMode>;
  /** The plan's history period when the run was created: its artifacts expire after it. */
  history_days: Generated<number>;
  total_tests: number;
  passed_tests: Generated<number>;
  failed_tests: Generated<number>;
  skipped_tests: Generated<number>;
  error: string | null;
  attempts: Generated<number>;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  created_at: DefaultTimestamp;
  started_at: NullableTimestamp;
  completed_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
  cancellation_reason: string | null;
  /** `plan`: a run of a test plan; `run`: an exploratory test run (its steps came with the request; test_plan_id is the run's own id). */
  kind: Generated<ExecutionKind>;
  /** The exploratory run's name (runs only). */
  name: Generated<string | null>;
  /** The discovery session whose flows the run ran (runs only). */
  discovery_session_id: Generated<string | null>;
  /** The test case the run was saved as. */
  saved_test_case_id: Generated<string | null>;
  /** A run of one stored test case (kind `run`): that case. */
  test_case_id: Generated<string | null>;
  /** A re-run: the execution whose (failed) cases it runs again. */
  rerun_of: Generated<string | null>;
  /** A suite run: the version it runs and its options (grep, project, shards, retries). */
  suite_version_id: Generated<string | null>;
  suite_options: ColumnType<SuiteRunOptions | null, string | null | undefined, string | null>;
}

export interface SuiteRunOptions {
  shards: number;
  retries: number | null;
  grep: string | null;
  projects: string[];
  /** `queue`: tests handed out longest first from one queue; `shard`: Playwright's own --shard split. */
  split: 'queue' | 'shard';
}

/** `suite`: a run of a Playwright suite (test_plan_id is the suite's id, test_plan_name its name). */
export type ExecutionKind = 'plan' | 'run' | 'suite';

export interface TestResultTable {
  id: Generated<string>;
  execution_id: string;
  org_id: string;
  position: number;
  test_case_id: string;
  name: string;
  priority: string;
  steps_snapshot: Json<Step[]>;
  status: Generated<ResultStatus>;
  duration_ms: number | null;
  error: string | null;
  error_step: number | null;
  screenshot_artifact_id: string | null;
  trace_artifact_id: Generated<string | null>;
  steps: Json<StepOutcome[]>;
  diagnostics: Json<Record<string, unknown>> | null;
  started_at: NullableTimestamp;
  completed_at: NullableTimestamp;
  /** A Playwright test of a suite run: its location, attempts, flaky, output and attachments. */
  suite_test: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
}

export interface ArtifactTable {
  id: Generated<string>;
  org_id: string;
  /** null for files uploaded for `upload` steps. */
  execution_id: string | null;
  /** `baseline`: an `assert_screenshot` baseline's PNG (no execution, never expires). */
  kind: 'screenshot' | 'trace' | 'upload' | 'baseline' | 'attachment';
  content_type: string;
  /** The uploaded file's name (uploads only). */
  filename: string | null;
  data: Buffer;
  size: number;
  created_at: DefaultTimestamp;
  /** Null for uploaded files: kept until deleted. */
  expires_at: Date | null;
}

export interface ArtifactUsageTable {
  org_id: string;
  bytes: Generated<string>;
}

export interface ExecutionEventTable {
  seq: Generated<number>;
  execution_id: string;
  type: string;
  data: Json<Record<string, unknown>>;
  created_at: DefaultTimestamp;
}

export interface ScheduleTable {
  id: Generated<string>;
  org_id: string;
  test_plan_id: string;
  project_id: string;
  /** Five fields, read in `timezone`. */
  cron: string;
  timezone: string;
  environment: string | null;
  variables: Json<Record<string, string>>;
  enabled: boolean;
  /** The next occurrence to fire; null while disabled. */
  next_run_at: NullableTimestamp;
  last_run_at: NullableTimestamp;
  last_execution_id: string | null;
  last_error: string | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface ScheduleRunTable {
  schedule_id: string;
  scheduled_for: DefaultTimestamp;
  status: 'started' | 'skipped';
  execution_id: string | null;
  reason: string | null;
  missed_occurrences: Generated<number>;
  created_at: DefaultTimestamp;
}

export interface ScreenshotBaselineTable {
  id: Generated<string>;
  org_id: string;
  project_id: string;
  test_case_id: string;
  step_id: string;
  name: string | null;
  browser: string;
  /** `WIDTHxHEIGHT`. */
  viewport: string;
  artifact_id: string;
  width: number;
  height: number;
  size: number;
  /** `first_run`: stored by the first passing run; `approved`: a failed run's capture accepted through the API. */
  origin: 'first_run' | 'approved';
  source_execution_id: string | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export type ScreenshotBaselineRow = Selectable<ScreenshotBaselineTable>;

/** One test as a suite version lists it (`playwright test --list`). */
export interface SuiteTest {
  /** Our id of the test (a UUID from the suite, project, file and title path): the result's test_id across runs. */
  id: string;
  project: string;
  file: string;
  line: number;
  title_path: string[];
  tags: string[];
  /** The line Playwright's --test-list reads: `[project] › file › describe › title`. */
  list_line: string;
  /** sha256 of its spec file (its version, for flakiness). */
  file_sha: string;
}

export interface SuiteTable {
  id: Generated<string>;
  org_id: string;
  project_id: string;
  project_name: string;
  name: string;
  /** playwright.config project names a run uses unless it names others (empty: the config's Chromium projects). */
  projects: Json<string[]>;
  latest_version: Generated<number>;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface SuiteVersionTable {
  id: Generated<string>;
  suite_id: string;
  org_id: string;
  version: number;
  format: 'tar.gz' | 'zip';
  archive: Buffer;
  size: number;
  sha256: string;
  files: number;
  config_file: string | null;
  /** `runner`: @playwright/test only, the runner's; `archive`: the archive brings node_modules. */
  dependencies: string;
  fully_parallel: Generated<boolean>;
  tests: Json<SuiteTest[]>;
  /** `listing`: stored, its tests not listed yet (a suite-shard process lists it); `invalid`: Playwright could not list it (`error`). */
  status: Generated<SuiteVersionStatus>;
  error: string | null;
  /** The playwright.config project names it was uploaded with (its listing's). */
  projects: Json<string[]>;
  /** The listing's lease (LeasedTable): the process listing it, until when, and how many took it. */
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  attempts: Generated<number>;
  listed_at: NullableTimestamp;
  created_at: DefaultTimestamp;
}

export type SuiteVersionStatus = 'listing' | 'ready' | 'invalid';

export interface SuiteShardTable {
  execution_id: string;
  shard: number;
  status: Generated<'queued' | 'running' | 'done' | 'failed'>;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  attempts: Generated<number>;
  error: string | null;
  started_at: NullableTimestamp;
  completed_at: NullableTimestamp;
}

export interface SuiteUnitTable {
  execution_id: string;
  position: number;
  expected_ms: number;
  /** --test-list lines of its tests. */
  lines: Json<string[]>;
  /** test_results ids of its tests. */
  result_ids: Json<string[]>;
  shard: number | null;
  taken_at: NullableTimestamp;
}

export type SuiteRow = Selectable<SuiteTable>;
export type SuiteVersionRow = Selectable<SuiteVersionTable>;

export interface ExecutionDatabase extends OutboxTables {
  suites: SuiteTable;
  suite_versions: SuiteVersionTable;
  suite_shards: SuiteShardTable;
  suite_units: SuiteUnitTable;
  screenshot_baselines: ScreenshotBaselineTable;
  executions: ExecutionTable;
  test_results: TestResultTable;
  artifacts: ArtifactTable;
  artifact_usage: ArtifactUsageTable;
  execution_events: ExecutionEventTable;
  schedules: ScheduleTable;
  schedule_runs: ScheduleRunTable;
}

export type ScheduleRow = Selectable<ScheduleTable>;

export type ExecutionRow = Selectable<ExecutionTable>;
export type TestResultRow = Selectable<TestResultTable>;
