import type { QuotaType } from '../plans.js';
import type { RouteScope } from '../scopes.js';

/** The processes of Assay; every route and internal route names the one that serves it. */
export type ServiceName =
  | 'gateway'
  | 'auth'
  | 'test-case'
  | 'execution-runner'
  | 'discovery-crawler'
  | 'analysis'
  | 'webhook-dispatcher';

export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteParam {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  schema: Record<string, unknown>;
  description?: string;
}

/**
 * One public HTTP route: the OpenAPI document, the reference page and the
 * gateway's routing (service, aliases, scope, quota, rate bucket) are built
 * from these entries.
 */
export interface RouteContract {
  method: RouteMethod;
  /** OpenAPI-style path template as callers use it. */
  path: string;
  service: ServiceName;
  tag: string;
  summary: string;
  description?: string;
  /** false for the few routes reachable without a credential. */
  auth?: boolean;
  params?: RouteParam[];
  /** Name of the request body schema. */
  body?: string;
  /** Success status and the name of its response schema. */
  response: { status: number; schema?: string; contentType?: string };
  /** Error statuses this route can answer besides 401/403/429/5xx. */
  errors?: number[];
  /** Other prefixes this P1 route is also served under (P0 `/api/...`, P2 `/v1/...`); the gateway forwards them as `path`. */
  aliases?: RouteAlias[];
  /**
   * Set on an entry that only documents the P0 or P2 form of a P1 entry in the reference:
   * the P1 entry's `aliases` route it, the gateway never routes this entry itself.
   */
  alias?: RouteAlias;
  /** The scope an `sk_live_` API key needs (API_KEY_SCOPES, or `organization:write`, which no scoped key holds); absent: none. */
  scope?: RouteScope;
  /** New work refused once one of these monthly quotas is used up; `what` names the work in the refusal. */
  quota?: { quotas: QuotaType[]; what: string };
  /** A per-minute rate-limit bucket of its own (the spec's test-case endpoints). */
  rateBucket?: 'test_cases';
}

/** P0 = `/api`, P2 = `/v1`: the prefixes a P1 (`/api/v1`) route can also be served under. */
export type RouteAlias = 'P0' | 'P2';
export const ALIAS_PREFIX: Record<RouteAlias, string> = { P0: '/api/', P2: '/v1/' };

/** An entry whose service, method and path keep their literal types: a service's router is typed from them. */
export type RouteEntry<S extends ServiceName = ServiceName, M extends RouteMethod = RouteMethod, P extends string = string> = RouteContract & {
  service: S;
  method: M;
  path: P;
};

type EntryFields<M extends RouteMethod, P extends string> = Omit<RouteContract, 'service' | 'method' | 'path'> & { method: M; path: P };

/**
 * The entry maker of one service (and, when given, one tag):
 * `const tc = routesOf('test-case')`, then `tc({ method: 'GET', path: '/api/v1/projects', ... })`.
 */
export function routesOf<S extends ServiceName>(service: S): <M extends RouteMethod, P extends string>(r: EntryFields<M, P>) => RouteEntry<S, M, P>;
export function routesOf<S extends ServiceName>(
  service: S,
  tag: string,
): <M extends RouteMethod, P extends string>(r: Omit<EntryFields<M, P>, 'tag'> & { tag?: string }) => RouteEntry<S, M, P>;
export function routesOf<S extends ServiceName>(service: S, tag?: string) {
  return (r: Omit<RouteContract, 'service'>) => ({ service, ...(tag === undefined ? {} : { tag }), ...r });
}

export const idParam = (name: string): RouteParam => ({ name, in: 'path', required: true, schema: { type: 'string' } });

/**
 * One service-to-service route (`/internal/...`): the service that serves it,
 * its method and path, and what the one internal client (`libs/internal-client`)
 * may wait for it. A caller names the entry; `InternalApi` gives its request
 * and response types.
 */
export interface InternalRouteContract {
  service: Exclude<ServiceName, 'gateway'>;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  /** Path template: `{name}` is a path parameter. */
  path: string;
  /** Longer or shorter waits than INTERNAL_TIMEOUT, with the reason. */
  timeout?: InternalTimeout;
}

/** How long a caller waits for the answer's headers and then for its body. */
export interface InternalTimeout {
  headersMs: number;
  bodyMs: number;
}
