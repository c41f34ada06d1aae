/**
 * The light entry of the contracts package, `@assay/contracts/catalogues`:
 * the catalogues without the validators (no ajv, no re2, no cron parser), for
 * code that runs in a browser such as the console. The step table is not here
 * yet: `steps.ts` compiles patterns with re2 beside it.
 */
export { ALIAS_PREFIX, ROUTES, type RouteAlias, type RouteContract, type RouteMethod, type RouteParam, type ServiceName, type ServiceRoutePath } from './routes/index.js';
export { API_KEY_SCOPES, type ApiKeyScope, type RouteScope } from './scopes.js';
export { COMMAND_TOPICS, EVENTS, TOPICS, eventTopic, isEvent, type EventContract, type EventData, type Topic } from './events.js';
export { WEBHOOK_EVENT_TYPES, RULE_FIELDS, RULE_OPS, type WebhookEventType } from './webhook.schemas.js';
export { PLAN_CATALOG, PLAN_NAMES, QUOTA_TYPES, planLimits, type PlanLimits, type PlanName, type QuotaType } from './plans.js';
