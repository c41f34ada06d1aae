import type { ServiceRouter } from '@assay/http';
import type { TestCaseContext } from './context.js';
import { exportRoutes } from './export/export.routes.js';
import { internalRoutes } from './internal/internal.routes.js';
import { projectRoutes } from './projects/projects.routes.js';
import { testCaseRoutes } from './test-cases/test-cases.routes.js';
import { testPlanRoutes } from './test-plans/test-plans.routes.js';
import { variableRoutes } from './variables/variables.routes.js';

/** Every router of the test-case service. */
export const ROUTERS: Array<(ctx: TestCaseContext) => ServiceRouter<'test-case'>> = [projectRoutes, variableRoutes, testCaseRoutes, testPlanRoutes, internalRoutes, exportRoutes];
