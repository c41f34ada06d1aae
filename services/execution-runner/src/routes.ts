import type { Router } from 'express';
import { artifactRoutes } from './artifacts/artifacts.routes.js';
import type { ExecutionContext } from './context.js';
import { executionRoutes } from './executions/executions.routes.js';
import { internalRoutes } from './internal/internal.routes.js';
import { scheduleRoutes } from './schedules/schedules.routes.js';
import { testRunRoutes } from './test-runs/test-runs.routes.js';

/** Every router of the execution-runner. */
export const ROUTERS: Array<(ctx: ExecutionContext) => Router> = [executionRoutes, testRunRoutes, artifactRoutes, scheduleRoutes, internalRoutes];
