import { Agent, request } from 'undici';
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

/** POSTs with keep-alive connections; redirects are not followed (a 3xx is a failure). */
export class Sender {
  private readonly agent = new Agent({ connections: 256, pipelining: 1, keepAliveTimeout: 10_000, connect: { timeout: RESPONSE_TIMEOUT_MS } });

  constructor(private readonly timeoutMs = RESPONSE_TIMEOUT_MS) {}

  /** Never throws: network errors and timeouts come back as a result with `error`. */
  async send(url: string, headers: SignedHeaders, body: string): Promise<SendResult> {
    const started = performance.now();
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const res = await request(url, { method: 'POST', headers: { ...headers }, body, dispatcher: this.agent, signal, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        chunks.push(buf);
        size += buf.length;
        if (size >= RESPONSE_BODY_BYTES) break;
      }
      // Breaking out of the loop above leaves the rest unread: discard it.
      if (size >= RESPONSE_BODY_BYTES) res.body.destroy();
      const retryAfter = res.headers['retry-after'];
      return {
        statusCode: res.statusCode,
        body: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_BYTES).toString('utf8'),
        responseTimeMs: Math.round(performance.now() - started),
        error: res.statusCode >= 200 && res.statusCode < 300 ? null : `HTTP ${res.statusCode}`,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      };
    } catch (err) {
      const timedOut = signal.aborted || (err as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT' || (err as { code?: string }).code === 'UND_ERR_BODY_TIMEOUT';
      return {
        statusCode: null,
        body: null,
        responseTimeMs: Math.round(performance.now() - started),
        error: timedOut ? `No answer within ${this.timeoutMs / 1000} s` : describe(err),
        retryAfter: undefined,
      };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  const message = e.cause?.message ?? e.message ?? String(err);
  return (code ? `${code}: ${message}` : message).slice(0, 500);
}
