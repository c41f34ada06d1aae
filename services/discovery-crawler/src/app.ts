import type { Express } from 'express';
import { createServiceApp, type ServiceAppDeps } from '@assay/http';
import type { DiscoveryContext } from './context.js';
import { ROUTERS } from './routes.js';

export interface DiscoveryAppDeps extends DiscoveryContext, ServiceAppDeps {}

/** The discovery-crawler's express app; it never listens. */
export function buildApp(deps: DiscoveryAppDeps): Express {
  return createServiceApp(deps, {
    name: 'discovery-crawler',
    bodyLimit: '64kb',
    routers: ROUTERS,
  });
}
