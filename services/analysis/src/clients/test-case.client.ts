import { AppError, conflict, notFound } from '@assay/http';
import type { InternalClient } from './internal.client.js';

/** The test-case service's internal routes. */
export class TestCaseClient {
  constructor(private readonly http: InternalClient) {}

  /**
   * Whether the organization has this project.
   * @throws AppError 404 when it does not (another organization's project answers as an unknown one), 503.
   */
  async assertProject(orgId: string, projectId: string): Promise<void> {
    const r = await this.http.call(orgId, 'GET', `/internal/projects/${encodeURIComponent(projectId)}`);
    if (r.status === 404) throw notFound('Project');
    if (r.status !== 200) throw new AppError(503, 'service_unavailable', `The test-case service answered ${r.status}`);
  }

  /**
   * The ids of the project's cases (deleted ones too) that carry any of the tags now.
   * @throws AppError 404 (project gone), 503.
   */
  async taggedTestCaseIds(orgId: string, projectId: string, tags: string[]): Promise<string[]> {
    const r = await this.http.call<{ test_case_ids?: string[] }>(orgId, 'GET', `/internal/projects/${encodeURIComponent(projectId)}/tagged-test-cases?${new URLSearchParams(tags.map((t): [string, string] => ['tags', t]))}`);
    if (r.status === 404) throw notFound('Project');
    if (r.status !== 200 || !r.body.test_case_ids) throw new AppError(503, 'service_unavailable', `The test-case service answered ${r.status}`);
    return r.body.test_case_ids;
  }

  /**
   * A project's variables and secrets (in clear) for a run in `environment`: what a verification re-run substitutes.
   * Empty when the project is gone. @throws AppError 503.
   */
  async runVariables(orgId: string, projectId: string, environment: string | null): Promise<{ variables: Record<string, string>; secrets: Record<string, string> }> {
    const q = environment ? `?environment=${encodeURIComponent(environment)}` : '';
    const r = await this.http.call<{ variables?: Record<string, string>; secrets?: Record<string, string> }>(orgId, 'GET', `/internal/projects/${encodeURIComponent(projectId)}/run-variables${q}`);
    if (r.status === 404 || r.status === 400) return { variables: {}, secrets: {} };
    if (r.status !== 200) throw new AppError(503, 'service_unavailable', `The test-case service answered ${r.status}`);
    return { variables: r.body.variables ?? {}, secrets: r.body.secrets ?? {} };
  }

  /**
   * Writes a verified selector into a case.
   * @throws AppError 404 (case gone), 409 (the case changed since the run), 503.
   */
  async replaceSelector(orgId: string, testCaseId: string, body: { step_ids: string[]; from: string; to: string; expected_steps: unknown[]; execution_id: string }): Promise<Record<string, unknown>> {
    const r = await this.http.call<{ test_case?: Record<string, unknown>; message?: string }>(orgId, 'POST', `/internal/test-cases/${encodeURIComponent(testCaseId)}/replace-selector`, {
      ...body,
      source: 'failure-analysis',
    });
    if (r.status === 404) throw notFound('Test case');
    if (r.status === 409) throw conflict(r.body.message ?? 'The test case changed since the failed run');
    if (r.status !== 200 || !r.body.test_case) throw new AppError(503, 'service_unavailable', `The test-case service answered ${r.status}`);
    return r.body.test_case;
  }
}
