import type { SessionCases } from '@assay/contracts';
import { AppError, notFound } from '@assay/http';
import { InternalClient } from '@assay/internal-client';

export type { SessionCases } from '@assay/contracts';

/** Asks discovery-crawler for a session's generated test cases, acting for the caller's organization. */
export class DiscoveryClient {
  private readonly http: InternalClient;

  constructor(baseUrl: string, internalTokenSecret: string) {
    this.http = new InternalClient({ caller: 'execution-runner', urls: { 'discovery-crawler': baseUrl }, internalTokenSecret });
  }

  /**
   * @throws AppError 404 for a session the organization does not have, 409 while
   * it has detected no flows, 503 when discovery-crawler is unreachable.
   */
  async sessionCases(orgId: string, sessionId: string): Promise<SessionCases> {
    return this.http.expect('sessionTestCases', { org: orgId, params: { session_id: sessionId } }, {
      404: () => {
        throw notFound('Discovery session');
      },
      409: (error) => {
        throw new AppError('conflict', error.message ?? 'The session has detected no flows yet');
      },
    });
  }
}
