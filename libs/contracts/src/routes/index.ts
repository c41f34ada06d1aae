import { ANALYSIS_INTERNAL_ROUTES, ANALYSIS_ROUTES } from './analysis.js';
import { AUTH_INTERNAL_ROUTES, AUTH_ROUTES } from './auth.js';
import { DISCOVERY_CRAWLER_INTERNAL_ROUTES, DISCOVERY_CRAWLER_ROUTES } from './discovery-crawler.js';
import { EXECUTION_RUNNER_INTERNAL_ROUTES, EXECUTION_RUNNER_ROUTES } from './execution-runner.js';
import { GATEWAY_ROUTES } from './gateway.js';
import type { RouteContract, RouteMethod, ServiceName } from './route.js';
import { TEST_CASE_INTERNAL_ROUTES, TEST_CASE_ROUTES } from './test-case.js';
import { WEBHOOK_DISPATCHER_INTERNAL_ROUTES, WEBHOOK_DISPATCHER_ROUTES } from './webhook-dispatcher.js';

export {
  ALIAS_PREFIX,
  idParam,
  routesOf,
  type InternalRouteContract,
  type InternalTimeout,
  type RouteAlias,
  type RouteContract,
  type RouteEntry,
  type RouteMethod,
  type RouteParam,
  type ServiceName,
} from './route.js';

/**
 * Each service's catalogue: its public routes and its internal (`/internal/...`)
 * routes, kept in `routes/<service>.ts`. Adding an endpoint to a service means
 * adding its entry to that file; a route without an entry answers 404 at the
 * gateway, and the service's catalogue-mount test fails until the two agree.
 */
const CATALOGUES = {
  auth: { routes: AUTH_ROUTES, internal: AUTH_INTERNAL_ROUTES },
  'test-case': { routes: TEST_CASE_ROUTES, internal: TEST_CASE_INTERNAL_ROUTES },
  'execution-runner': { routes: EXECUTION_RUNNER_ROUTES, internal: EXECUTION_RUNNER_INTERNAL_ROUTES },
  'discovery-crawler': { routes: DISCOVERY_CRAWLER_ROUTES, internal: DISCOVERY_CRAWLER_INTERNAL_ROUTES },
  analysis: { routes: ANALYSIS_ROUTES, internal: ANALYSIS_INTERNAL_ROUTES },
  'webhook-dispatcher': { routes: WEBHOOK_DISPATCHER_ROUTES, internal: WEBHOOK_DISPATCHER_INTERNAL_ROUTES },
  gateway: { routes: GATEWAY_ROUTES, internal: {} },
} as const;

/** The public HTTP routes of every service, one entry each: the OpenAPI document, the reference page and the gateway's routing are built from this list. */
export const ROUTES: readonly RouteContract[] = Object.values(CATALOGUES).flatMap((c): readonly RouteContract[] => c.routes);

/** The service-to-service routes of every service, by the name callers use (`INTERNAL_ROUTES.planSnapshot`). */
export const INTERNAL_ROUTES = {
  ...AUTH_INTERNAL_ROUTES,
  ...TEST_CASE_INTERNAL_ROUTES,
  ...EXECUTION_RUNNER_INTERNAL_ROUTES,
  ...DISCOVERY_CRAWLER_INTERNAL_ROUTES,
  ...ANALYSIS_INTERNAL_ROUTES,
  ...WEBHOOK_DISPATCHER_INTERNAL_ROUTES,
};

export type InternalRouteName = keyof typeof INTERNAL_ROUTES;

type Catalogue<S extends ServiceName> = (typeof CATALOGUES)[S];
/** The entries a service mounts: its public routes (not the entries that only document an alias) and its internal routes. */
type MountedEntry<S extends ServiceName> = Catalogue<S>['routes'][number] | Catalogue<S>['internal'][keyof Catalogue<S>['internal']];

/** A catalogue path as an express route: `{name}` becomes a `:param` of any name. */
export type ExpressPath<P extends string> = P extends `${infer Head}{${string}}${infer Tail}` ? `${Head}:${string}${ExpressPath<Tail>}` : P;

/** The express paths a service may mount for a method: its catalogue entries' paths, nothing else. */
export type ServiceRoutePath<S extends ServiceName, M extends RouteMethod> = ExpressPath<PathOf<MountedEntry<S>, M>>;
type PathOf<E, M extends RouteMethod> = E extends { method: M; path: infer P extends string } ? P : never;

/** A route as a service mounts it; method `*` serves every method (express's `all`). */
export interface MountedRoute {
  method: string;
  path: string;
}

const pathShape = (path: string) => path.replace(/\{[^}]+\}|:[A-Za-z0-9_]+/g, '{}');

/**
 * Compares what a service mounts with its catalogue: `unmounted` names the
 * entries no route serves, `uncatalogued` the routes no entry names (path
 * parameters match whatever their names).
 */
export function catalogueMismatches(service: ServiceName, mounted: readonly MountedRoute[]): { unmounted: string[]; uncatalogued: string[] } {
  const { routes, internal } = CATALOGUES[service];
  const entries: MountedRoute[] = [...routes.filter((r: RouteContract) => !r.alias), ...Object.values(internal as Record<string, MountedRoute>)];
  const serves = (m: MountedRoute, e: MountedRoute) => (m.method === '*' || m.method.toUpperCase() === e.method) && pathShape(m.path) === pathShape(e.path);
  return {
    unmounted: entries.filter((e) => !mounted.some((m) => serves(m, e))).map((e) => `${e.method} ${e.path}`),
    uncatalogued: mounted.filter((m) => !entries.some((e) => serves(m, e))).map((m) => `${m.method.toUpperCase()} ${m.path}`),
  };
}
