import type { Generated, Selectable } from 'kysely';
import type { DefaultTimestamp, NullableTimestamp, Json } from '@assay/db';
import type { OutboxTables } from '@assay/bus';
import type { Step } from '@assay/steps';

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
}

export type ExecutionKind = 'plan' | 'run';

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
}

export interface ArtifactTable {
  id: Generated<string>;
  org_id: string;
  /** null for files uploaded for `upload` steps. */
  execution_id: string | null;
  kind: 'screenshot' | 'trace' | 'upload';
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

export interface ExecutionDatabase extends OutboxTables {
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
