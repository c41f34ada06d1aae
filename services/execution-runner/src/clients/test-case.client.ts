import { request, type Dispatcher } from 'undici';
import { AppError, notFound } from '@assay/http';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import type { SnapshotCase } from '../db/database.js';

export interface PlanSnapshot {
  test_plan: { id: string; name: string; project_id: string };
  project: { id: string; name: string; base_url: string; environments: Record<string, string> };
  test_cases: SnapshotCase[];
}

export interface SavedCase {
  id: string;
  name: string;
  description?: string;
  tags?: string[];
  steps: SnapshotCase['steps'];
}

/** Reads a plan snapshot from the test-case service, acting for the caller's organization. */
export class TestCaseClient {
  constructor(
    private readonly baseUrl: string,
    private readonly internalTokenSecret: string,
    private readonly dispatcher?: Dispatcher,
  ) {}

  /**
   * @throws AppError 404 for a plan the organization does not have, 503 when test-case is unreachable.
   */
  async snapshot(orgId: string, planId: string): Promise<PlanSnapshot> {
    return this.get<PlanSnapshot>(orgId, `/internal/test-plans/${encodeURIComponent(planId)}/snapshot`, 'Test plan');
  }

  /**
   * Whether the organization has this project.
   * @throws AppError 404 when it does not, 503 when test-case is unreachable.
   */
  async assertProject(orgId: string, projectId: string): Promise<void> {
    await this.get(orgId, `/internal/projects/${encodeURIComponent(projectId)}`, 'Project');
  }

  /**
   * The project as test-case holds it (base URL, environments).
   * @throws AppError 404 when the organization has no such project, 503 when test-case is unreachable.
   */
  async project(orgId: string, projectId: string): Promise<PlanSnapshot['project']> {
    return this.get<PlanSnapshot['project']>(orgId, `/internal/projects/${encodeURIComponent(projectId)}`, 'Project');
  }

  /**
   * A project's variables for a run in `environment`, its secrets in clear (kept in memory by the runner only).
   * @throws AppError 404 for an unknown project, 400 for an unknown environment, 503 when test-case is unreachable.
   */
  async runVariables(orgId: string, projectId: string, environment?: string): Promise<{ variables: Record<string, string>; secrets: Record<string, string> }> {
    const q = environment ? `?environment=${encodeURIComponent(environment)}` : '';
    return this.get(orgId, `/internal/projects/${encodeURIComponent(projectId)}/run-variables${q}`, 'Project');
  }

  /**
   * A stored test case and its project (a run of one case).
   * @throws AppError 404 when the organization has no such case, 503 when test-case is unreachable.
   */
  async testCase(orgId: string, id: string): Promise<{ test_case: SnapshotCase & { status: string; project_id: string }; project: PlanSnapshot['project'] }> {
    return this.get(orgId, `/internal/test-cases/${encodeURIComponent(id)}`, 'Test case');
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
    const created = await this.call<{ test_cases: Array<{ id: string; name: string; steps: SnapshotCase['steps'] }> }>(orgId, 'POST', '/internal/test-cases', 'Test plan', body);
    return created.test_cases[0]!;
  }

  private async get<T>(orgId: string, path: string, what: string): Promise<T> {
    return this.call<T>(orgId, 'GET', path, what);
  }

  private async call<T>(orgId: string, method: 'GET' | 'POST', path: string, what: string, body?: unknown): Promise<T> {
    const token = await signPrincipal(this.internalTokenSecret, { ...servicePrincipal('execution-runner'), org_id: orgId });
    let res: Dispatcher.ResponseData;
    try {
      res = await request(`${this.baseUrl}${path}`, {
        method,
        headers: { [PRINCIPAL_HEADER]: token, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        headersTimeout: 10_000,
        bodyTimeout: 30_000,
        ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
      });
    } catch {
      throw new AppError(503, 'service_unavailable', 'The test-case service is unavailable; try again shortly');
    }
    const answer = (await res.body.json().catch(() => ({}))) as T & { message?: string; details?: unknown };
    if (res.statusCode === 404) throw notFound(what);
    // Refusals of what the caller sent (validation, a duplicate) pass through as they are.
    if (res.statusCode === 400 || res.statusCode === 409) {
      throw new AppError(res.statusCode, res.statusCode === 400 ? 'validation_error' : 'conflict', answer.message ?? 'Refused by the test-case service', answer.details as never);
    }
    if (res.statusCode !== 200 && res.statusCode !== 201) throw new AppError(503, 'service_unavailable', `The test-case service answered ${res.statusCode}`);
    return answer;
  }
}
