import { request } from 'undici';
import { AppError, notFound } from '@assay/http';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import type { SnapshotCase } from '../db/database.js';

/** A discovery session's flows as test cases, generated in memory (nothing saved). */
export interface SessionCases {
  session_id: string;
  project_id: string;
  test_cases: Array<Omit<SnapshotCase, 'id' | 'steps'> & { flow_id: string; steps: Array<Omit<SnapshotCase['steps'][number], 'step_id'>> }>;
}

/** Asks discovery-crawler for a session's generated test cases, acting for the caller's organization. */
export class DiscoveryClient {
  constructor(
    private readonly baseUrl: string,
    private readonly internalTokenSecret: string,
  ) {}

  /**
   * @throws AppError 404 for a session the organization does not have, 409 while
   * it has detected no flows, 503 when discovery-crawler is unreachable.
   */
  async sessionCases(orgId: string, sessionId: string): Promise<SessionCases> {
    const token = await signPrincipal(this.internalTokenSecret, { ...servicePrincipal('execution-runner'), org_id: orgId });
    let res;
    try {
      res = await request(`${this.baseUrl}/internal/sessions/${encodeURIComponent(sessionId)}/test-cases`, { headers: { [PRINCIPAL_HEADER]: token }, headersTimeout: 10_000, bodyTimeout: 30_000 });
    } catch {
      throw new AppError(503, 'service_unavailable', 'The discovery service is unavailable; try again shortly');
    }
    const body = (await res.body.json().catch(() => ({}))) as SessionCases & { message?: string };
    if (res.statusCode === 404) throw notFound('Discovery session');
    if (res.statusCode === 409) throw new AppError(409, 'conflict', body.message ?? 'The session has detected no flows yet');
    if (res.statusCode !== 200) throw new AppError(503, 'service_unavailable', `The discovery service answered ${res.statusCode}`);
    return body;
  }
}
