import type { ServiceRouter } from '@assay/http';
import type { AuthContext } from './context.js';
import { internalRoutes } from './internal/internal.routes.js';
import { apiKeyRoutes, serviceKeyRoutes } from './keys/keys.routes.js';
import { organizationRoutes } from './organizations/organizations.routes.js';
import { authRoutes } from './sessions/auth.routes.js';
import { billingRoutes } from './billing/billing.routes.js';
import { memberRoutes } from './members/members.routes.js';

/** Every router of the auth service. */
export const ROUTERS: Array<(ctx: AuthContext) => ServiceRouter<'auth'>> = [
  authRoutes,
  serviceKeyRoutes,
  apiKeyRoutes,
  organizationRoutes,
  memberRoutes,
  billingRoutes,
  internalRoutes,
];
