import type { JsonSchema } from './json-schema.js';
import { PLAN_NAMES, QUOTA_TYPES } from './plans.js';

const timestamp = { type: 'string', format: 'date-time' };
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' };
const plan = { type: 'string', enum: [...PLAN_NAMES] };
const memberRole = { type: 'string', enum: ['admin', 'member'], description: 'The owner role moves only by transfer-ownership.' };
const variables = {
  type: 'object',
  maxProperties: 100,
  propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_.-]{0,63}$' },
  additionalProperties: { type: 'string', maxLength: 10000 },
  description: 'Replaces `{{name}}` in step selectors and values of each scheduled run.',
};
const cron = {
  type: 'string',
  minLength: 9,
  maxLength: 120,
  description: 'Five fields: minute hour day-of-month month day-of-week (`*/15 * * * *`, `0 6 * * 1-5`).',
};
const timezone = { type: 'string', minLength: 1, maxLength: 64, description: 'IANA time zone the cron is read in (`UTC`, `Europe/Paris`).' };

/** Members, invitations, usage, billing, schedules (issue 14). */
export const saasSchemas: Record<string, JsonSchema> = {
  MemberAddRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['email', 'role'],
    properties: {
      email: { type: 'string', format: 'email', maxLength: 254 },
      role: memberRole,
      name: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
    },
  },
  MemberAdded: {
    type: 'object',
    required: ['user_id', 'email', 'name', 'role', 'created_at', 'invitation'],
    properties: {
      user_id: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string', enum: ['admin', 'member'] },
      created_at: timestamp,
      invitation: {
        type: ['object', 'null'],
        description: 'For a new account: the token the invitee sends to accept-invitation with a password, shown only here. null when the e-mail already had an account.',
        required: ['token', 'expires_at'],
        properties: { token: { type: 'string' }, expires_at: timestamp },
      },
    },
  },
  MemberUpdateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['role'],
    properties: { role: memberRole },
  },
  MemberRemoved: {
    type: 'object',
    required: ['user_id', 'removed_at'],
    properties: { user_id: { type: 'string' }, removed_at: timestamp },
  },
  AcceptInvitationRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['token', 'password'],
    properties: {
      token: { type: 'string', minLength: 1, maxLength: 200 },
      password: { type: 'string', minLength: 12, maxLength: 1024, description: 'At least 12 characters.' },
    },
  },
  InvitationAccepted: {
    type: 'object',
    required: ['user_id', 'email', 'organization_id', 'token', 'expires_at'],
    properties: {
      user_id: { type: 'string' },
      email: { type: 'string' },
      organization_id: { type: 'string' },
      token: { type: 'string', description: 'A session token, as login returns.' },
      expires_at: timestamp,
    },
  },
  QuotaUsage: {
    type: 'object',
    required: ['quota', 'unit', 'used', 'limit', 'percentage', 'exceeded'],
    properties: {
      quota: { type: 'string', enum: [...QUOTA_TYPES] },
      unit: { type: 'string', enum: ['minutes', 'pages', 'executions'] },
      used: { type: 'number', minimum: 0 },
      limit: { type: ['number', 'null'], description: 'null: unlimited.' },
      percentage: { type: ['number', 'null'], description: 'used / limit × 100, one decimal; null when unlimited.' },
      exceeded: { type: 'boolean' },
    },
  },
  Usage: {
    type: 'object',
    required: ['organization_id', 'plan', 'period', 'period_start', 'resets_at', 'quotas'],
    properties: {
      organization_id: { type: 'string' },
      plan,
      period: { type: 'string', description: 'Calendar month, UTC (`2026-11`).' },
      period_start: timestamp,
      resets_at: timestamp,
      quotas: { type: 'array', items: { $ref: 'QuotaUsage' } },
    },
  },
  OrganizationBillingRequest: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      plan,
      stripe_customer_id: { type: ['string', 'null'], pattern: '^cus_[A-Za-z0-9]{1,100}$', description: 'The Stripe customer whose subscription events set this organization’s plan; null unlinks it.' },
    },
  },
  StripeWebhookReceived: {
    type: 'object',
    required: ['received', 'event_id'],
    properties: {
      received: { type: 'boolean' },
      event_id: { type: 'string' },
      duplicate: { type: 'boolean', description: 'true when this event id was handled before (nothing changed).' },
      ignored: { type: 'string', description: 'Why the event changed nothing (unknown customer, unhandled type, …).' },
    },
  },
  ScheduleCreateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['cron', 'timezone', 'enabled'],
    properties: {
      cron,
      timezone,
      environment: { type: ['string', 'null'], minLength: 1, maxLength: 32, description: "A key of the project's `environments`." },
      variables,
      enabled: { type: 'boolean' },
    },
  },
  ScheduleUpdateRequest: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      cron,
      timezone,
      environment: { type: ['string', 'null'], minLength: 1, maxLength: 32 },
      variables,
      enabled: { type: 'boolean' },
    },
  },
  Schedule: {
    type: 'object',
    required: ['id', 'test_plan_id', 'project_id', 'cron', 'timezone', 'environment', 'variables', 'enabled', 'next_run_at', 'next_runs', 'last_run_at', 'last_execution_id', 'last_error', 'created_at', 'updated_at'],
    properties: {
      id: { type: 'string' },
      test_plan_id: { type: 'string' },
      project_id: { type: 'string' },
      cron: { type: 'string' },
      timezone: { type: 'string' },
      environment: { type: ['string', 'null'] },
      variables: { type: 'object' },
      enabled: { type: 'boolean' },
      next_run_at: nullableTimestamp,
      next_runs: { type: 'array', items: timestamp, description: 'The next five occurrences (empty while disabled).' },
      last_run_at: nullableTimestamp,
      last_execution_id: { type: ['string', 'null'] },
      last_error: { type: ['string', 'null'], description: 'Why the last occurrence started no execution (quota, plan, deleted test plan).' },
      created_at: timestamp,
      updated_at: timestamp,
    },
  },
  ScheduleList: {
    type: 'object',
    required: ['data', 'pagination'],
    properties: { data: { type: 'array', items: { $ref: 'Schedule' } }, pagination: { $ref: 'Pagination' } },
  },
  ScheduleDeleted: {
    type: 'object',
    required: ['id', 'deleted'],
    properties: { id: { type: 'string' }, deleted: { type: 'boolean' } },
  },
};
