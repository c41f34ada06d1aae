import { AppError, conflict, notFound } from '@assay/http';
import type { InternalClient } from '@assay/internal-client';

/** The test-case service's internal routes. */
export class TestCaseClient {
  constructor(private readonly http: InternalClient) {}

  /**
   * Whether the organization has this project.
   * @throws AppError 404 when it does not (another organization's project answers as an unknown one), 503.
   */
  async assertProject(orgId: string, projectId: string): Promise<void> {
    const r = await this.http.call('project', { org: orgId, params: { project_id: projectId } });
    if (r.status === 404) throw notFound('Project');
    if (r.status !== 200) throw new AppError('service_unavailable', `The test-case service answered ${r.status}`);
  }

  /**
   * The ids of the project's cases (deleted ones too) that carry any of the tags now.
   * @throws AppError 404 (project gone), 503.
   */
  async taggedTestCaseIds(orgId: string, projectId: string, tags: string[]): Promise<string[]> {
    const r = await this.http.call('taggedTestCases', { org: orgId, params: { project_id: projectId }, query: { tags } });
    if (r.status === 404) throw notFound('Project');
    if (r.status !== 200 || !r.body.test_case_ids) throw new AppError('service_unavailable', `The test-case service answered ${r.status}`);
    return r.body.test_case_ids;
  }

  /**
   * A project's variables and secrets (in clear) for a run in `environment`: what a verification re-run substitutes.
   * Empty when the project is gone. @throws AppError 503.
   */
  async runVariables(orgId: string, projectId: string, environment: string | null): Promise<{ variables: Record<string, string>; secrets: Record<string, string> }> {
    const r = await this.http.call('runVariables', { org: orgId, params: { project_id: projectId }, query: environment ? { environment } : {} });
    if (r.status === 404 || r.status === 400) return { variables: {}, secrets: {} };
    if (r.status !== 200) throw new AppError('service_unavailable', `The test-case service answered ${r.status}`);
    return { variables: r.body.variables ?? {}, secrets: r.body.secrets ?? {} };
  }

  /**
   * Writes a verified selector into a case.
   * @throws AppError 404 (case gone), 409 (the case changed since the run), 503.
   */
  async replaceSelector(orgId: string, testCaseId: string, body: { step_ids: string[]; from: string; to: string; expected_steps: unknown[]; execution_id: string }): Promise<Record<string, unknown>> {
    const r = await this.http.call('replaceSelector', { org: orgId, params: { test_case_id: testCaseId }, body: { ...body, source: 'failure-analysis' } });
    if (r.status === 404) throw notFound('Test case');
    if (r.status === 409) throw conflict(r.error.message ?? 'The test case changed since the failed run');
    if (r.status !== 200 || !r.body.test_case) throw new AppError('service_unavailable', `The test-case service answered ${r.status}`);
    return r.body.test_case;
  }
}
