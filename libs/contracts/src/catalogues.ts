/**
 * The light entry of the contracts package, `@assay/contracts/catalogues`:
 * the catalogues without the validators (no ajv, no re2, no cron parser), for
 * code that runs in a browser such as the console: the routes, scopes, events
 * and webhook event types, plans, the step actions with their parameters
 * (their value checks, which need re2, stay in the main entry), the failure
 * categories and triage types.
 */
export { ALIAS_PREFIX, ROUTES, type RouteAlias, type RouteContract, type RouteMethod, type RouteParam, type ServiceName, type ServiceRoutePath } from './routes/index.js';
export { API_KEY_SCOPES, type ApiKeyScope, type RouteScope } from './scopes.js';
export { COMMAND_TOPICS, EVENTS, TOPICS, eventTopic, isEvent, type EventContract, type EventData, type Topic } from './events.js';
export { WEBHOOK_EVENT_TYPES, RULE_FIELDS, RULE_OPS, type WebhookEventType } from './webhook.schemas.js';
export { SPEC_STEP_ACTIONS, STEP_ACTIONS, STEP_FIELDS, type StepAction, type StepActionInfo, type StepField, type StepParam } from './step-actions.js';
export { FAILURE_CATEGORIES, ISSUE_STATUSES, TRIAGE_TYPES, type FailureCategory, type IssueStatus, type TriageType } from './failure-categories.js';
export { PLAN_CATALOG, PLAN_NAMES, QUOTA_TYPES, planLimits, type PlanLimits, type PlanName, type QuotaType } from './plans.js';
