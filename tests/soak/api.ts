/**
 * Every API call of the soak goes through `ApiLog.call`, which records its
 * start, end, status, latency and Retry-After, so the audit can judge each
 * 5xx against the fault windows and the figures can give p50/p99.
 */

export interface CallRecord {
  start: number;
  end: number;
  method: string;
  /** The path with ids replaced by `{id}`. */
  route: string;
  /** HTTP status; 0 when no answer came (connection refused or reset). */
  status: number;
  retryAfter: string | null;
  error?: string;
  /** The start of a 5xx answer's body (which dependency failed, in what way). */
  detail?: string;
  /** The gateway's x-request-id of a 5xx answer (its log lines name it). */
  requestId?: string;
  org: string;
}

export interface Reply {
  status: number;
  body: any;
  headers?: Headers;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

export class ApiLog {
  readonly calls: CallRecord[] = [];
  constructor(readonly baseUrl: string) {}

  async call(
    org: string,
    key: string,
    method: string,
    path: string,
    opts: { body?: unknown; form?: FormData; timeoutMs?: number } = {},
  ): Promise<Reply> {
    const start = Date.now();
    const route = path.split('?')[0]!.replace(UUID, '{id}');
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    let body: FormData | string | undefined;
    if (opts.form) body = opts.form;
    else if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    try {
      const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body, signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000) });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // Not JSON: kept as text (the audit flags a 5xx that is not JSON).
      }
      this.calls.push({ start, end: Date.now(), method, route, status: res.status, retryAfter: res.headers.get('retry-after'), org, ...(res.status >= 500 ? { detail: text.slice(0, 300), requestId: res.headers.get('x-request-id') ?? undefined } : {}) });
      return { status: res.status, body: parsed, headers: res.headers };
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      this.calls.push({ start, end: Date.now(), method, route, status: 0, retryAfter: null, error: String(cause), org });
      return { status: 0, body: { error: String(cause) } };
    }
  }
}

/** UUIDs appearing anywhere in a JSON body. */
export function uuidsIn(body: unknown): string[] {
  return JSON.stringify(body ?? null).match(UUID) ?? [];
}
