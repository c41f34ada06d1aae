import type { Page, Request } from 'playwright-core';
import { normaliseHost, parseAddress, type EgressProxy } from '@assay/egress';

/** A request of the page that the egress policy refused (a blocked subresource does not fail its step). */
export interface BlockedRequest {
  step_id: string;
  url: string;
  method?: string;
  resource_type?: string;
  reason: string;
}

const MAX_ENTRIES = 100;
const REFUSED = /ERR_SOCKS_CONNECTION_FAILED|ERR_PROXY_CONNECTION_FAILED|ERR_TUNNEL_CONNECTION_FAILED|Socks5 proxy rejected/;

const hostKey = (host: string, port: number) => {
  const h = normaliseHost(host);
  return `${parseAddress(h)?.toString() ?? h}:${port}`;
};

function keyOfUrl(url: string): string | undefined {
  try {
    const u = new URL(url);
    const port = u.port ? Number(u.port) : u.protocol === 'https:' || u.protocol === 'wss:' ? 443 : 80;
    return hostKey(u.hostname, port);
  } catch {
    return undefined;
  }
}

/**
 * Pairs the page's failed requests with the refusals of its context's egress
 * proxy, step by step: the proxy knows why (it saw host and port), the page
 * knows which URL.
 */
export class BlockedRequestLog {
  readonly entries: BlockedRequest[] = [];
  private failed: Array<{ url: string; method: string; resource_type: string }> = [];
  /** The last refusal reason per host:port, for requests whose refusal was filed in an earlier step. */
  private readonly reasons = new Map<string, string>();

  constructor(
    page: Page,
    private readonly proxy: EgressProxy,
  ) {
    page.on('requestfailed', (r: Request) => {
      if (this.failed.length < MAX_ENTRIES && REFUSED.test(r.failure()?.errorText ?? '')) this.failed.push({ url: r.url(), method: r.method(), resource_type: r.resourceType() });
    });
  }

  /** Files what was refused since the last call under `stepId`. */
  endStep(stepId: string): void {
    const refusals = this.proxy.takeBlocked();
    const failed = this.failed;
    this.failed = [];
    const used = new Set<number>();
    for (const r of refusals) this.reasons.set(hostKey(r.host, r.port), r.reason);
    for (const f of failed) {
      const key = keyOfUrl(f.url);
      // One refused connection can fail several requests to the same host and port,
      // so a refusal already paired still gives its reason to the next request.
      const i = refusals.findIndex((r, n) => !used.has(n) && hostKey(r.host, r.port) === key);
      if (i >= 0) used.add(i);
      const reason = i >= 0 ? refusals[i]!.reason : key === undefined ? undefined : this.reasons.get(key);
      this.add({ step_id: stepId, ...f, reason: reason ?? 'refused by the egress policy' });
    }
    refusals.forEach((r, n) => {
      if (!used.has(n)) this.add({ step_id: stepId, url: `${r.host}:${r.port}`, reason: r.reason });
    });
  }

  private add(entry: BlockedRequest): void {
    if (this.entries.length < MAX_ENTRIES) this.entries.push(entry);
  }
}
