import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { DefaultTimestamp, Json, NullableTimestamp } from '@assay/db';
import type { OutboxTables } from '@assay/bus';

/**
 * `waiting`: the execution runs; `pending`: it ended and awaits analysis;
 * `running`: a worker holds it (lease); `completed`; `failed` (after retries).
 */
export type AnalysisStatus = 'waiting' | 'pending' | 'running' | 'completed' | 'failed';

export interface AnalysisTable {
  /** The execution's id. */
  id: string;
  org_id: string;
  project_id: string | null;
  status: Generated<AnalysisStatus>;
  attempts: Generated<number>;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  not_before: DefaultTimestamp;
  error: string | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
  completed_at: NullableTimestamp;
}

export type SuggestionState = 'none' | 'unverified' | 'offered' | 'applied' | 'rejected';

/** What apply needs: the verified selector and the steps it replaces, as the failed run had them. */
export interface Suggestion {
  selector: string;
  expected_selector: string;
  step_ids: string[];
  candidate_signature: string;
  verified: boolean;
  /** The test case's steps as the failed run ran them: apply refuses when the case changed since. */
  steps: unknown[];
  /** Later broken steps of the case, healed in the same verified re-run: applied with it, in order. */
  also?: Array<{ selector: string; expected_selector: string; step_ids: string[]; candidate_signature: string }>;
}

export interface AnalysisItemTable {
  id: Generated<string>;
  execution_id: string;
  org_id: string;
  project_id: string;
  test_case_id: string;
  test_name: string;
  position: number;
  step_id: string | null;
  category: string;
  triage_type: string;
  confidence: number;
  description: string;
  /** One sentence of what changed, in a tester's words (null for items older than issue 31). */
  summary: Generated<string | null>;
  /** One sentence of what to do. */
  next_step: Generated<string | null>;
  evidence: Json<Record<string, unknown>>;
  fix_suggestions: Json<string[]>;
  suggestion: Json<Suggestion> | null;
  suggestion_state: Generated<SuggestionState>;
  issue_id: string | null;
  created_at: DefaultTimestamp;
  applied_at: NullableTimestamp;
  rejected_at: NullableTimestamp;
}

export interface TestRunTable {
  execution_id: string;
  test_case_id: string;
  org_id: string;
  project_id: string;
  test_plan_id: string;
  /** '' when the run named no environment. */
  environment: string;
  test_case_version: string;
  status: 'passed' | 'failed';
  completed_at: Date;
}

export interface KnownElementTable {
  org_id: string;
  project_id: string;
  test_case_id: string;
  step_id: string;
  selector: string;
  page_url: string | null;
  fingerprint: Json<Record<string, unknown>>;
  execution_id: string;
  seen_at: Date;
}

export interface RejectionTable {
  org_id: string;
  test_case_id: string;
  step_id: string;
  candidate_signature: string;
  selector: string;
  reason: string | null;
  item_id: string;
  rejected_at: DefaultTimestamp;
}

export type IssueStatus = 'open' | 'acknowledged' | 'resolved' | 'ignored';

export interface IssueTable {
  id: Generated<string>;
  org_id: string;
  project_id: string;
  signature: string;
  test_case_id: string;
  test_name: string;
  step_id: string | null;
  step_index: number | null;
  step_description: string | null;
  category: string;
  triage_type: string;
  normalized_error: string;
  title: string;
  status: Generated<IssueStatus>;
  occurrences: Generated<number>;
  reopened_count: Generated<number>;
  first_seen: Date;
  last_seen: Date;
  last_execution_id: string;
  latest_item_id: string;
  flakiness: Json<Record<string, unknown>> | null;
  resolved_at: NullableTimestamp;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface IssueOccurrenceTable {
  issue_id: string;
  execution_id: string;
  item_id: string;
  org_id: string;
  occurred_at: Date;
  category: string;
  error: string | null;
  confidence: number;
}

export type EnrichmentStatus = 'pending' | 'running' | 'completed' | 'skipped' | 'failed';

export interface EnrichmentTable {
  session_id: string;
  org_id: string;
  project_id: string | null;
  status: Generated<EnrichmentStatus>;
  attempts: Generated<number>;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  not_before: DefaultTimestamp;
  result: Json<Record<string, unknown>> | null;
  error: string | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface AnalysisDatabase extends OutboxTables {
  analyses: AnalysisTable;
  analysis_items: AnalysisItemTable;
  report_definitions: ReportDefinitionTable;
  report_snapshots: ReportSnapshotTable;
  test_runs: TestRunTable;
  known_elements: KnownElementTable;
  rejections: RejectionTable;
  issues: IssueTable;
  issue_occurrences: IssueOccurrenceTable;
  enrichments: EnrichmentTable;
}

export type AnalysisRow = Selectable<AnalysisTable>;
export type AnalysisItemRow = Selectable<AnalysisItemTable>;
export type NewAnalysisItemRow = Insertable<AnalysisItemTable>;
export type IssueRow = Selectable<IssueTable>;
export type EnrichmentRow = Selectable<EnrichmentTable>;

export interface ReportFilters {
  test_plan_ids?: string[];
  environments?: string[];
  /** Results of cases carrying any of these tags when the snapshot is taken. */
  tags?: string[];
}

/** `last_days`: the days up to the snapshot; `from`/`to`: a fixed range. */
export interface ReportPeriod {
  last_days?: number;
  from?: string;
  to?: string;
}

type NullableText = ColumnType<string | null, string | null | undefined, string | null>;

export interface ReportDefinitionTable {
  id: Generated<string>;
  org_id: string;
  project_id: string;
  name: string;
  kind: string;
  filters: Json<ReportFilters>;
  period: Json<ReportPeriod>;
  /** A five-field cron and its IANA time zone; both null without a schedule. */
  schedule_cron: NullableText;
  schedule_timezone: NullableText;
  next_snapshot_at: NullableTimestamp;
  last_snapshot_at: NullableTimestamp;
  last_schedule_error: NullableText;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface ReportSnapshotTable {
  id: Generated<string>;
  report_id: string;
  org_id: string;
  project_id: string;
  /** The definition as it was when the snapshot was taken. */
  definition: Json<Record<string, unknown>>;
  period_from: Date;
  period_to: Date;
  data: Json<Record<string, unknown>>;
  trigger: ColumnType<'manual' | 'schedule', 'manual' | 'schedule' | undefined, never>;
  scheduled_for: NullableTimestamp;
  created_at: DefaultTimestamp;
}

export type ReportDefinitionRow = Selectable<ReportDefinitionTable>;
export type ReportSnapshotRow = Selectable<ReportSnapshotTable>;
