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

export type ScopeArea = 'projects' | 'test_cases' | 'executions' | 'discovery' | 'organization' | 'keys' | 'webhooks';

const AREA_BY_PREFIX: Array<[RegExp, ScopeArea]> = [
  [/^\/(api\/v1|api|v1)\/projects(\/|$)/, 'projects'],
  // Schedules start executions: they need the executions scope, not the test-case one.
  [/^\/(api\/v1|api)\/test-plans\/[^/]+\/schedules(\/|$)/, 'executions'],
  [/^\/(api\/v1|api)\/(test-cases|test-plans)(\/|$)/, 'test_cases'],
  [/^\/(api\/v1|api)\/(executions|artifacts)(\/|$)/, 'executions'],
  // Exploratory runs are executions; reports summarise executions and their analyses.
  // A recording drives a browser like a run: the executions scope.
  [/^\/api\/v1\/(test-runs|reports|recordings)(\/|$)/, 'executions'],
  [/^\/api\/v1\/issues(\/|$)/, 'executions'],
  [/^\/api\/v1\/discovery(\/|$)/, 'discovery'],
  [/^\/api\/v1\/webhooks(\/|$)/, 'webhooks'],
  [/^\/api\/(service-keys|api-keys)(\/|$)/, 'keys'],
  [/^\/api\/(organizations|auth)(\/|$)/, 'organization'],
];

/**
 * The scope a call needs, or null when the path is in no scoped area.
 * Organization writes are not reachable by scoped keys at all: they need
 * an unscoped key (and owner-only operations need a member session).
 */
export function requiredScope(method: string, path: string): string | null {
  const area = AREA_BY_PREFIX.find(([re]) => re.test(path))?.[1];
  if (!area) return null;
  if (area === 'keys' || area === 'webhooks') return `${area}:manage`;
  const read = method === 'GET' || method === 'HEAD';
  if (area === 'organization') return read ? 'organization:read' : 'organization:write';
  return `${area}:${read ? 'read' : 'write'}`;
}
