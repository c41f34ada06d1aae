import type { Dispatcher } from 'undici';
import type { Step } from '@assay/contracts';
import { AppError, notFound } from '@assay/http';
import { InternalClient } from '@assay/internal-client';

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
  private readonly http: InternalClient;

  constructor(baseUrl: string, internalTokenSecret: string, dispatcher?: Dispatcher) {
    this.http = new InternalClient({ caller: 'discovery-crawler', urls: { 'test-case': baseUrl }, internalTokenSecret, ...(dispatcher ? { dispatcher } : {}) });
  }

  /** @throws AppError 404 for a project the organization does not have, 503 when test-case is unreachable. */
  async project(orgId: string, projectId: string): Promise<ProjectInfo> {
    return this.http.expect('project', { org: orgId, params: { project_id: projectId } }, {
      404: () => {
        throw notFound('Project');
      },
    });
  }

  /**
   * Creates test cases in a project, appended to `testPlanId` when given.
   * @throws AppError 404 for an unknown project or plan, 400 for a plan of another project.
   */
  async createTestCases(orgId: string, projectId: string, cases: GeneratedCase[], testPlanId?: string): Promise<unknown[]> {
    const created = await this.http.expect('createTestCases', { org: orgId, body: { project_id: projectId, test_cases: cases, ...(testPlanId ? { test_plan_id: testPlanId } : {}) } }, {
      // The project or the plan: test-case's message names which.
      404: (error) => {
        throw new AppError('not_found', error.message ?? 'The project or test plan was not found');
      },
    });
    return created.test_cases;
  }
}
