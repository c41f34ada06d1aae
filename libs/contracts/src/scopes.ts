/**
 * Scopes of `sk_live_` API keys. An empty list is full access. Each area has
 * a `:read` scope (GET and HEAD) and a `:write` scope (everything else), except
 * key and webhook management, which have one strict `:manage` scope each.
 */
export const API_KEY_SCOPES = [
  'projects:read',
  'projects:write',
  'test_cases:read',
  'test_cases:write',
  'executions:read',
  'executions:write',
  'discovery:read',
  'discovery:write',
  'organization:read',
  'keys:manage',
  'webhooks:manage',
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** `organization:write`: organization writes, which no scoped key can hold (they need an unscoped key, owner-only ones a member session). */
export type RouteScope = ApiKeyScope | 'organization:write';
