import type { Dispatcher } from 'undici';
import type { InternalProject, PlanSnapshot, SnapshotCase } from '@assay/contracts';
import { notFound } from '@assay/http';
import { InternalClient } from '@assay/internal-client';

export type { PlanSnapshot } from '@assay/contracts';

export interface SavedCase {
  id: string;
  name: string;
  description?: string;
  tags?: string[];
  steps: SnapshotCase['steps'];
}

/** The test-case service's internal routes, acting for the caller's organization. */
export class TestCaseClient {
  private readonly http: InternalClient;

  constructor(baseUrl: string, internalTokenSecret: string, dispatcher?: Dispatcher) {
    this.http = new InternalClient({ caller: 'execution-runner', urls: { 'test-case': baseUrl }, internalTokenSecret, ...(dispatcher ? { dispatcher } : {}) });
  }

  /**
   * @throws AppError 404 for a plan the organization does not have, 503 when test-case is unreachable.
   */
  async snapshot(orgId: string, planId: string): Promise<PlanSnapshot> {
    return this.http.expect('planSnapshot', { org: orgId, params: { test_plan_id: planId } }, {
      404: () => {
        throw notFound('Test plan');
      },
    });
  }

  /**
   * Whether the organization has this project.
   * @throws AppError 404 when it does not, 503 when test-case is unreachable.
   */
  async assertProject(orgId: string, projectId: string): Promise<void> {
    await this.project(orgId, projectId);
  }

  /**
   * The project as test-case holds it (base URL, environments).
   * @throws AppError 404 when the organization has no such project, 503 when test-case is unreachable.
   */
  async project(orgId: string, projectId: string): Promise<InternalProject> {
    return this.http.expect('project', { org: orgId, params: { project_id: projectId } }, {
      404: () => {
        throw notFound('Project');
      },
    });
  }

  /**
   * A project's variables for a run in `environment`, its secrets in clear (kept in memory by the runner only).
   * @throws AppError 404 for an unknown project, 400 for an unknown environment, 503 when test-case is unreachable.
   */
  async runVariables(orgId: string, projectId: string, environment?: string): Promise<{ variables: Record<string, string>; secrets: Record<string, string> }> {
    return this.http.expect('runVariables', { org: orgId, params: { project_id: projectId }, query: environment ? { environment } : {} }, {
      404: () => {
        throw notFound('Project');
      },
    });
  }

  /**
   * A stored test case and its project (a run of one case).
   * @throws AppError 404 when the organization has no such case, 503 when test-case is unreachable.
   */
  async testCase(orgId: string, id: string): Promise<{ test_case: SnapshotCase & { status: string; project_id: string }; project: InternalProject }> {
    return this.http.expect('testCase', { org: orgId, params: { test_case_id: id } }, {
      404: () => {
        throw notFound('Test case');
      },
    });
  }

  /**
   * Creates a test case keeping the given id and step ids (a saved exploratory
   * run: the fingerprints its run captured stay keyed to them), appended to
   * `testPlanId` when given.
   * @throws AppError 400 with test-case's field errors, 404 for an unknown plan,
   * 409 when a case with that id exists, 503 when test-case is unreachable.
   */
  async createKeepingIds(orgId: string, projectId: string, testCase: SavedCase, testPlanId?: string): Promise<{ id: string; name: string; steps: SnapshotCase['steps'] }> {
    const body = { project_id: projectId, keep_ids: true, test_cases: [testCase], ...(testPlanId !== undefined ? { test_plan_id: testPlanId } : {}) };
    const created = await this.http.expect('createTestCases', { org: orgId, body }, {
      404: () => {
        throw notFound('Test plan');
      },
    });
    return created.test_cases[0]!;
  }
}
