import type { QuotaType } from './plans.js';
import type { ServiceName } from './routes.js';
import type { Step } from './steps.js';

/**
 * The service-to-service routes (`/internal/...`), one entry each: the
 * service that serves it, its method and path, and what the one internal
 * client (`libs/internal-client`) may wait for it. A caller names the entry;
 * `InternalApi` gives its request and response types. Adding an internal
 * route means adding its entry here and its types below.
 */
export interface InternalRouteContract {
  service: Exclude<ServiceName, 'gateway'>;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  /** Path template: `{name}` is a path parameter. */
  path: string;
  /** Longer or shorter waits than INTERNAL_TIMEOUT, with the reason. */
  timeout?: InternalTimeout;
}

/** How long a caller waits for the answer's headers and then for its body. */
export interface InternalTimeout {
  headersMs: number;
  bodyMs: number;
}

/** The one timeout policy of internal calls (an entry may name its own). */
export const INTERNAL_TIMEOUT: InternalTimeout = { headersMs: 10_000, bodyMs: 30_000 };

export const INTERNAL_ROUTES = {
  // auth. The gateway asks on every uncached call: a short wait, then 503.
  authenticate: { service: 'auth', method: 'POST', path: '/internal/authenticate', timeout: { headersMs: 5000, bodyMs: 5000 } },
  reportUsage: { service: 'auth', method: 'POST', path: '/internal/usage', timeout: { headersMs: 5000, bodyMs: 5000 } },
  entitlements: { service: 'auth', method: 'GET', path: '/internal/organizations/{org_id}/entitlements' },
  administrators: { service: 'auth', method: 'GET', path: '/internal/organizations/{org_id}/administrators' },
  createOrganization: { service: 'auth', method: 'POST', path: '/internal/organizations' },
  setOrganizationStatus: { service: 'auth', method: 'POST', path: '/internal/organizations/{org_id}/status' },
  setBilling: { service: 'auth', method: 'PATCH', path: '/internal/organizations/{org_id}/billing' },
  bootstrap: { service: 'auth', method: 'POST', path: '/internal/bootstrap' },
  // test-case
  project: { service: 'test-case', method: 'GET', path: '/internal/projects/{project_id}' },
  taggedTestCases: { service: 'test-case', method: 'GET', path: '/internal/projects/{project_id}/tagged-test-cases' },
  runVariables: { service: 'test-case', method: 'GET', path: '/internal/projects/{project_id}/run-variables' },
  createTestCases: { service: 'test-case', method: 'POST', path: '/internal/test-cases' },
  testCase: { service: 'test-case', method: 'GET', path: '/internal/test-cases/{test_case_id}' },
  replaceSelector: { service: 'test-case', method: 'POST', path: '/internal/test-cases/{test_case_id}/replace-selector' },
  planSnapshot: { service: 'test-case', method: 'GET', path: '/internal/test-plans/{test_plan_id}/snapshot' },
  // discovery-crawler
  sessionEvidence: { service: 'discovery-crawler', method: 'GET', path: '/internal/sessions/{session_id}/evidence' },
  sessionTestCases: { service: 'discovery-crawler', method: 'GET', path: '/internal/sessions/{session_id}/test-cases' },
  storeEnrichment: { service: 'discovery-crawler', method: 'PUT', path: '/internal/sessions/{session_id}/enrichment' },
  // execution-runner. A report's period can hold many executions: a longer wait.
  execution: { service: 'execution-runner', method: 'GET', path: '/internal/executions/{execution_id}' },
  executionFingerprints: { service: 'execution-runner', method: 'GET', path: '/internal/executions/{execution_id}/fingerprints' },
  testDiagnostics: { service: 'execution-runner', method: 'GET', path: '/internal/executions/{execution_id}/tests/{test_id}/diagnostics' },
  reportResults: { service: 'execution-runner', method: 'GET', path: '/internal/report-results', timeout: { headersMs: 15_000, bodyMs: 60_000 } },
} as const satisfies Record<string, InternalRouteContract>;

export type InternalRouteName = keyof typeof INTERNAL_ROUTES;

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
