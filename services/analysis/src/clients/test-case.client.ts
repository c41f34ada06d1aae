import { conflict, notFound } from '@assay/http';
import type { InternalClient } from '@assay/internal-client';

const projectNotFound = () => {
  throw notFound('Project');
};

/** The test-case service's internal routes. */
export class TestCaseClient {
  constructor(private readonly http: InternalClient) {}

  /**
   * Whether the organization has this project.
   * @throws AppError 404 when it does not (another organization's project answers as an unknown one), 503.
   */
  async assertProject(orgId: string, projectId: string): Promise<void> {
    await this.http.expect('project', { org: orgId, params: { project_id: projectId } }, { 404: projectNotFound });
  }

  /**
   * The ids of the project's cases (deleted ones too) that carry any of the tags now.
   * @throws AppError 404 (project gone), 503.
   */
  async taggedTestCaseIds(orgId: string, projectId: string, tags: string[]): Promise<string[]> {
    const r = await this.http.expect('taggedTestCases', { org: orgId, params: { project_id: projectId }, query: { tags } }, { 404: projectNotFound });
    return r.test_case_ids;
  }

  /**
   * A project's variables and secrets (in clear) for a run in `environment`: what a verification re-run substitutes.
   * Empty when the project is gone. @throws AppError 503.
   */
  async runVariables(orgId: string, projectId: string, environment: string | null): Promise<{ variables: Record<string, string>; secrets: Record<string, string> }> {
    // The project gone (404) or its environment (400): nothing to substitute.
    const none = () => ({ variables: {}, secrets: {} });
    const r = await this.http.expect('runVariables', { org: orgId, params: { project_id: projectId }, query: environment ? { environment } : {} }, { 404: none, 400: none });
    return { variables: r.variables ?? {}, secrets: r.secrets ?? {} };
  }

  /**
   * Writes a verified selector into a case.
   * @throws AppError 404 (case gone), 409 (the case changed since the run), 503.
   */
  async replaceSelector(orgId: string, testCaseId: string, body: { step_ids: string[]; from: string; to: string; expected_steps: unknown[]; execution_id: string }): Promise<Record<string, unknown>> {
    const r = await this.http.expect('replaceSelector', { org: orgId, params: { test_case_id: testCaseId }, body: { ...body, source: 'failure-analysis' } }, {
      404: () => {
        throw notFound('Test case');
      },
      409: (error) => {
        throw conflict(error.message ?? 'The test case changed since the failed run');
      },
    });
    return r.test_case;
  }
}
