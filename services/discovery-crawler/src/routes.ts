import type { ServiceRouter } from '@assay/http';
import type { DiscoveryContext } from './context.js';
import { generateRoutes } from './generate/generate.routes.js';
import { internalRoutes } from './internal/internal.routes.js';
import { sessionRoutes } from './sessions/sessions.routes.js';

/** Every router of the discovery-crawler. */
export const ROUTERS: Array<(ctx: DiscoveryContext) => ServiceRouter<'discovery-crawler'>> = [sessionRoutes, generateRoutes, internalRoutes];
