import type { Express } from 'express';
import { createHttpApp, verifyPrincipalHeader, type ReadinessResult } from '@assay/http';
import type { AnalysisContext } from './context.js';
import { ROUTERS } from './routes.js';

export interface AnalysisAppDeps extends AnalysisContext {
  internalTokenSecret: string;
  ready?: () => Promise<Record<string, ReadinessResult>>;
}

/** The analysis service's express app; it never listens. */
export function buildApp(deps: AnalysisAppDeps): Express {
  const { internalTokenSecret, ready, ...ctx } = deps;
  return createHttpApp({
    name: 'analysis',
    logger: deps.logger,
    bodyLimit: '64kb',
    ...(ready ? { ready } : {}),
    mount(app) {
      app.use(verifyPrincipalHeader(internalTokenSecret));
      for (const router of ROUTERS) app.use(router(ctx));
    },
  });
}
