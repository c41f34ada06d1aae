import type { Express } from 'express';
import { createServiceApp, type ServiceAppDeps } from '@assay/http';
import type { ExecutionContext } from './context.js';
import { ROUTERS } from './routes.js';

export interface ExecutionAppDeps extends ExecutionContext, ServiceAppDeps {}

/** The execution-runner's express app; it never listens. */
export function buildApp(deps: ExecutionAppDeps): Express {
  return createServiceApp(deps, {
    name: 'execution-runner',
    bodyLimit: '256kb',
    // POST /api/v1/artifacts reads its own multipart body.
    extraContentTypes: ['multipart/form-data'],
    routers: ROUTERS,
  });
}
