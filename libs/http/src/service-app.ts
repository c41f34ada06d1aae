import type { Express, RequestHandler } from 'express';
import type { Logger } from '@assay/logger';
import { createHttpApp, type HttpAppOptions, type ReadinessResult } from './app.js';
import { verifyPrincipalHeader } from './principal.middleware.js';

/** What `buildApp` of every service behind the gateway takes besides the service's own context. */
export interface ServiceAppDeps {
  /** The secret the gateway signs the caller's principal with (INTERNAL_TOKEN_SECRET). */
  internalTokenSecret: string;
  /** Readiness checks behind `GET /readyz` (see `HttpAppOptions.ready`). */
  ready?: () => Promise<Record<string, ReadinessResult>>;
}

export interface ServiceAppOptions<C> extends Omit<HttpAppOptions, 'mount' | 'logger' | 'ready'> {
  /** The service's one list of routers (its `routes.ts`), each built from the context. */
  routers: ReadonlyArray<(ctx: C) => RequestHandler>;
}

/**
 * A service's express app behind the gateway. `deps` is the service's context
 * plus `ServiceAppDeps`: the context (all of `deps` but those two) goes to every
 * router of the list, in order, after the signed principal
 * (`x-assay-principal`) is verified; a request without a valid one gets 401
 * `invalid_api_key`. Logs with the context's logger. It never listens.
 */
export function createServiceApp<C extends { logger: Logger }>(deps: C & ServiceAppDeps, opts: ServiceAppOptions<C>): Express {
  const { internalTokenSecret, ready, ...rest } = deps;
  // The context is what the service passed beside the two app settings.
  const ctx = rest as unknown as C;
  const { routers, ...http } = opts;
  return createHttpApp({
    ...http,
    logger: deps.logger,
    ...(ready ? { ready } : {}),
    mount(app) {
      app.use(verifyPrincipalHeader(internalTokenSecret));
      for (const router of routers) app.use(router(ctx));
    },
  });
}
