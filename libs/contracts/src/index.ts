export type { JsonSchema } from './json-schema.js';
export { API_KEY_SCOPES, type ApiKeyScope, type RouteScope } from './scopes.js';
export {
  ALIAS_PREFIX,
  ROUTES,
  catalogueMismatches,
  type ExpressPath,
  type MountedRoute,
  type RouteAlias,
  type RouteContract,
  type RouteMethod,
  type RouteParam,
  type ServiceName,
  type ServiceRoutePath,
} from './routes/index.js';
export { routeMatcher, type RouteMatch, type RouteMatcher } from './route-matcher.js';
export {
  INTERNAL_ROUTES,
  INTERNAL_TIMEOUT,
  type AuthenticatedPrincipal,
  type Authentication,
  type Entitlements,
  type ExceededQuota,
  type InternalApi,
  type InternalProject,
  type InternalRouteContract,
  type InternalRouteName,
  type InternalTimeout,
  type NewInternalCase,
  type PlanSnapshot,
  type RunVariables,
  type SessionCases,
  type SnapshotCase,
} from './internal.js';
export { ASSAY_VERSION } from './version.js';
export { COMMAND_TOPICS, EVENTS, TOPICS, eventTopic, isEvent, type EventContract, type EventData, type Topic } from './events.js';
export { SCHEMAS, ContractValidator, contractValidator } from './validator.js';
export type { FieldError } from './field-error.js';
export { buildOpenApi, type OpenApiOptions } from './openapi.js';
export { DISCOVERY_LIMITS, DISCOVERY_WARNING_CODES } from './discovery.schemas.js';
export { WEBHOOK_EVENT_TYPES, RULE_FIELDS, RULE_OPS, type WebhookEventType } from './webhook.schemas.js';
export {
  STEP_ACTIONS,
  STEP_FIELDS,
  SPEC_STEP_ACTIONS,
  MAX_EXPECTED_COUNT,
  PatternError,
  checkKeyChord,
  checkPatternValue,
  compilePattern,
  hasPlaceholder,
  parseAttributeCheck,
  parseExpectedCount,
  patternSource,
  stepActionSpec,
  validateSteps,
  parseAccessibilityCheck,
  ACCESSIBILITY_STANDARDS,
  IMPACTS,
  type Impact,
  STEP_LIMITS,
  SCREENSHOT_LIMITS,
  type Step,
  type AttributeCheck,
  type CompiledPattern,
  type StepAction,
  type StepActionInfo,
  type StepActionSpec,
  type StepField,
  type StepParam,
} from './steps.js';
export {
  checkExpectation,
  parseExpectation,
  parseJsonPath,
  readJsonPath,
  validateRequestStep,
  REQUEST_LIMITS,
  REQUEST_METHODS,
  type Expectation,
  type JsonPathSegment,
  type StepRequest,
} from './request-step.js';
export { FAILURE_CATEGORIES, TRIAGE_TYPES, ISSUE_STATUSES, type FailureCategory, type IssueStatus, type TriageType } from './failure-categories.js';
export {
  PLAN_CATALOG,
  PLAN_NAMES,
  QUOTA_TYPES,
  QUOTA_WARNING_PERCENT,
  BROWSER_BILLING_UNIT_SECONDS,
  billedBrowserSeconds,
  periodResetsAt,
  planLimits,
  usagePeriod,
  type PlanLimits,
  type PlanName,
  type QuotaType,
} from './plans.js';
export { catchUp, cronProblems, nextOccurrence, nextOccurrences } from './cron.js';
export { SECRET_MASK, SecretMasker, secretForms, secretReferences } from './secrets.js';
