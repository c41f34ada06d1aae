/**
 * An error answer of the Assay API: the body's `error` code and `message`, the
 * `request_id` to quote to an operator, `details` (the failing fields of a 400)
 * and, on 429, `retry_after` seconds.
 */
export class AssayApiError extends Error {
  readonly status: number;
  /** The API's error code: `validation_error`, `invalid_api_key`, `not_found`, `rate_limit_exceeded`, ... */
  readonly error: string;
  readonly request_id: string | undefined;
  readonly details: unknown;
  readonly retry_after: number | undefined;
  readonly method: string;
  readonly path: string;

  constructor(init: { status: number; error: string; message: string; request_id?: string; details?: unknown; retry_after?: number; method: string; path: string }) {
    super(init.message);
    this.name = 'AssayApiError';
    this.status = init.status;
    this.error = init.error;
    this.request_id = init.request_id;
    this.details = init.details;
    this.retry_after = init.retry_after;
    this.method = init.method;
    this.path = init.path;
  }

  /** Builds the error from an error response, whose body may be JSON `{error, message, ...}` or anything else. */
  static async fromResponse(response: Response, method: string): Promise<AssayApiError> {
    const path = new URL(response.url || 'http://x/').pathname;
    const text = await response.text().catch(() => '');
    let body: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      /* not JSON: an HTML error page of a proxy, say */
    }
    const retryAfter = typeof body.retry_after === 'number' ? body.retry_after : retryAfterSeconds(response.headers.get('retry-after'));
    return new AssayApiError({
      status: response.status,
      error: typeof body.error === 'string' ? body.error : `http_${response.status}`,
      message: typeof body.message === 'string' ? body.message : text.slice(0, 200) || `HTTP ${response.status}`,
      request_id: typeof body.request_id === 'string' ? body.request_id : (response.headers.get('x-request-id') ?? undefined),
      details: body.details,
      ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}),
      method,
      path,
    });
  }
}

/** The gateway could not be reached at all (refused, DNS, reset): no HTTP answer. */
export class AssayConnectionError extends Error {
  constructor(
    readonly url: string,
    override readonly cause: unknown,
  ) {
    super(`Cannot reach Assay at ${url}: ${cause instanceof Error ? ((cause as Error & { cause?: Error }).cause?.message ?? cause.message) : String(cause)}`);
    this.name = 'AssayConnectionError';
  }
}

/** Seconds from a Retry-After header: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
