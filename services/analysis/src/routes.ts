import type { ServiceRouter } from '@assay/http';
import { failureAnalysisRoutes } from './analysis/failure-analysis.routes.js';
import type { AnalysisContext } from './context.js';
import { flakinessRoutes } from './flakiness/flakiness.routes.js';
import { issueRoutes } from './issues/issues.routes.js';
import { reportRoutes } from './reports/reports.routes.js';

/** Every router of the analysis service. */
export const ROUTERS: Array<(ctx: AnalysisContext) => ServiceRouter<'analysis'>> = [failureAnalysisRoutes, issueRoutes, flakinessRoutes, reportRoutes];
