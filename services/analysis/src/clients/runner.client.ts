import { notFound } from '@assay/http';
import type { Step } from '@assay/steps';
import type { Fingerprint } from '../relocation/fingerprint.js';
import type { InternalClient } from '@assay/internal-client';

export interface RunTestResult {
  test_id: string;
  name: string;
  position: number;
  priority: string;
  status: 'pending' | 'running' | 'passed' | 'failed' | 'skipped';
  duration_ms: number | null;
  error: string | null;
  error_step: number | null;
  test_case_version: string;
  steps: Step[];
  step_results: Array<{ step_id: string; name: string; status: string; duration_ms: number; error?: string }>;
  screenshot: string | null;
  trace: string | null;
  started_at: string | null;
  completed_at: string | null;
}

/** An execution as the runner holds it, with what a re-run needs. */
export interface RunContext {
  id: string;
  project_id: string;
  project_name: string;
  test_plan_id: string;
  test_plan_name: string;
  status: 'queued' | 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';
  environment: string | null;
  base_url: string;
  /** May hold secrets: used for re-runs only, never stored or logged. */
  variables: Record<string, string>;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  test_results: RunTestResult[];
}

export interface StepFingerprint {
  step_id: string;
  selector?: string;
  fingerprint: Fingerprint & { dom_path?: string };
}

export interface FailedRequest {
  method: string;
  url: string;
  type?: string;
  step?: number;
  status?: number;
  error?: string;
}

export interface Diagnostics {
  failed_step?: { index: number; step_id: string; action: string; selector?: string; value?: string; description?: string; timeout?: number; error_type: string };
  page_url?: string;
  html?: string;
  /** Over 200 kB even with script bodies and hidden subtrees emptied: cut, and the snapshot check is skipped. */
  html_truncated?: boolean;
  /** What the runner emptied to fit the page in 200 kB (elements stay at their XPath). */
  html_fitted?: Array<'scripts' | 'hidden'>;
  console_errors?: string[];
  page_errors?: Array<{ message: string; step: number }>;
  failed_requests?: FailedRequest[];
  fingerprints?: StepFingerprint[];
  selector_state?: { selector: string; count: number; visible?: boolean; enabled?: boolean; fingerprint?: Fingerprint };
  candidates?: Fingerprint[];
  /** A failed `assert_screenshot`: the share of differing pixels, their regions and the images' URLs. */
  visual?: { result: string; browser: string; viewport: string; name?: string; diff_pixels?: number; diff_ratio?: number; regions?: Array<{ x: number; y: number; width: number; height: number; pixels: number }>; size_changed?: { expected: string; actual: string }; actual_url?: string; expected_url?: string; diff_url?: string };
}

export const TERMINAL = ['completed', 'failed', 'cancelled'];

/** A finished plan execution with its raw results, as reports count them. */
export interface ReportExecution {
  id: string;
  test_plan_id: string;
  test_plan_name: string;
  environment: string | null;
  status: 'completed' | 'failed';
  started_at: string | null;
  completed_at: string;
  tests: Array<{
    test_id: string;
    name: string;
    status: 'pending' | 'running' | 'passed' | 'failed' | 'skipped';
    duration_ms: number | null;
    completed_at: string | null;
    steps: Array<{ step_id: string; action: string | null; selector: string | null; status: 'passed' | 'failed' | 'skipped'; duration_ms: number }>;
  }>;
}

/** The execution-runner's internal routes. */
export class RunnerClient {
  constructor(private readonly http: InternalClient) {}

  /** The execution, or undefined when the organization has no such execution. @throws AppError 503. */
  async execution(orgId: string, id: string): Promise<RunContext | undefined> {
    return this.http.expect<'execution', RunContext, undefined>('execution', { org: orgId, params: { execution_id: id } }, { 404: () => undefined });
  }

  /**
   * Finished plan executions of a project that ended in [from, to), with their results.
   * @throws AppError 400 when the period holds too many executions, 503 when the runner is unreachable.
   */
  async reportResults(orgId: string, q: { projectId: string; from: Date; to: Date; testPlanIds?: string[]; environments?: string[] }): Promise<ReportExecution[]> {
    const query = {
      project_id: q.projectId,
      from: q.from.toISOString(),
      to: q.to.toISOString(),
      ...(q.testPlanIds?.length ? { test_plan_ids: q.testPlanIds.join(',') } : {}),
      ...(q.environments?.length ? { environments: q.environments.join(',') } : {}),
    };
    const r = await this.http.expect<'reportResults', { executions: ReportExecution[] }>('reportResults', { org: orgId, query });
    return r.executions;
  }

  async fingerprints(orgId: string, id: string): Promise<Array<{ test_id: string; status: string; fingerprints: StepFingerprint[] }>> {
    const r = await this.http.expect<'executionFingerprints', { tests: Array<{ test_id: string; status: string; fingerprints: StepFingerprint[] }> }>('executionFingerprints', { org: orgId, params: { execution_id: id } });
    return r.tests;
  }

  /** The stored diagnostics of a test of the execution (the first result when a plan holds the case twice). */
  async diagnostics(orgId: string, id: string, testId: string, position?: number): Promise<Diagnostics> {
    const r = await this.http.expect<'testDiagnostics', { results: Array<{ position: number; diagnostics: Diagnostics | null }> }>('testDiagnostics', { org: orgId, params: { execution_id: id, test_id: testId } }, {
      404: () => {
        throw notFound('Test result');
      },
    });
    const match = r.results.find((x) => position === undefined || x.position === position) ?? r.results[0];
    return match?.diagnostics ?? {};
  }
}
