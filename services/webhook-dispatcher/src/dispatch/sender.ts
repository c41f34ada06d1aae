import { Agent, type Dispatcher } from 'undici';
import { egressConnector, type EgressPolicy } from '@assay/egress';
import { RESPONSE_BODY_BYTES, RESPONSE_TIMEOUT_MS } from '../shared/plans.js';
import type { SignedHeaders } from './signing.js';

export interface SendResult {
  statusCode: number | null;
  /** First 4 KB of the response body, as text. */
  body: string | null;
  responseTimeMs: number;
  error: string | null;
  retryAfter: string | undefined;
}

/** Where a webhook's deliveries go, parsed once. */
export interface Endpoint {
  origin: string;
  path: string;
}

export function endpointOf(url: string): Endpoint {
  const u = new URL(url);
  return { origin: u.origin, path: `${u.pathname}${u.search}` };
}

/** How often expired requests are aborted: the deadline holds to within this much. */
const SWEEP_MS = 100;
/** Our own abort once 4 KB of the body are in: the rest is not read. */
const ENOUGH = new Error('enough of the body');
const TIMED_OUT = new Error('deadline');

/**
 * One POST, as an undici dispatch handler: no response stream, no promise
 * per step; the status, `Retry-After` and the first 4 KB of the body are all
 * it keeps.
 */
class Attempt implements Dispatcher.DispatchHandler {
  private statusCode = 0;
  private retryAfter: string | undefined;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private abortFn: ((err: Error) => void) | undefined;
  private settled = false;
  timedOut = false;

  constructor(
    readonly deadline: number,
    private readonly started: number,
    private readonly timeoutMs: number,
    private readonly done: (a: Attempt, r: SendResult) => void,
  ) {}

  /** Called by the sweep: ends the attempt as a timeout. */
  expire(): void {
    if (this.settled) return;
    this.timedOut = true;
    if (this.abortFn) this.abortFn(TIMED_OUT);
    else this.onError(TIMED_OUT);
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortFn = abort as (err: Error) => void;
    if (this.timedOut) abort(TIMED_OUT);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode < 200) return true; // 1xx: the answer is still to come
    this.statusCode = statusCode;
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!;
      if (name.length === 11 && name.toString('latin1').toLowerCase() === 'retry-after') this.retryAfter = rawHeaders[i + 1]!.toString('latin1');
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return true;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size >= RESPONSE_BODY_BYTES) {
      this.finish();
      this.abortFn?.(ENOUGH);
    }
    return true;
  }

  onComplete(): void {
    this.finish();
  }

  onError(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    const code = (err as { code?: string }).code;
    const timedOut = this.timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT';
    this.done(this, {
      statusCode: null,
      body: null,
      responseTimeMs: Math.round(performance.now() - this.started),
      error: timedOut ? `No answer within ${this.timeoutMs / 1000} s` : describe(err),
      retryAfter: undefined,
    });
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const ok = this.statusCode >= 200 && this.statusCode < 300;
    this.done(this, {
      statusCode: this.statusCode,
      body: body.toString('utf8', 0, Math.min(body.length, RESPONSE_BODY_BYTES)),
      responseTimeMs: Math.round(performance.now() - this.started),
      error: ok ? null : `HTTP ${this.statusCode}`,
      retryAfter: this.retryAfter,
    });
  }
}

/**
 * POSTs with keep-alive connections; redirects are not followed (a 3xx is a
 * failure). Every connection opens only to an address the egress policy
 * allows, checked on the address connected to (a name that resolved to a
 * public address at registration and to a private one now is refused).
 */
export class Sender {
  private readonly agent: Agent;
  private readonly inflight = new Set<Attempt>();
  private readonly sweep: NodeJS.Timeout;

  /** One sweep timer for every request: far cheaper than a timer or an AbortSignal per request. */
  constructor(
    egress: EgressPolicy,
    private readonly timeoutMs = RESPONSE_TIMEOUT_MS,
  ) {
    this.agent = new Agent({ connections: 256, pipelining: 1, keepAliveTimeout: 10_000, connect: egressConnector(egress, { timeout: RESPONSE_TIMEOUT_MS }) });
    this.sweep = setInterval(() => {
      const now = performance.now();
      for (const a of this.inflight) if (a.deadline <= now) a.expire();
    }, SWEEP_MS);
    this.sweep.unref();
  }

  /**
   * Never rejects: network errors and timeouts (connecting, the answer and its
   * body within `timeoutMs` in all) come back as a result with `error`.
   */
  send(endpoint: Endpoint, headers: SignedHeaders, body: string): Promise<SendResult> {
    return new Promise((resolve) => {
      const started = performance.now();
      const attempt = new Attempt(started + this.timeoutMs, started, this.timeoutMs, (a, r) => {
        this.inflight.delete(a);
        resolve(r);
      });
      this.inflight.add(attempt);
      // dispatch() reports its own errors (a closed agent, bad options) to the handler's onError.
      this.agent.dispatch({ origin: endpoint.origin, path: endpoint.path, method: 'POST', headers, body, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs }, attempt);
    });
  }

  close(): Promise<void> {
    clearInterval(this.sweep);
    return this.agent.close();
  }
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  const message = e.cause?.message ?? e.message ?? String(err);
  return (code ? `${code}: ${message}` : message).slice(0, 500);
}
