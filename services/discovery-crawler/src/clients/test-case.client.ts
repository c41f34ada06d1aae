import { request, type Dispatcher } from 'undici';
import type { Step } from '@assay/contracts';
import { AppError, notFound } from '@assay/http';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';

export interface ProjectInfo {
  id: string;
  name: string;
  base_url: string;
}

export interface GeneratedCase {
  name: string;
  description: string;
  priority: 'critical' | 'high' | 'medium' | 'low';
  tags: string[];
  /** Steps before test-case assigns their ids. */
  steps: Array<Omit<Step, 'step_id' | 'timeout'>>;
}

/** Calls test-case's internal API, acting for one organization. */
export class TestCaseClient {
  constructor(
    private readonly baseUrl: string,
    private readonly internalTokenSecret: string,
    private readonly dispatcher?: Dispatcher,
  ) {}

  private async call(orgId: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const token = await signPrincipal(this.internalTokenSecret, { ...servicePrincipal('discovery-crawler'), org_id: orgId });
    try {
      const res = await request(`${this.baseUrl}${path}`, {
        method,
        headers: { [PRINCIPAL_HEADER]: token, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        headersTimeout: 10_000,
        bodyTimeout: 30_000,
        ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
      });
      return { status: res.statusCode, body: await res.body.json().catch(() => ({})) };
    } catch {
      throw new AppError(503, 'service_unavailable', 'The test-case service is unavailable; try again shortly');
    }
  }

  /** @throws AppError 404 for a project the organization does not have, 503 when test-case is unreachable. */
  async project(orgId: string, projectId: string): Promise<ProjectInfo> {
    const res = await this.call(orgId, 'GET', `/internal/projects/${encodeURIComponent(projectId)}`);
    if (res.status === 404) throw notFound('Project');
    if (res.status !== 200) throw new AppError(503, 'service_unavailable', `The test-case service answered ${res.status}`);
    return res.body as ProjectInfo;
  }

  /**
   * Creates test cases in a project, appended to `testPlanId` when given.
   * @throws AppError 404 for an unknown project or plan, 400 for a plan of another project.
   */
  async createTestCases(orgId: string, projectId: string, cases: GeneratedCase[], testPlanId?: string): Promise<unknown[]> {
    const res = await this.call(orgId, 'POST', '/internal/test-cases', { project_id: projectId, test_cases: cases, ...(testPlanId ? { test_plan_id: testPlanId } : {}) });
    if (res.status === 404 || res.status === 400) throw new AppError(res.status, res.body.error ?? 'validation_error', res.body.message ?? 'rejected by test-case', res.body.details);
    if (res.status !== 201) throw new AppError(503, 'service_unavailable', `The test-case service answered ${res.status}`);
    return res.body.test_cases as unknown[];
  }
}
