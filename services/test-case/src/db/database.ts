import type { Generated, Insertable, Selectable } from 'kysely';
import type { DefaultTimestamp, Json, NullableTimestamp } from '@assay/db';
import type { OutboxTables } from '@assay/bus';
import type { Step } from '@assay/contracts';

export type TestCaseStatus = 'active' | 'archived';
export type Priority = 'critical' | 'high' | 'medium' | 'low';

export interface ProjectTable {
  id: Generated<string>;
  org_id: string;
  name: string;
  description: string | null;
  base_url: string;
  environments: Json<Record<string, string>>;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface TestCaseTable {
  id: Generated<string>;
  org_id: string;
  project_id: string;
  name: string;
  description: string | null;
  status: Generated<TestCaseStatus>;
  priority: Generated<Priority>;
  steps: Json<Step[]>;
  tags: Generated<string[]>;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
  deleted_at: NullableTimestamp;
}

export interface TestPlanTable {
  id: Generated<string>;
  org_id: string;
  project_id: string;
  name: string;
  description: string | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface TestPlanCaseTable {
  plan_id: string;
  test_case_id: string;
  position: number;
}

export interface ProjectVariableTable {
  project_id: string;
  org_id: string;
  /** '' for every environment; a name of the project's `environments` overrides it there. */
  environment: Generated<string>;
  name: string;
  secret: boolean;
  /** A plain variable's value (null for secrets). */
  value: string | null;
  /** A secret's value, sealed (null for plain variables). */
  ciphertext: string | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface TestCaseDatabase extends OutboxTables {
  projects: ProjectTable;
  test_cases: TestCaseTable;
  test_plans: TestPlanTable;
  test_plan_cases: TestPlanCaseTable;
  project_variables: ProjectVariableTable;
}

export type ProjectVariableRow = Selectable<ProjectVariableTable>;

export type ProjectRow = Selectable<ProjectTable>;
export type TestCaseRow = Selectable<TestCaseTable>;
export type NewTestCaseRow = Insertable<TestCaseTable>;
export type TestPlanRow = Selectable<TestPlanTable>;
