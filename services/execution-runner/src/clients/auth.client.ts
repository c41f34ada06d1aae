import type { Dispatcher } from 'undici';
import type { Entitlements } from '@assay/contracts';
import { InternalClient } from '@assay/internal-client';

export type { Entitlements } from '@assay/contracts';

/** Asks auth what an organization may start now (its plan's API access and the quotas it used up). */
export class AuthClient {
  private readonly http: InternalClient;

  constructor(baseUrl: string, internalTokenSecret: string, dispatcher?: Dispatcher) {
    this.http = new InternalClient({ caller: 'execution-runner', urls: { auth: baseUrl }, internalTokenSecret, ...(dispatcher ? { dispatcher } : {}) });
  }

  /**
   * The organization's entitlements, or null when auth does not know it.
   * @throws AppError 503 when auth cannot be reached or answers unexpectedly (the caller retries later).
   */
  async entitlements(orgId: string): Promise<Entitlements | null> {
    return this.http.expect('entitlements', { params: { org_id: orgId } }, { 404: () => null });
  }
}
