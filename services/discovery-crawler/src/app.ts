import type { Express } from 'express';
import { createHttpApp, verifyPrincipalHeader, type ReadinessResult } from '@assay/http';
import type { DiscoveryContext } from './context.js';
import { ROUTERS } from './routes.js';

export interface DiscoveryAppDeps extends DiscoveryContext {
  internalTokenSecret: string;
  ready?: () => Promise<Record<string, ReadinessResult>>;
}

/** The discovery-crawler's express app; it never listens. */
export function buildApp(deps: DiscoveryAppDeps): Express {
  const { internalTokenSecret, ready, ...ctx } = deps;
  return createHttpApp({
    name: 'discovery-crawler',
    logger: deps.logger,
    bodyLimit: '64kb',
    ...(ready ? { ready } : {}),
    mount(app) {
      app.use(verifyPrincipalHeader(internalTokenSecret));
      for (const router of ROUTERS) app.use(router(ctx));
    },
  });
}
