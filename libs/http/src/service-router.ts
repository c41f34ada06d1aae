import { METHODS } from 'node:http';
import { Router, type RequestHandler } from 'express';
import type { MountedRoute, RouteMethod, ServiceName, ServiceRoutePath } from '@assay/contracts';

type Verb = Lowercase<RouteMethod>;
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}` ? Name | ParamNames<`/${Rest}`> : P extends `${string}:${infer Name}` ? Name : never;
/** The `:name` parameters of an express path, as `req.params` holds them. */
type PathParams<P extends string> = { [K in ParamNames<P>]: string };
type Mount<S extends ServiceName, V extends Verb, R> = <P extends ServiceRoutePath<S, Uppercase<V>>>(path: P, ...handlers: Array<RequestHandler<PathParams<P>>>) => R;

/**
 * An express router whose verbs take only the paths of the service's own
 * catalogue entries (`libs/contracts/src/routes/<service>.ts`): a path no
 * entry names fails the type check.
 */
export type ServiceRouter<S extends ServiceName> = RequestHandler & Omit<Router, Verb> & { [V in Verb]: Mount<S, V, ServiceRouter<S>> };

/** A router of `service`, typed from its catalogue entries (the name serves the type alone). */
export function serviceRouter<S extends ServiceName>(_service: S): ServiceRouter<S> {
  return Router() as unknown as ServiceRouter<S>;
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** The method and path of every route the routers mount (a router used inside one included): what a catalogue-mount test compares with the catalogue. */
export function mountedRoutes(routers: readonly RequestHandler[]): MountedRoute[] {
  const walk = (stack: Layer[]): MountedRoute[] =>
    stack.flatMap((layer) => {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        const methods = Object.keys(layer.route.methods).filter((m) => layer.route!.methods[m]);
        // `all` mounts every method one by one (or `_all`): one route of method `*`.
        const every = methods.includes('_all') || methods.length >= METHODS.length;
        return paths.flatMap((path) => (every ? [{ method: '*', path }] : methods.map((method) => ({ method: method.toUpperCase(), path }))));
      }
      return layer.handle?.stack ? walk(layer.handle.stack) : [];
    });
  return routers.flatMap((router) => walk((router as { stack?: Layer[] }).stack ?? []));
}
