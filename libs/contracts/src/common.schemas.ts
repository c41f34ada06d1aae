import type { JsonSchema } from './json-schema.js';

export const commonSchemas: Record<string, JsonSchema> = {
  Error: {
    type: 'object',
    description: 'Every error body. `details` lists failing fields on validation errors.',
    required: ['error', 'message'],
    properties: {
      error: {
        type: 'string',
        enum: [
          'validation_error',
          'invalid_api_key',
          'insufficient_permissions',
          'not_found',
          'conflict',
          'payload_too_large',
          'unsupported_media_type',
          'rate_limit_exceeded',
          'not_implemented',
          'internal_server_error',
          'service_unavailable',
        ],
      },
      message: { type: 'string' },
      details: {},
      retry_after: { type: 'integer', description: 'Seconds to wait; 429 only.' },
      request_id: { type: 'string' },
    },
  },
  Pagination: {
    type: 'object',
    required: ['limit', 'offset', 'total'],
    properties: {
      limit: { type: 'integer', minimum: 0 },
      offset: { type: 'integer', minimum: 0 },
      total: { type: 'integer', minimum: 0 },
    },
  },
  EventEnvelope: {
    type: 'object',
    description: 'Envelope of every event on the bus (the webhook envelope less webhook_id and delivery_id).',
    required: ['id', 'event', 'timestamp', 'organization_id', 'data'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      event: { type: 'string' },
      timestamp: { type: 'string', format: 'date-time' },
      organization_id: { type: 'string' },
      project_id: { type: 'string' },
      data: { type: 'object' },
    },
  },
};
