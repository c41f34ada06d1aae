import { request, type Dispatcher } from 'undici';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';

export interface Entitlements {
  plan: string;
  status: string;
  api_access: boolean;
  quotas_exceeded: Array<{ quota: string; used: number; limit: number; unit: string; resets_at: string }>;
}

/** Asks auth what an organization may start now (its plan's API access and the quotas it used up). */
export class AuthClient {
  constructor(
    private readonly baseUrl: string,
    private readonly internalTokenSecret: string,
    private readonly dispatcher?: Dispatcher,
  ) {}

  /**
   * The organization's entitlements, or null when auth does not know it.
   * @throws Error when auth cannot be reached or answers unexpectedly (the caller retries later).
   */
  async entitlements(orgId: string): Promise<Entitlements | null> {
    const token = await signPrincipal(this.internalTokenSecret, servicePrincipal('execution-runner'));
    const res = await request(`${this.baseUrl}/internal/organizations/${encodeURIComponent(orgId)}/entitlements`, {
      headers: { [PRINCIPAL_HEADER]: token },
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
      ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
    });
    const body = (await res.body.json().catch(() => undefined)) as Entitlements | undefined;
    if (res.statusCode === 404) return null;
    if (res.statusCode !== 200 || !body) throw new Error(`auth answered ${res.statusCode} for the entitlements of ${orgId}`);
    return body;
  }
}
