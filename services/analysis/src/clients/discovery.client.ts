import type { InternalClient } from '@assay/internal-client';

export interface DiscoveryPage {
  url: string;
  title: string;
  status_code: number;
  headings: Array<{ selector: string; text: string }>;
  forms: Array<{ selector: string; method: string; action: string; submit: string | null; submit_text?: string; fields: Array<{ tag: string; type: string; name: string; selector: string; label: string; autocomplete: string }> }>;
  lists: Array<{ selector: string; items: number; kind: string }>;
}

export interface DiscoverySessionInput {
  session_id: string;
  project_id: string;
  target_url: string;
  status: string;
  enable_ai_analysis: boolean;
  pages: DiscoveryPage[];
  flows: Array<{ flow_id: string; type: string; pages: string[]; steps: Array<{ action: string; url?: string; selector?: string; value?: string }>; confidence: number; evidence: string[] }>;
  api_endpoints: Array<{ method: string; endpoint: string; status_code: number }>;
}

/** The discovery-crawler's internal routes. */
export class DiscoveryClient {
  constructor(private readonly http: InternalClient) {}

  /** The session's crawl evidence, or undefined when it is gone. @throws AppError 503. */
  async session(orgId: string, id: string): Promise<DiscoverySessionInput | undefined> {
    return this.http.expect<'sessionEvidence', DiscoverySessionInput, undefined>('sessionEvidence', { org: orgId, params: { session_id: id } }, { 404: () => undefined });
  }

  /** Stores the enrichment with the session. @throws AppError 503. */
  async storeEnrichment(orgId: string, id: string, enrichment: Record<string, unknown>): Promise<void> {
    await this.http.expect('storeEnrichment', { org: orgId, params: { session_id: id }, body: enrichment });
  }
}
