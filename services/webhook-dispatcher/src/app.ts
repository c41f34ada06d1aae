import type { Express } from 'express';
import { createServiceApp, type ServiceAppDeps } from '@assay/http';
import type { WebhookContext } from './context.js';
import { ROUTERS } from './routes.js';

export interface WebhookAppDeps extends WebhookContext, ServiceAppDeps {}

/** The webhook-dispatcher's express app; it never listens. */
export function buildApp(deps: WebhookAppDeps): Express {
  return createServiceApp(deps, {
    name: 'webhook-dispatcher',
    routers: ROUTERS,
  });
}
