import type { Express } from 'express';
import { createHttpApp, verifyPrincipalHeader, type ReadinessResult } from '@assay/http';
import type { WebhookContext } from './context.js';
import { ROUTERS } from './routes.js';

export interface WebhookAppDeps extends WebhookContext {
  internalTokenSecret: string;
  ready?: () => Promise<Record<string, ReadinessResult>>;
}

/** The webhook-dispatcher's express app; it never listens. */
export function buildApp(deps: WebhookAppDeps): Express {
  const { internalTokenSecret, ready, ...ctx } = deps;
  return createHttpApp({
    name: 'webhook-dispatcher',
    logger: deps.logger,
    ...(ready ? { ready } : {}),
    mount(app) {
      app.use(verifyPrincipalHeader(internalTokenSecret));
      for (const router of ROUTERS) app.use(router(ctx));
    },
  });
}
