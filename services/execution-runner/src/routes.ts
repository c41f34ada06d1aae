import type { ServiceRouter } from '@assay/http';
import { artifactRoutes } from './artifacts/artifacts.routes.js';
import type { ExecutionContext } from './context.js';
import { executionRoutes } from './executions/executions.routes.js';
import { internalRoutes } from './internal/internal.routes.js';
import { recordingRoutes } from './recordings/recordings.routes.js';
import { scheduleRoutes } from './schedules/schedules.routes.js';
import { baselineRoutes } from './screenshots/baselines.routes.js';
import { suiteRoutes } from './suites/suites.routes.js';
import { testRunRoutes } from './test-runs/test-runs.routes.js';

/** Every router of the execution-runner. */
export const ROUTERS: Array<(ctx: ExecutionContext) => ServiceRouter<'execution-runner'>> = [executionRoutes, testRunRoutes, recordingRoutes, artifactRoutes, baselineRoutes, scheduleRoutes, suiteRoutes, internalRoutes];
