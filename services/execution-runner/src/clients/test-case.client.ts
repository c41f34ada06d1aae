import { request, type Dispatcher } from 'undici';
import { AppError, notFound } from '@assay/http';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import type { SnapshotCase } from '../db/database.js';

export interface PlanSnapshot {
  test_plan: { id: string; name: string; project_id: string };
  project: { id: string; name: string; base_url: string; environments: Record<string, string> };
  test_cases: SnapshotCase[];
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

  private async get<T>(orgId: string, path: string, what: string): Promise<T> {
    const token = await signPrincipal(this.internalTokenSecret, { ...servicePrincipal('execution-runner'), org_id: orgId });
    let res: Dispatcher.ResponseData;
    try {
      res = await request(`${this.baseUrl}${path}`, {
        headers: { [PRINCIPAL_HEADER]: token },
        headersTimeout: 10_000,
        bodyTimeout: 30_000,
        ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
      });
    } catch {
      throw new AppError(503, 'service_unavailable', 'The test-case service is unavailable; try again shortly');
    }
    const body = (await res.body.json().catch(() => ({}))) as T;
    if (res.statusCode === 404) throw notFound(what);
    if (res.statusCode !== 200) throw new AppError(503, 'service_unavailable', `The test-case service answered ${res.statusCode}`);
    return body;
  }
}
