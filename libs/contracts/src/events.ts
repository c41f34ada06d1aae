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
    description: 'A test case changed: each changed field with its value before and after.',
    data: {
      type: 'object',
      required: ['test_case_id', 'name', 'changes'],
      properties: {
        test_case_id: { type: 'string' },
        name: { type: 'string' },
        changes: {
          type: 'object',
          minProperties: 1,
          additionalProperties: { type: 'object', required: ['before', 'after'], properties: { before: {}, after: {} } },
        },
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
      properties: { test_case_id: { type: 'string' }, name: { type: 'string' }, project_id: { type: 'string' }, permanent: { type: 'boolean' } },
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
};

export function eventTopic(type: string): Topic {
  const contract = EVENTS[type];
  if (!contract) throw new Error(`Unknown event type "${type}": add it to libs/contracts/src/events.ts`);
  return contract.topic;
}
