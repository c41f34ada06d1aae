import { DISCOVERY_FLOW } from './discovery.schemas.js';
import { PLAN_NAMES, QUOTA_TYPES, type PlanName } from './plans.js';
import type { JsonSchema } from './json-schema.js';

/** Kafka topic names (DESIGN.md, Events); the message key is the aggregate id. */
export const TOPICS = {
  testcases: 'assay.testcases',
  executionCommands: 'assay.executions.commands',
  executionEvents: 'assay.executions.events',
  discoveryCommands: 'assay.discovery.commands',
  discoveryEvents: 'assay.discovery.events',
  analysisEvents: 'assay.analysis.events',
  orgEvents: 'assay.org.events',
  authEvents: 'assay.auth.events',
} as const;
export type Topic = (typeof TOPICS)[keyof typeof TOPICS];

/**
 * Topics of commands: each message is a unit of work for one process of a
 * group (run this execution, crawl this session), so a transport hands them
 * out one by one and never batches them (the pg bus carries the events of
 * other topics up to 500 to a job).
 */
export const COMMAND_TOPICS: ReadonlySet<Topic> = new Set<Topic>([TOPICS.executionCommands, TOPICS.discoveryCommands]);

export interface EventContract {
  topic: Topic;
  /** Public events reach webhooks; internal ones stay between services. */
  visibility: 'public' | 'internal';
  description: string;
  data: JsonSchema;
}

/**
 * One entry per event type: its topic and the schema of `data`. The outbox
 * validates every event against this catalog before it is written.
 */
export const EVENTS: Record<string, EventContract> = {
  'auth.key.revoked': {
    topic: TOPICS.authEvents,
    visibility: 'internal',
    description: 'A service or API key was revoked; gateways evict it from their caches.',
    data: {
      type: 'object',
      required: ['key_id', 'kind'],
      properties: { key_id: { type: 'string' }, kind: { type: 'string', enum: ['service_key', 'api_key'] } },
    },
  },
  'auth.organization.status_changed': {
    topic: TOPICS.authEvents,
    visibility: 'internal',
    description: 'An organization was suspended, reactivated or deleted; gateways drop its cached credentials.',
    data: {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'string', enum: ['active', 'suspended', 'deleted'] } },
    },
  },
  'execution.requested': {
    topic: TOPICS.executionCommands,
    visibility: 'internal',
    description: 'Run this execution: runner workers compete for it.',
    data: { type: 'object', required: ['execution_id'], properties: { execution_id: { type: 'string' }, attempt: { type: 'integer' } } },
  },
  'suite.shard.requested': {
    topic: TOPICS.executionCommands,
    visibility: 'internal',
    description: 'Run this shard of a suite execution: runner workers compete for it.',
    data: { type: 'object', required: ['execution_id', 'shard'], properties: { execution_id: { type: 'string' }, shard: { type: 'integer', minimum: 0 }, attempt: { type: 'integer' } } },
  },
  'suite.list.requested': {
    topic: TOPICS.executionCommands,
    visibility: 'internal',
    description: 'List the tests of this stored suite version in a box (its upload reached a runner that cannot make one): suite-shard processes compete for it.',
    data: { type: 'object', required: ['suite_version_id'], properties: { suite_version_id: { type: 'string' }, attempt: { type: 'integer' } } },
  },
  'test.plan.started': {
    topic: TOPICS.executionEvents,
    visibility: 'public',
    description: 'An execution of a test plan started: the plan and the tests it includes.',
    data: {
      type: 'object',
      required: ['test_plan', 'execution_id'],
      properties: {
        execution_id: { type: 'string' },
        test_plan: {
          type: 'object',
          required: ['id', 'name', 'project_id', 'tests'],
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            project_id: { type: 'string' },
            project_name: { type: 'string' },
            environment: { type: ['string', 'null'], description: "The run's environment name; null when the run names none." },
            started_at: { type: 'string' },
            tests: { type: 'array', items: { type: 'object', required: ['id', 'name'] } },
          },
        },
      },
    },
  },
  'test.plan.completed': {
    topic: TOPICS.executionEvents,
    visibility: 'public',
    description: 'An execution of a test plan ended: summary with pass and fail counts (spec data shape).',
    data: {
      type: 'object',
      required: ['test_plan', 'execution_id'],
      properties: {
        execution_id: { type: 'string' },
        status: { type: 'string' },
        test_plan: {
          type: 'object',
          required: ['id', 'name', 'project_id', 'project_name', 'started_at', 'completed_at', 'duration_ms', 'summary', 'failed_tests', 'url'],
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            project_id: { type: 'string' },
            project_name: { type: 'string' },
            environment: { type: ['string', 'null'], description: "The run's environment name; null when the run names none." },
            started_at: { type: 'string' },
            completed_at: { type: 'string' },
            duration_ms: { type: 'integer' },
            summary: {
              type: 'object',
              required: ['total', 'passed', 'failed', 'skipped', 'pass_rate'],
              properties: { total: { type: 'integer' }, passed: { type: 'integer' }, failed: { type: 'integer' }, skipped: { type: 'integer' }, pass_rate: { type: 'number' } },
            },
            failed_tests: { type: 'array', items: { type: 'object', required: ['id', 'name', 'error'] } },
            url: { type: 'string' },
          },
        },
      },
    },
  },
  ...testExecutionEvents(),
  'test.case.created': {
    topic: TOPICS.testcases,
    visibility: 'public',
    description: 'A test case was created (API or import): its details and steps.',
    data: {
      type: 'object',
      required: ['test_case'],
      properties: {
        test_case: {
          type: 'object',
          required: ['id', 'project_id', 'name', 'status', 'priority', 'steps'],
          properties: {
            id: { type: 'string' },
            project_id: { type: 'string' },
            name: { type: 'string' },
            description: { type: ['string', 'null'] },
            status: { type: 'string' },
            priority: { type: 'string' },
            tags: { type: 'array', items: { type: 'string' } },
            steps: { type: 'array', items: { type: 'object' } },
          },
        },
        source: { type: 'string', enum: ['api', 'import'] },
      },
    },
  },
  'test.case.updated': {
    topic: TOPICS.testcases,
    visibility: 'public',
    description: 'A test case changed: each changed field with its value before and after, and its priority now.',
    data: {
      type: 'object',
      required: ['test_case_id', 'name', 'changes'],
      properties: {
        test_case_id: { type: 'string' },
        name: { type: 'string' },
        priority: { type: 'string', enum: ['critical', 'high', 'medium', 'low'] },
        changes: {
          type: 'object',
          minProperties: 1,
          additionalProperties: { type: 'object', required: ['before', 'after'], properties: { before: {}, after: {} } },
        },
        source: { type: 'string', description: 'Set when a service made the change: `failure-analysis` for an applied suggestion.' },
        execution_id: { type: 'string', description: 'The execution whose failure analysis was applied.' },
      },
    },
  },
  'test.case.deleted': {
    topic: TOPICS.testcases,
    visibility: 'public',
    description: 'A test case was archived (`permanent: false`) or removed for good (`permanent: true`).',
    data: {
      type: 'object',
      required: ['test_case_id', 'name', 'permanent'],
      properties: {
        test_case_id: { type: 'string' },
        name: { type: 'string' },
        project_id: { type: 'string' },
        priority: { type: 'string', enum: ['critical', 'high', 'medium', 'low'] },
        permanent: { type: 'boolean' },
      },
    },
  },
  'discovery.session.started': {
    topic: TOPICS.discoveryEvents,
    visibility: 'public',
    description: 'A discovery session started: the target URL and its configuration.',
    data: {
      type: 'object',
      required: ['session_id', 'project_id', 'target_url', 'configuration'],
      properties: {
        session_id: { type: 'string' },
        project_id: { type: 'string' },
        target_url: { type: 'string' },
        started_at: { type: 'string' },
        configuration: {
          type: 'object',
          required: ['max_pages', 'max_depth', 'request_delay_ms'],
          properties: {
            max_pages: { type: 'integer' },
            max_depth: { type: 'integer' },
            request_delay_ms: { type: 'integer' },
            include_patterns: { type: 'array', items: { type: 'string' } },
            exclude_patterns: { type: 'array', items: { type: 'string' } },
            headless: { type: 'boolean' },
            wait_for_navigation: { type: 'boolean' },
            enable_ai_analysis: { type: 'boolean' },
            interactive: { type: 'boolean' },
            allow_writes: { type: 'boolean' },
          },
        },
      },
    },
  },
  'discovery.flow.detected': {
    topic: TOPICS.discoveryEvents,
    visibility: 'public',
    description: 'The crawler detected a user flow: its details and the pages involved.',
    data: {
      type: 'object',
      required: ['session_id', 'flow'],
      properties: {
        session_id: { type: 'string' },
        flow: DISCOVERY_FLOW,
      },
    },
  },
  'discovery.session.completed': {
    topic: TOPICS.discoveryEvents,
    visibility: 'public',
    description: 'A discovery session finished crawling: pages found and flows detected.',
    data: {
      type: 'object',
      required: ['session_id', 'target_url', 'pages_found', 'flows_detected'],
      properties: {
        session_id: { type: 'string' },
        target_url: { type: 'string' },
        pages_found: { type: 'integer' },
        flows_detected: { type: 'integer' },
        api_endpoints: { type: 'integer' },
        completed_at: { type: 'string' },
        flows: { type: 'array', items: { type: 'object', required: ['flow_id', 'type'] } },
      },
    },
  },
  'organization.member.added': {
    topic: TOPICS.orgEvents,
    visibility: 'public',
    description: 'A user joined the organization.',
    data: {
      type: 'object',
      required: ['user', 'role'],
      properties: {
        user: {
          type: 'object',
          required: ['id', 'email', 'name'],
          properties: { id: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' } },
        },
        role: { type: 'string', enum: ['owner', 'admin', 'member'] },
      },
    },
  },
  'organization.member.removed': {
    topic: TOPICS.orgEvents,
    visibility: 'public',
    description: 'A user left the organization.',
    data: { type: 'object', required: ['user_id'], properties: { user_id: { type: 'string' } } },
  },
  ...quotaAndBillingEvents(),
  ...scheduleAndSummaryEvents(),
};

export function eventTopic(type: string): Topic {
  const contract = EVENTS[type];
  if (!contract) throw new Error(`Unknown event type "${type}": add it to libs/contracts/src/events.ts`);
  return contract.topic;
}

function testExecutionEvents(): Record<string, EventContract> {
  const execution = {
    type: 'object',
    required: ['id', 'test_case_id', 'test_case_name', 'project_id', 'project_name', 'status', 'priority'],
    properties: {
      id: { type: 'string', description: 'The execution (plan run) id.' },
      test_case_id: { type: 'string' },
      test_case_name: { type: 'string' },
      project_id: { type: 'string' },
      project_name: { type: 'string' },
      test_plan_id: { type: 'string' },
      environment: { type: ['string', 'null'], description: "The run's environment name; null when the run names none." },
      status: { type: 'string' },
      priority: { type: 'string', enum: ['critical', 'high', 'medium', 'low'] },
      duration_ms: { type: 'integer' },
      started_at: { type: 'string' },
      completed_at: { type: 'string' },
      url: { type: 'string' },
    },
  };
  const simple = (description: string): EventContract => ({
    topic: TOPICS.executionEvents,
    visibility: 'public',
    description,
    data: { type: 'object', required: ['execution'], properties: { execution } },
  });
  return {
    'test.execution.started': simple('A test case of an execution started: test details, project, priority.'),
    'test.execution.completed': simple('A test case finished, whatever its status: result and duration.'),
    'test.execution.passed': simple('A test case passed.'),
    'test.execution.failed': {
      topic: TOPICS.executionEvents,
      visibility: 'public',
      description: 'A test case failed: error with the failing step, screenshots, the environment, and diagnostics for failure analysis.',
      data: {
        type: 'object',
        required: ['execution', 'environment'],
        properties: {
          execution: {
            ...execution,
            required: [...execution.required, 'duration_ms', 'started_at', 'completed_at', 'error', 'screenshots', 'url'],
            properties: {
              ...execution.properties,
              error: {
                type: 'object',
                required: ['message', 'type', 'step', 'step_description'],
                properties: { message: { type: 'string' }, type: { type: 'string' }, step: { type: 'integer' }, step_description: { type: 'string' } },
              },
              screenshots: { type: 'array', items: { type: 'string' } },
            },
          },
          environment: {
            type: 'object',
            required: ['browser', 'viewport', 'url'],
            properties: { browser: { type: 'string' }, viewport: { type: 'string', pattern: '^\\d+x\\d+$' }, url: { type: 'string' } },
          },
          diagnostics: { type: 'object', description: 'Element fingerprints of passed steps; page URL, HTML, console errors and failed requests at the failure.' },
        },
      },
    },
    'test.execution.timeout': {
      topic: TOPICS.executionEvents,
      visibility: 'public',
      description: 'An execution ran past timeout_seconds: partial results.',
      data: {
        type: 'object',
        required: ['execution_id', 'partial_results'],
        properties: {
          execution_id: { type: 'string' },
          test_plan_id: { type: 'string' },
          environment: { type: ['string', 'null'], description: "The run's environment name; null when the run names none." },
          timeout_seconds: { type: 'integer' },
          partial_results: { type: 'object' },
        },
      },
    },
  };
}

/** Quotas and billing (issue 14). */
function quotaAndBillingEvents(): Record<string, EventContract> {
  const plan = { type: 'string', enum: [...PLAN_NAMES] };
  const quota = { type: 'string', enum: [...QUOTA_TYPES] };
  const invoice = {
    type: 'object',
    required: ['id', 'customer', 'currency', 'amount_due', 'amount_paid'],
    properties: {
      id: { type: 'string' },
      number: { type: ['string', 'null'] },
      customer: { type: 'string', description: 'The Stripe customer id.' },
      subscription: { type: ['string', 'null'] },
      currency: { type: 'string' },
      amount_due: { type: 'integer', description: 'In the currency’s smallest unit (cents).' },
      amount_paid: { type: 'integer' },
      period_start: { type: ['string', 'null'] },
      period_end: { type: ['string', 'null'] },
      hosted_invoice_url: { type: ['string', 'null'] },
    },
  };
  return {
    'organization.quota.warning': {
      topic: TOPICS.orgEvents,
      visibility: 'public',
      description: 'A monthly quota reached 80% of its limit (once per quota and month).',
      data: {
        type: 'object',
        required: ['quota', 'usage_percent', 'used', 'limit', 'period'],
        properties: { quota, usage_percent: { type: 'number' }, used: { type: 'number' }, limit: { type: 'number' }, unit: { type: 'string' }, period: { type: 'string' }, resets_at: { type: 'string' }, plan },
      },
    },
    'organization.quota.exceeded': {
      topic: TOPICS.orgEvents,
      visibility: 'public',
      description: 'A monthly quota is used up: new work of that kind is refused until it resets (once per quota and month).',
      data: {
        type: 'object',
        required: ['quota', 'used', 'limit', 'period', 'resets_at'],
        properties: { quota, usage_percent: { type: 'number' }, used: { type: 'number' }, limit: { type: 'number' }, unit: { type: 'string' }, period: { type: 'string' }, resets_at: { type: 'string' }, plan },
      },
    },
    'billing.subscription.updated': {
      topic: TOPICS.orgEvents,
      visibility: 'public',
      description: 'The organization’s plan changed (operator or billing provider): old and new plan; the new limits apply at once.',
      data: {
        type: 'object',
        required: ['old_plan', 'new_plan', 'source'],
        properties: {
          old_plan: plan,
          new_plan: plan,
          source: { type: 'string', enum: ['operator', 'stripe'] },
          stripe_subscription_id: { type: 'string' },
          changed_at: { type: 'string' },
        },
      },
    },
    'billing.subscription.cancelled': {
      topic: TOPICS.orgEvents,
      visibility: 'public',
      description: 'The subscription ended: the cancellation date; the organization falls to the `free` plan.',
      data: {
        type: 'object',
        required: ['cancelled_at', 'old_plan', 'new_plan'],
        properties: {
          cancelled_at: { type: 'string' },
          old_plan: plan,
          new_plan: plan,
          stripe_subscription_id: { type: 'string' },
          reason: { type: ['string', 'null'] },
        },
      },
    },
    'billing.payment.succeeded': {
      topic: TOPICS.orgEvents,
      visibility: 'public',
      description: 'An invoice was paid: its details.',
      data: { type: 'object', required: ['invoice'], properties: { invoice, paid_at: { type: ['string', 'null'] } } },
    },
    'billing.payment.failed': {
      topic: TOPICS.orgEvents,
      visibility: 'public',
      description: 'Paying an invoice failed: the failure reason, the attempt count and the next attempt.',
      data: {
        type: 'object',
        required: ['invoice', 'failure_reason'],
        properties: { invoice, failure_reason: { type: 'string' }, attempt_count: { type: 'integer' }, next_payment_attempt: { type: ['string', 'null'] } },
      },
    },
  };
}

/** Schedules, report snapshots, the execution summary, and the internal events behind usage and access (issue 14). */
function scheduleAndSummaryEvents(): Record<string, EventContract> {
  return {
    'test.plan.scheduled': {
      topic: TOPICS.executionEvents,
      visibility: 'public',
      description: 'A schedule of a test plan fired and started an execution: the schedule’s details.',
      data: {
        type: 'object',
        required: ['schedule', 'execution_id', 'test_plan'],
        properties: {
          execution_id: { type: 'string' },
          schedule: {
            type: 'object',
            required: ['id', 'cron', 'timezone', 'scheduled_for'],
            properties: {
              id: { type: 'string' },
              cron: { type: 'string' },
              timezone: { type: 'string' },
              environment: { type: ['string', 'null'] },
              scheduled_for: { type: 'string', description: 'The occurrence this run is for.' },
              missed_occurrences: { type: 'integer', description: 'Earlier occurrences missed while no scheduler ran; they are not run (one run on recovery).' },
              next_run_at: { type: ['string', 'null'] },
            },
          },
          test_plan: { type: 'object', required: ['id', 'name', 'project_id'], properties: { id: { type: 'string' }, name: { type: 'string' }, project_id: { type: 'string' } } },
        },
      },
    },
    'report.snapshot.created': {
      topic: TOPICS.analysisEvents,
      visibility: 'public',
      description: 'A report snapshot was taken (by its schedule or by `POST …/snapshots`): the report, the snapshot and where to read it.',
      data: {
        type: 'object',
        required: ['report', 'snapshot'],
        properties: {
          report: { type: 'object', required: ['id', 'name', 'kind', 'project_id'], properties: { id: { type: 'string' }, name: { type: 'string' }, kind: { type: 'string' }, project_id: { type: 'string' } } },
          snapshot: {
            type: 'object',
            required: ['id', 'trigger', 'period', 'created_at', 'url'],
            properties: {
              id: { type: 'string' },
              trigger: { type: 'string', enum: ['manual', 'schedule'] },
              scheduled_for: { type: ['string', 'null'] },
              missed_occurrences: { type: 'integer', description: 'Earlier occurrences missed while no scheduler ran (one snapshot on recovery).' },
              period: { type: 'object', required: ['from', 'to'], properties: { from: { type: 'string' }, to: { type: 'string' } } },
              executions_counted: { type: 'integer' },
              created_at: { type: 'string' },
              url: { type: 'string', description: 'The API path of the snapshot; add `?format=html` or `?format=csv`.' },
            },
          },
        },
      },
    },
    'test.completed': {
      topic: TOPICS.executionEvents,
      visibility: 'public',
      description: 'The summary of any finished execution, whatever its end (completed, failed or cancelled): `{execution_id, status, duration_ms}`.',
      data: {
        type: 'object',
        required: ['execution_id', 'status', 'duration_ms'],
        properties: {
          execution_id: { type: 'string' },
          status: { type: 'string', enum: ['completed', 'failed', 'cancelled'] },
          duration_ms: { type: 'integer', minimum: 0 },
        },
        additionalProperties: false,
      },
    },
    'discovery.pages.crawled': {
      topic: TOPICS.discoveryEvents,
      visibility: 'internal',
      description: 'The crawler fetched `pages` more pages of a session since its last such event (auth meters discovery pages from it). Emitted every 50 pages or 2 s of a crawl and when the crawl stops, so every page counts exactly once.',
      data: { type: 'object', required: ['session_id', 'pages'], properties: { session_id: { type: 'string' }, pages: { type: 'integer', minimum: 1 } } },
    },
    'discovery.page.crawled': {
      topic: TOPICS.discoveryEvents,
      visibility: 'internal',
      description: 'One page crawled: what crawlers before `discovery.pages.crawled` emitted per page. No longer emitted; auth still meters any left on the bus.',
      data: { type: 'object', required: ['session_id', 'url'], properties: { session_id: { type: 'string' }, url: { type: 'string' } } },
    },
    'auth.organization.access_changed': {
      topic: TOPICS.authEvents,
      visibility: 'internal',
      description: 'What the organization’s credentials may do changed (plan, quota, a member’s role or removal, a sign-in ended); gateways drop its cached answers.',
      data: {
        type: 'object',
        required: ['reason'],
        properties: { reason: { type: 'string', enum: ['plan_changed', 'quota_exceeded', 'member_changed', 'session_revoked'] } },
      },
    },
  };
}

/**
 * The `data` of the events services consume, as TypeScript types that follow
 * the schemas above (the outbox validates every event against them before it
 * is written, so a consumer may rely on them). `events.test.ts` checks each
 * against its schema. A consumer narrows an envelope with `isEvent` instead of
 * casting its data.
 */
export interface EventData {
  'auth.key.revoked': { key_id: string; kind: 'service_key' | 'api_key' };
  'auth.organization.status_changed': { status: 'active' | 'suspended' | 'deleted' };
  'auth.organization.access_changed': { reason: 'plan_changed' | 'quota_exceeded' | 'member_changed' | 'session_revoked' };
  'execution.requested': { execution_id: string; attempt?: number };
  'suite.shard.requested': { execution_id: string; shard: number; attempt?: number };
  'suite.list.requested': { suite_version_id: string; attempt?: number };
  'test.plan.started': { execution_id: string; test_plan: { id: string; name: string; project_id: string; tests: unknown[] } & Record<string, unknown> };
  'test.plan.completed': {
    execution_id: string;
    status?: string;
    test_plan: { id: string; name: string; project_id: string; project_name: string; duration_ms: number; summary: { total: number; passed: number; failed: number; skipped: number; pass_rate: number } } & Record<string, unknown>;
  };
  'test.execution.completed': {
    execution: { id: string; test_case_id: string; test_case_name: string; project_id: string; project_name: string; status: string; priority: 'critical' | 'high' | 'medium' | 'low'; duration_ms?: number } & Record<string, unknown>;
  };
  'test.completed': { execution_id: string; status: 'completed' | 'failed' | 'cancelled'; duration_ms: number };
  'discovery.session.completed': { session_id: string; target_url: string; pages_found: number; flows_detected: number } & Record<string, unknown>;
  'discovery.pages.crawled': { session_id: string; pages: number };
  'discovery.page.crawled': { session_id: string; url: string };
  'billing.subscription.updated': { old_plan: PlanName; new_plan: PlanName; source: 'operator' | 'stripe'; stripe_subscription_id?: string; changed_at?: string };
}

/** Whether an envelope carries this event; its `data` is then typed from EventData. */
export function isEvent<N extends keyof EventData, E extends { event: string; data: unknown }>(envelope: E, name: N): envelope is E & { event: N; data: EventData[N] } {
  return envelope.event === name;
}
