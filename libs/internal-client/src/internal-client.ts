import { request, type Dispatcher } from 'undici';
import { INTERNAL_ROUTES, INTERNAL_TIMEOUT, type InternalApi, type InternalRouteName } from '@assay/contracts';
import { AppError, resendable } from '@assay/http';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';

type Entry<N extends InternalRouteName> = InternalApi[N];
type ParamsOf<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? { [K in Name | keyof ParamsOf<Rest>]: string } : Record<never, string>;

/** One call of a catalogue route: its path parameters, query and body as the catalogue types them. */
export type InternalCall<N extends InternalRouteName> = {
  /** The organization the call acts for (the principal's `org_id`); absent: the calling service alone. */
  org?: string;
  params?: ParamsOf<(typeof INTERNAL_ROUTES)[N]['path']>;
} & (Entry<N> extends { query: infer Q } ? { query?: Q } : { query?: never }) &
  (Entry<N> extends { body: infer B } ? { body: B } : { body?: never });

/** The answer, whatever its status: the caller decides what a 404 or 409 means. */
export interface InternalReply<R> {
  status: number;
  /** The catalogue's response type; meaningful when `ok`. */
  body: R;
  /** The error body of a refusal (`{error, message, details}`); meaningful when not `ok`. */
  error: { error?: string; message?: string; details?: unknown };
  ok: boolean;
}

/** What `expect()` makes of a refusal, by status: a value, or a domain error the handler throws. */
export type Refusals<F> = { readonly [status: number]: (error: InternalReply<unknown>['error']) => F };

export interface InternalClientOptions {
  /** The calling service: the principal's `sub`. */
  caller: string;
  /** Base URL of each service this caller talks to. */
  urls: Partial<Record<(typeof INTERNAL_ROUTES)[InternalRouteName]['service'], string>>;
  internalTokenSecret: string;
  dispatcher?: Dispatcher;
}

/** The path of a catalogue entry with its parameters filled in (each one URI-encoded). */
export function internalPath(name: InternalRouteName, params: Record<string, string> = {}): string {
  return INTERNAL_ROUTES[name].path.replace(/\{([^}]+)\}/g, (_, key: string) => {
    const value = params[key];
    if (value === undefined) throw new Error(`${name}: the path parameter ${key} is missing`);
    return encodeURIComponent(value);
  });
}

function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined && v !== null) search.append(key, String(v));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * The one client of the `/internal` routes: it signs a `kind: service`
 * principal (acting for `org` when given), sends the catalogue entry's method
 * and path, waits as long as the timeout policy says (INTERNAL_TIMEOUT, or
 * the entry's own) and answers every HTTP status to the caller. An idempotent
 * call whose connection was lost before any answer is sent once more. It throws
 * only when the service cannot be reached, is not configured, or answers a
 * success without JSON: 503 `service_unavailable`.
 */
export class InternalClient {
  constructor(private readonly opts: InternalClientOptions) {}

  async call<N extends InternalRouteName, R = Entry<N>['response']>(name: N, call: InternalCall<N>): Promise<InternalReply<R>> {
    const route = INTERNAL_ROUTES[name];
    const baseUrl = this.opts.urls[route.service];
    if (!baseUrl) throw new AppError('service_unavailable', `The ${route.service} service is not configured`);
    const principal = servicePrincipal(this.opts.caller);
    const token = await signPrincipal(this.opts.internalTokenSecret, call.org !== undefined ? { ...principal, org_id: call.org } : principal);
    const timeout = 'timeout' in route ? route.timeout : INTERNAL_TIMEOUT;
    const url = `${baseUrl}${internalPath(name, call.params as Record<string, string> | undefined)}${queryString(call.query as Record<string, unknown> | undefined)}`;
    const send = () =>
      request(url, {
        method: route.method,
        headers: { [PRINCIPAL_HEADER]: token, ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
        headersTimeout: timeout.headersMs,
        bodyTimeout: timeout.bodyMs,
        ...(this.opts.dispatcher ? { dispatcher: this.opts.dispatcher } : {}),
      });
    let res: Dispatcher.ResponseData;
    try {
      // A replica stopping (a rolling upgrade) closes its kept-alive connections: an idempotent call sent on one just
      // then lost its connection before any answer and goes once more, on a new connection (the Service's next replica).
      res = await send().catch((err: unknown) => {
        if (!resendable(route.method, err)) throw err;
        return send();
      });
    } catch {
      throw new AppError('service_unavailable', `The ${route.service} service is unavailable; try again shortly`);
    }
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    let text: string;
    try {
      text = await res.body.text();
    } catch {
      throw new AppError('service_unavailable', `The ${route.service} service is unavailable; try again shortly`);
    }
    let parsed: unknown = {};
    try {
      if (text) parsed = JSON.parse(text);
    } catch {
      if (ok) throw new AppError('service_unavailable', `The ${route.service} service answered ${res.statusCode} without JSON`);
    }
    return { status: res.statusCode, ok, body: parsed as R, error: (parsed ?? {}) as InternalReply<R>['error'] };
  }

  /**
   * The answer of a call that should succeed. A refusal with a handler in `on`
   * (by status: `{ 404: () => undefined }`) becomes what the handler returns
   * or throws (it gets the refusal's error body); without one, 400 and 409 pass
   * through as they are (the caller's input was refused) and anything else is
   * 503 `service_unavailable`.
   */
  async expect<N extends InternalRouteName, R = Entry<N>['response'], F = never>(name: N, call: InternalCall<N>, on: Refusals<F> = {}): Promise<R | F> {
    const reply = await this.call<N, R>(name, call);
    if (reply.ok) return reply.body;
    const handle = on[reply.status];
    if (handle) return handle(reply.error);
    if (reply.status === 400 || reply.status === 409) {
      throw new AppError(reply.status === 400 ? 'validation_error' : 'conflict', reply.error.message ?? `Refused by the ${INTERNAL_ROUTES[name].service} service`, reply.error.details as never);
    }
    throw new AppError('service_unavailable', `The ${INTERNAL_ROUTES[name].service} service answered ${reply.status}`);
  }
}
