import { API_KEY_SCOPES } from './scopes.js';
import { PLAN_NAMES } from './plans.js';
import type { JsonSchema } from './json-schema.js';

const timestamp = { type: 'string', format: 'date-time' };
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' };
const keyName = { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' };
const expiresInDays = {
  type: 'integer',
  minimum: 1,
  maximum: 3650,
  description: 'Days until the key expires; omit for a key that never expires.',
};

export const authSchemas: Record<string, JsonSchema> = {
  LoginRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['email', 'password'],
    properties: {
      email: { type: 'string', format: 'email', maxLength: 254 },
      password: { type: 'string', minLength: 1, maxLength: 1024 },
      organization_id: {
        type: 'string',
        maxLength: 64,
        description: 'Which organization the session acts in; defaults to the oldest membership.',
      },
    },
  },
  LoginResponse: {
    type: 'object',
    required: ['token', 'expires_at'],
    properties: {
      token: { type: 'string', description: 'A short-lived access token (HS256 JWT, `ACCESS_TOKEN_TTL_SECONDS`, 15 min by default); send as `Authorization: Bearer <token>`. The refresh token is set as the `__Secure-assay_refresh` cookie (HttpOnly, Secure, SameSite=Strict, Path=/api/auth/refresh), never in a body.' },
      expires_at: timestamp,
    },
  },
  SessionRefreshed: {
    type: 'object',
    required: ['token', 'expires_at', 'user_id', 'organization_id', 'email'],
    properties: {
      token: { type: 'string', description: 'A new access token of the same sign-in.' },
      expires_at: timestamp,
      user_id: { type: 'string' },
      organization_id: { type: 'string', description: 'The organization the sign-in acts in.' },
      email: { type: 'string' },
    },
  },
  LogoutRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { everywhere: { type: 'boolean', description: 'End every sign-in of the user (every browser, every organization), not only this one.' } },
  },
  LoggedOut: {
    type: 'object',
    required: ['sessions_ended'],
    properties: { sessions_ended: { type: 'integer', minimum: 0 } },
  },
  PasswordChangeRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['current_password', 'new_password'],
    properties: {
      current_password: { type: 'string', minLength: 1, maxLength: 1024 },
      new_password: { type: 'string', minLength: 12, maxLength: 1024, description: 'At least 12 characters.' },
    },
  },
  PasswordChanged: {
    type: 'object',
    required: ['token', 'expires_at', 'sessions_ended'],
    properties: {
      token: { type: 'string', description: 'An access token of the new sign-in that replaces every ended one.' },
      expires_at: timestamp,
      sessions_ended: { type: 'integer', minimum: 0 },
    },
  },
  SwitchOrganizationRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['organization_id'],
    properties: { organization_id: { type: 'string', minLength: 1, maxLength: 64 } },
  },
  SwitchOrganizationResponse: {
    type: 'object',
    required: ['token', 'expires_at', 'organization_id'],
    properties: {
      token: { type: 'string', description: 'An access token acting in that organization; the sign-in (and its refresh cookie) moves there, and tokens of the old organization stop working.' },
      expires_at: timestamp,
      organization_id: { type: 'string' },
    },
  },
  SessionOrganizations: {
    type: 'object',
    required: ['current', 'data'],
    properties: {
      current: { type: 'string', description: 'The organization the calling credential acts in.' },
      data: {
        type: 'array',
        description: 'The signed-in user’s organizations, oldest membership first (empty for a key).',
        items: {
          type: 'object',
          required: ['id', 'name', 'plan', 'status', 'role'],
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            plan: { type: 'string', enum: [...PLAN_NAMES] },
            status: { type: 'string', enum: ['active', 'suspended'] },
            role: { type: 'string', enum: ['owner', 'admin', 'member'] },
          },
        },
      },
    },
  },
  ServiceKeyCreateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'environment'],
    properties: {
      name: keyName,
      environment: { type: 'string', enum: ['prod', 'dev'] },
      expires_in_days: expiresInDays,
    },
  },
  ServiceKeyCreated: {
    type: 'object',
    required: ['id', 'key', 'name', 'environment', 'created_at', 'expires_at', 'last_used'],
    properties: {
      id: { type: 'string' },
      key: { type: 'string', description: 'The secret `service_sk_<environment>_<base58>`; shown only here.' },
      name: { type: 'string' },
      environment: { type: 'string', enum: ['prod', 'dev'] },
      created_at: timestamp,
      expires_at: nullableTimestamp,
      last_used: nullableTimestamp,
    },
  },
  ServiceKey: {
    type: 'object',
    required: ['id', 'name', 'environment', 'created_at', 'expires_at', 'last_used', 'usage_count'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      environment: { type: 'string', enum: ['prod', 'dev'] },
      created_at: timestamp,
      expires_at: nullableTimestamp,
      last_used: nullableTimestamp,
      usage_count: { type: 'integer', minimum: 0 },
    },
  },
  ServiceKeyList: {
    type: 'object',
    required: ['keys'],
    properties: { keys: { type: 'array', items: { $ref: 'ServiceKey' } } },
  },
  KeyRevoked: {
    type: 'object',
    required: ['id', 'revoked_at'],
    properties: { id: { type: 'string' }, revoked_at: timestamp },
  },
  ApiKeyCreateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: keyName,
      scopes: {
        type: 'array',
        items: { type: 'string', enum: [...API_KEY_SCOPES] },
        uniqueItems: true,
        maxItems: API_KEY_SCOPES.length,
        description: 'Empty or omitted: full access (Admin level).',
      },
      expires_in_days: expiresInDays,
    },
  },
  ApiKeyCreated: {
    type: 'object',
    required: ['id', 'key', 'name', 'scopes', 'created_at', 'expires_at', 'last_used'],
    properties: {
      id: { type: 'string' },
      key: { type: 'string', description: 'The secret `sk_live_<base58>`; shown only here.' },
      name: { type: 'string' },
      scopes: { type: 'array', items: { type: 'string' } },
      created_at: timestamp,
      expires_at: nullableTimestamp,
      last_used: nullableTimestamp,
    },
  },
  ApiKey: {
    type: 'object',
    required: ['id', 'name', 'scopes', 'created_at', 'expires_at', 'last_used', 'usage_count'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'array', items: { type: 'string' } },
      created_at: timestamp,
      expires_at: nullableTimestamp,
      last_used: nullableTimestamp,
      usage_count: { type: 'integer', minimum: 0 },
    },
  },
  ApiKeyList: {
    type: 'object',
    required: ['keys'],
    properties: { keys: { type: 'array', items: { $ref: 'ApiKey' } } },
  },
  Organization: {
    type: 'object',
    required: ['id', 'name', 'plan', 'status', 'created_at'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      plan: { type: 'string', enum: [...PLAN_NAMES] },
      status: { type: 'string', enum: ['active', 'suspended', 'deleted'] },
      created_at: timestamp,
    },
  },
  Member: {
    type: 'object',
    required: ['user_id', 'email', 'name', 'role', 'created_at'],
    properties: {
      user_id: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string', enum: ['owner', 'admin', 'member'] },
      created_at: timestamp,
      pending: { type: 'boolean', description: 'Invited and not yet accepted (the account has no password yet); in the member list.' },
    },
  },
  MemberList: {
    type: 'object',
    required: ['data', 'pagination'],
    properties: { data: { type: 'array', items: { $ref: 'Member' } }, pagination: { $ref: 'Pagination' } },
  },
  TransferOwnershipRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['user_id'],
    properties: { user_id: { type: 'string', minLength: 1, maxLength: 64 } },
  },
  Me: {
    type: 'object',
    required: ['organization', 'principal'],
    properties: {
      organization: { $ref: 'Organization' },
      principal: {
        type: 'object',
        required: ['kind', 'sub', 'role', 'scopes'],
        properties: {
          kind: { type: 'string' },
          sub: { type: 'string' },
          role: { type: 'string' },
          scopes: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
  AuthenticateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['credential'],
    properties: { credential: { type: 'string', minLength: 1, maxLength: 4096 } },
  },
  UsageReport: {
    type: 'object',
    additionalProperties: false,
    required: ['usage'],
    properties: {
      usage: {
        type: 'array',
        maxItems: 10000,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['key_id', 'count', 'last_used'],
          properties: {
            key_id: { type: 'string', format: 'uuid' },
            count: { type: 'integer', minimum: 1 },
            last_used: timestamp,
          },
        },
      },
    },
  },
  OrganizationStatusRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: { status: { type: 'string', enum: ['active', 'suspended'] } },
  },
  InternalOrganizationCreateRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'plan', 'owner'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      plan: { type: 'string', enum: [...PLAN_NAMES] },
      owner: {
        type: 'object',
        additionalProperties: false,
        required: ['email', 'name', 'password'],
        properties: {
          email: { type: 'string', format: 'email', maxLength: 254 },
          name: { type: 'string', minLength: 1, maxLength: 200 },
          password: { type: 'string', minLength: 12, maxLength: 1024 },
        },
      },
    },
  },
  BootstrapRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      organization_name: { type: 'string', minLength: 1, maxLength: 200 },
      email: { type: 'string', format: 'email', maxLength: 254 },
      plan: { type: 'string', enum: [...PLAN_NAMES] },
    },
  },
};
