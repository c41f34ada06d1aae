import type { ServiceRouter } from '@assay/http';
import type { WebhookContext } from './context.js';
import { webhookRoutes } from './webhooks/webhooks.routes.js';

/** Every router of the webhook-dispatcher. */
export const ROUTERS: Array<(ctx: WebhookContext) => ServiceRouter<'webhook-dispatcher'>> = [webhookRoutes];
