import type { Express } from 'express';
import { createServiceApp, type ServiceAppDeps } from '@assay/http';
import type { AnalysisContext } from './context.js';
import { ROUTERS } from './routes.js';

export interface AnalysisAppDeps extends AnalysisContext, ServiceAppDeps {}

/** The analysis service's express app; it never listens. */
export function buildApp(deps: AnalysisAppDeps): Express {
  return createServiceApp(deps, {
    name: 'analysis',
    bodyLimit: '64kb',
    routers: ROUTERS,
  });
}
