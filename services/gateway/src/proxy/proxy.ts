import type { Request, Response } from 'express';
import { request, type Dispatcher } from 'undici';
import type { Logger } from '@assay/logger';
import { AppError, resendable } from '@assay/http';
import { PRINCIPAL_HEADER } from '@assay/principal';
import { activeTraceparent } from '@assay/telemetry';

// Hop-by-hop headers, and credentials that stop at the gateway.
const DROP_REQUEST = new Set([
  'host', 'connection', 'keep-alive', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'upgrade',
  'transfer-encoding', 'authorization', 'x-api-key', PRINCIPAL_HEADER, 'cookie',
]);
const TRACE_CONTEXT = new Set(['traceparent', 'tracestate']);
const DROP_RESPONSE = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'trailer', 'proxy-authenticate']);

export interface ProxyTarget {
  service: string;
  baseUrl: string;
  path: string;
  principalToken: string;
  /** A cookie header to pass on: the gateway drops callers' cookies, except the refresh cookie on its own route. */
  cookie?: string;
  /** Whether the service may set cookies on the caller (auth's session cookie); other services' `set-cookie` is dropped. */
  setsCookies?: boolean;
}

export interface ProxyOptions {
  dispatcher: Dispatcher;
  responseTimeoutMs: number;
  logger: Logger;
}

/**
 * Streams the call to the service and its answer back, bodies untouched (so
 * uploads and Server-Sent Events pass through). A bodiless idempotent request
 * whose connection was lost before any answer is sent once more; a service that
 * cannot be reached answers 503 JSON.
 */
export async function forward(req: Request, res: Response, target: ProxyTarget, opts: ProxyOptions): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  // Traced here, the caller's trace context is continued by this gateway's span and undici's
  // instrumentation writes that span's headers: a forwarded copy would make them duplicates.
  const traced = activeTraceparent() !== undefined;
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || DROP_REQUEST.has(name) || (traced && TRACE_CONTEXT.has(name))) continue;
    headers[name] = value;
  }
  headers[PRINCIPAL_HEADER] = target.principalToken;
  if (target.cookie) headers.cookie = target.cookie;
  headers['x-request-id'] = res.locals.requestId as string;
  headers['x-forwarded-for'] = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
  headers['x-forwarded-proto'] = req.protocol;
  if (req.headers.host) headers['x-forwarded-host'] = req.headers.host;

  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const hasBody = !['GET', 'HEAD'].includes(req.method) && (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined);

  const send = () =>
    request(`${target.baseUrl}${target.path}`, {
      method: req.method as Dispatcher.HttpMethod,
      headers,
      body: hasBody ? req : null,
      dispatcher: opts.dispatcher,
      signal: abort.signal,
      headersTimeout: opts.responseTimeoutMs,
      bodyTimeout: 0,
    });
  let upstream: Dispatcher.ResponseData;
  try {
    upstream = await send().catch((err: unknown) => {
      // A replica stopping (a rolling upgrade) closes its kept-alive connections: a request sent on one just then
      // fails before any answer. Sent again on a new connection (the Service's next replica) when that is safe.
      if (abort.signal.aborted || hasBody || !resendable(req.method, err)) throw err;
      opts.logger.warn({ err, service: target.service }, 'connection lost before an answer; sending again');
      return send();
    });
  } catch (err) {
    if (abort.signal.aborted) return;
    opts.logger.warn({ err, service: target.service }, 'service unreachable');
    throw new AppError('service_unavailable', `The ${target.service} service is unavailable; try again shortly`);
  }

  res.status(upstream.statusCode);
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (value !== undefined && !DROP_RESPONSE.has(name) && (name !== 'set-cookie' || target.setsCookies)) res.setHeader(name, value);
  }
  res.setHeader('x-request-id', res.locals.requestId as string);
  if (String(upstream.headers['content-type'] ?? '').startsWith('text/event-stream')) res.flushHeaders();
  try {
    for await (const chunk of upstream.body) {
      if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
    }
    res.end();
  } catch (err) {
    if (!abort.signal.aborted) opts.logger.warn({ err, service: target.service }, 'response stream broke');
    res.destroy();
  }
}
