import type { QuotaType } from './plans.js';
import type { InternalTimeout } from './routes/index.js';
import type { Step } from './steps.js';

export { INTERNAL_ROUTES, type InternalRouteContract, type InternalRouteName, type InternalTimeout } from './routes/index.js';

/** The one timeout policy of internal calls (an entry of `routes/<service>.ts` may name its own). */
export const INTERNAL_TIMEOUT: InternalTimeout = { headersMs: 10_000, bodyMs: 30_000 };

/** A quota the organization has used up this month, as auth reports it. */
export interface ExceededQuota {
  quota: QuotaType;
  used: number;
  limit: number;
  unit: string;
  resets_at: string;
}

/** The principal claims auth resolves a credential to (libs/principal's Principal). */
export interface AuthenticatedPrincipal {
  org_id: string;
  sub: string;
  kind: 'service_key' | 'api_key' | 'session' | 'service';
  role: string;
  scopes: string[];
  plan: string;
  environment?: 'prod' | 'dev';
}

export interface Authentication<P = AuthenticatedPrincipal> {
  principal: P;
  key_id?: string;
  valid_until: string | null;
  /** Monthly quotas the organization has used up. */
  quotas_exceeded?: ExceededQuota[];
}

export interface Entitlements {
  plan: string;
  status: string;
  api_access: boolean;
  quotas_exceeded: ExceededQuota[];
}

export interface InternalProject {
  id: string;
  name: string;
  base_url: string;
  environments: Record<string, string>;
}

/** A test case as a run snapshots it. */
export interface SnapshotCase {
  id: string;
  name: string;
  priority: 'critical' | 'high' | 'medium' | 'low';
  /** The contracts' steps, validated when the case was saved. */
  steps: Step[];
}

export interface PlanSnapshot {
  test_plan: { id: string; name: string; project_id: string };
  project: InternalProject;
  test_cases: SnapshotCase[];
}

/** A case to create: test-case assigns ids unless `keep_ids`. */
export interface NewInternalCase {
  id?: string;
  name: string;
  description?: string;
  priority?: SnapshotCase['priority'];
  tags?: string[];
  steps: Array<Partial<Step> & Pick<Step, 'action'>>;
}

export interface RunVariables {
  variables: Record<string, string>;
  /** In clear: kept in memory by the caller only. */
  secrets: Record<string, string>;
}

/** A discovery session's flows as test cases, generated in memory (nothing saved). */
export interface SessionCases {
  session_id: string;
  project_id: string;
  test_cases: Array<Omit<SnapshotCase, 'id' | 'steps'> & { flow_id: string; steps: Array<Omit<Step, 'step_id'>> }>;
}

/**
 * Request and response of each internal route. `unknown` bodies are answered
 * by routes only tests, the launcher and operators call (their shapes are
 * validated by the serving route).
 */
export interface InternalApi {
  authenticate: { body: { credential: string }; response: Authentication };
  reportUsage: { body: { usage: Array<{ key_id: string; count: number; last_used: string }> }; response: Record<string, never> };
  entitlements: { response: Entitlements };
  administrators: { response: { data: Array<{ email: string; role?: string }> } };
  createOrganization: { body: Record<string, unknown>; response: Record<string, unknown> };
  setOrganizationStatus: { body: { status: 'active' | 'suspended' | 'deleted' }; response: Record<string, unknown> };
  setBilling: { body: Record<string, unknown>; response: Record<string, unknown> };
  bootstrap: { body: Record<string, unknown>; response: { created: boolean } & Record<string, unknown> };
  project: { response: InternalProject };
  taggedTestCases: { query: { tags: string[] }; response: { test_case_ids: string[] } };
  runVariables: { query: { environment?: string }; response: RunVariables };
  createTestCases: {
    body: { project_id: string; test_cases: NewInternalCase[]; test_plan_id?: string; keep_ids?: boolean };
    response: { test_cases: Array<{ id: string; name: string; steps: Step[] } & Record<string, unknown>> };
  };
  testCase: { response: { test_case: SnapshotCase & { status: string; project_id: string }; project: InternalProject } };
  replaceSelector: {
    body: { step_ids: string[]; from: string; to: string; expected_steps: unknown[]; execution_id: string; source: string };
    response: { test_case: Record<string, unknown> };
  };
  planSnapshot: { response: PlanSnapshot };
  /** The analysis service reads it as its DiscoverySessionInput. */
  sessionEvidence: { response: Record<string, unknown> };
  sessionTestCases: { response: SessionCases };
  storeEnrichment: { body: Record<string, unknown>; response: Record<string, unknown> };
  /** The analysis service reads these as its RunContext, fingerprints and Diagnostics. */
  execution: { response: Record<string, unknown> };
  executionFingerprints: { response: { tests: Array<{ test_id: string; status: string; fingerprints: Array<Record<string, unknown>> }> } };
  testDiagnostics: { response: { results: Array<{ position: number; diagnostics: Record<string, unknown> | null }> } };
  reportResults: { query: { project_id: string; from: string; to: string; test_plan_ids?: string; environments?: string }; response: { executions: Array<Record<string, unknown>> } };
}
