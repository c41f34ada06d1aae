import type { Express } from 'express';
import { createHttpApp, verifyPrincipalHeader, type ReadinessResult } from '@assay/http';
import type { ExecutionContext } from './context.js';
import { ROUTERS } from './routes.js';

export interface ExecutionAppDeps extends ExecutionContext {
  internalTokenSecret: string;
  ready?: () => Promise<Record<string, ReadinessResult>>;
}

/** The execution-runner's express app; it never listens. */
export function buildApp(deps: ExecutionAppDeps): Express {
  const { internalTokenSecret, ready, ...ctx } = deps;
  return createHttpApp({
    name: 'execution-runner',
    logger: deps.logger,
    bodyLimit: '256kb',
    // POST /api/v1/artifacts reads its own multipart body.
    extraContentTypes: ['multipart/form-data'],
    ...(ready ? { ready } : {}),
    mount(app) {
      app.use(verifyPrincipalHeader(internalTokenSecret));
      for (const router of ROUTERS) app.use(router(ctx));
    },
  });
}
