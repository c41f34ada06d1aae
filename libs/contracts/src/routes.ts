import type { QuotaType } from './plans.js';
import type { RouteScope } from './scopes.js';

/**
 * The public HTTP routes, one entry each: the OpenAPI document, the reference
 * page and the gateway's routing (service, aliases, scope, quota, rate bucket)
 * are built from this list. Adding an endpoint to a service means adding its
 * entry here; a route without an entry answers 404 at the gateway.
 */
export type ServiceName =
  | 'gateway'
  | 'auth'
  | 'test-case'
  | 'execution-runner'
  | 'discovery-crawler'
  | 'analysis'
  | 'webhook-dispatcher';

export interface RouteParam {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  schema: Record<string, unknown>;
  description?: string;
}

export interface RouteContract {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI-style path template as callers use it. */
  path: string;
  service: ServiceName;
  tag: string;
  summary: string;
  description?: string;
  /** false for the few routes reachable without a credential. */
  auth?: boolean;
  params?: RouteParam[];
  /** Name of the request body schema. */
  body?: string;
  /** Success status and the name of its response schema. */
  response: { status: number; schema?: string; contentType?: string };
  /** Error statuses this route can answer besides 401/403/429/5xx. */
  errors?: number[];
  /** Other prefixes this P1 route is also served under (P0 `/api/...`, P2 `/v1/...`); the gateway forwards them as `path`. */
  aliases?: RouteAlias[];
  /**
   * Set on an entry that only documents the P0 or P2 form of a P1 entry in the reference:
   * the P1 entry's `aliases` route it, the gateway never routes this entry itself.
   */
  alias?: RouteAlias;
  /** The scope an `sk_live_` API key needs (API_KEY_SCOPES, or `organization:write`, which no scoped key holds); absent: none. */
  scope?: RouteScope;
  /** New work refused once one of these monthly quotas is used up; `what` names the work in the refusal. */
  quota?: { quotas: QuotaType[]; what: string };
  /** A per-minute rate-limit bucket of its own (the spec's test-case endpoints). */
  rateBucket?: 'test_cases';
}

/** P0 = `/api`, P2 = `/v1`: the prefixes a P1 (`/api/v1`) route can also be served under. */
export type RouteAlias = 'P0' | 'P2';
export const ALIAS_PREFIX: Record<RouteAlias, string> = { P0: '/api/', P2: '/v1/' };

const idParam = (name: string): RouteParam => ({ name, in: 'path', required: true, schema: { type: 'string' } });

export const ROUTES: RouteContract[] = [
  // auth
  {
    method: 'POST',
    path: '/api/auth/login',
    service: 'auth',
    tag: 'Authentication',
    summary: 'Log in with e-mail and password',
    description: 'Returns a short-lived access token (HS256, never prefixed `sk_live_`) usable as `Authorization: Bearer`, and sets the sign-in’s refresh token as an HttpOnly, Secure, SameSite=Strict cookie scoped to `/api/auth/refresh`.',
    auth: false,
    body: 'LoginRequest',
    response: { status: 200, schema: 'LoginResponse' },
    errors: [400, 401],
  },
  {
    method: 'POST',
    path: '/api/auth/refresh',
    service: 'auth',
    tag: 'Authentication',
    summary: 'A new access token from the refresh cookie (rotated on use)',
    description: 'No bearer credential: the `__Secure-assay_refresh` cookie is one, and this is the only route that receives it. Needs the header `X-Assay-Refresh: 1` (and, from a browser, `Sec-Fetch-Site: same-origin`): 403 otherwise. Each use replaces the cookie; a refresh token used twice (past a 10 s grace for tabs refreshing together) ends the sign-in. 401 when the sign-in ended (signed out, password changed, expired).',
    auth: false,
    response: { status: 200, schema: 'SessionRefreshed' },
    errors: [401],
  },
  {
    method: 'POST',
    path: '/api/auth/logout',
    scope: 'organization:write',
    service: 'auth',
    tag: 'Authentication',
    summary: 'Sign out: end this sign-in, or every sign-in of the user',
    description: 'Session tokens only (403 for keys). Ends the sign-in the token belongs to (`everywhere: true`: all of the user’s), its refresh cookie and its access tokens at once, in every tab.',
    body: 'LogoutRequest',
    response: { status: 200, schema: 'LoggedOut' },
    errors: [400],
  },
  {
    method: 'POST',
    path: '/api/auth/password',
    scope: 'organization:write',
    service: 'auth',
    tag: 'Authentication',
    summary: 'Change the signed-in user’s password',
    description: 'Session tokens only (403 for keys). Every sign-in of the user ends (every browser, every organization); the caller gets a new one (a new access token and refresh cookie). 400 when `current_password` is wrong.',
    body: 'PasswordChangeRequest',
    response: { status: 200, schema: 'PasswordChanged' },
    errors: [400],
  },
  {
    method: 'GET',
    path: '/api/auth/me',
    scope: 'organization:read',
    service: 'auth',
    tag: 'Authentication',
    summary: 'The calling credential and its organization',
    response: { status: 200, schema: 'Me' },
  },
  {
    method: 'GET',
    path: '/api/auth/organizations',
    scope: 'organization:read',
    service: 'auth',
    tag: 'Authentication',
    summary: 'The signed-in user’s organizations (for switching)',
    response: { status: 200, schema: 'SessionOrganizations' },
  },
  {
    method: 'POST',
    path: '/api/auth/switch-organization',
    scope: 'organization:write',
    service: 'auth',
    tag: 'Authentication',
    summary: 'A session in another of the user’s organizations',
    description: 'Session tokens only (a key belongs to one organization: 403). An organization the user is not a member of answers 404, like an unknown one.',
    body: 'SwitchOrganizationRequest',
    response: { status: 200, schema: 'SwitchOrganizationResponse' },
    errors: [400, 404],
  },
  {
    method: 'POST',
    path: '/api/service-keys',
    scope: 'keys:manage',
    service: 'auth',
    tag: 'Service keys',
    summary: 'Create a service key',
    description: 'The secret is returned once. At most 10 active keys per organization.',
    body: 'ServiceKeyCreateRequest',
    response: { status: 201, schema: 'ServiceKeyCreated' },
    errors: [400, 409],
  },
  {
    method: 'GET',
    path: '/api/service-keys',
    scope: 'keys:manage',
    service: 'auth',
    tag: 'Service keys',
    summary: 'List active service keys with usage',
    response: { status: 200, schema: 'ServiceKeyList' },
  },
  {
    method: 'DELETE',
    path: '/api/service-keys/{key_id}',
    scope: 'keys:manage',
    service: 'auth',
    tag: 'Service keys',
    summary: 'Revoke a service key',
    description: 'Takes effect on every gateway within 5 seconds.',
    params: [idParam('key_id')],
    response: { status: 200, schema: 'KeyRevoked' },
    errors: [404],
  },
  {
    method: 'POST',
    path: '/api/api-keys',
    scope: 'keys:manage',
    service: 'auth',
    tag: 'API keys',
    summary: 'Create an sk_live_ API key',
    description: 'Acts with Admin access in the organization, narrowed by `scopes` (empty: full access).',
    body: 'ApiKeyCreateRequest',
    response: { status: 201, schema: 'ApiKeyCreated' },
    errors: [400, 409],
  },
  {
    method: 'GET',
    path: '/api/api-keys',
    scope: 'keys:manage',
    service: 'auth',
    tag: 'API keys',
    summary: 'List active API keys with usage',
    response: { status: 200, schema: 'ApiKeyList' },
  },
  {
    method: 'DELETE',
    path: '/api/api-keys/{key_id}',
    scope: 'keys:manage',
    service: 'auth',
    tag: 'API keys',
    summary: 'Revoke an API key',
    params: [idParam('key_id')],
    response: { status: 200, schema: 'KeyRevoked' },
    errors: [404],
  },
  {
    method: 'GET',
    path: '/api/organizations/current',
    scope: 'organization:read',
    service: 'auth',
    tag: 'Organizations',
    summary: 'The caller’s organization',
    response: { status: 200, schema: 'Organization' },
  },
  {
    method: 'GET',
    path: '/api/organizations/current/members',
    scope: 'organization:read',
    service: 'auth',
    tag: 'Organizations',
    summary: 'Members of the caller’s organization',
    response: { status: 200, schema: 'MemberList' },
  },
  {
    method: 'POST',
    path: '/api/organizations/current/transfer-ownership',
    scope: 'organization:write',
    service: 'auth',
    tag: 'Organizations',
    summary: 'Make another member the owner (owner session only)',
    body: 'TransferOwnershipRequest',
    response: { status: 200, schema: 'Organization' },
    errors: [400, 404],
  },
  {
    method: 'DELETE',
    path: '/api/organizations/current',
    scope: 'organization:write',
    service: 'auth',
    tag: 'Organizations',
    summary: 'Delete the organization (owner session only)',
    description: 'Every credential of the organization stops working at once.',
    response: { status: 200, schema: 'Organization' },
  },
  // test-case
  ...testCaseRoutes(),
  // execution-runner
  ...executionRoutes(),
  ...testRunRoutes(),
  ...recordingRoutes(),
  ...reportRoutes(),
  // discovery-crawler
  ...discoveryRoutes(),
  // webhook-dispatcher
  ...webhookRoutes(),
  // analysis
  ...analysisRoutes(),
  // members, usage, billing, schedules (issue 14)
  ...saasRoutes(),
  // gateway
  {
    method: 'GET',
    path: '/api/v1/openapi.json',
    service: 'gateway',
    tag: 'Reference',
    summary: 'This OpenAPI 3.1 document',
    auth: false,
    response: { status: 200 },
  },
  {
    method: 'GET',
    path: '/docs',
    service: 'gateway',
    tag: 'Reference',
    summary: 'The API reference as a web page',
    auth: false,
    response: { status: 200, contentType: 'text/html' },
  },
  {
    method: 'POST',
    path: '/mcp',
    service: 'gateway',
    tag: 'MCP',
    summary: 'The MCP server (Model Context Protocol, Streamable HTTP)',
    description:
      'JSON-RPC 2.0 messages of MCP (`initialize`, `tools/list`, `tools/call`, ...), stateless; answers JSON or a Server-Sent Events stream. Each tool calls this API with the caller’s credential, so its scopes and rate limits apply. Point an MCP client here with `Authorization: Bearer <key>`.',
    response: { status: 200, contentType: 'text/event-stream' },
    errors: [400, 405],
  },
];

function testCaseRoutes(): RouteContract[] {
  const tc = (r: Omit<RouteContract, 'service'>): RouteContract => ({ service: 'test-case', ...r });
  const page = (def: number, max: number): RouteParam[] => [
    { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: max, default: def } },
    { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
  ];
  const q = (name: string, schema: Record<string, unknown>, description?: string, required = false): RouteParam => ({
    name,
    in: 'query',
    schema,
    ...(required ? { required } : {}),
    ...(description ? { description } : {}),
  });
  const projectList = (path: string, summary: string, routing: Pick<RouteContract, 'scope' | 'aliases' | 'alias'>) =>
    tc({ method: 'GET', path, ...routing, tag: 'Projects', summary, params: [...page(50, 500), q('search', { type: 'string' }, 'Case-insensitive match on the name')], response: { status: 200, schema: 'ProjectList' }, errors: [400] });
  return [
    tc({ method: 'POST', path: '/api/v1/projects', scope: 'projects:write', aliases: ['P0', 'P2'], tag: 'Projects', summary: 'Create a project', body: 'ProjectCreateRequest', response: { status: 201, schema: 'Project' }, errors: [400] }),
    projectList('/api/v1/projects', 'List projects', { scope: 'projects:read', aliases: ['P0', 'P2'] }),
    projectList('/api/projects', 'List projects (unversioned form)', { alias: 'P0' }),
    projectList('/v1/projects', 'List projects (the sk_live_ interface)', { alias: 'P2' }),
    tc({ method: 'GET', path: '/api/v1/projects/{project_id}', scope: 'projects:read', aliases: ['P0', 'P2'], tag: 'Projects', summary: 'Get a project', params: [idParam('project_id')], response: { status: 200, schema: 'Project' }, errors: [404] }),
    tc({ method: 'PUT', path: '/api/v1/projects/{project_id}', scope: 'projects:write', aliases: ['P0', 'P2'], tag: 'Projects', summary: 'Update a project', description: 'Any subset of name, description, base_url, environments (replaced whole).', params: [idParam('project_id')], body: 'ProjectUpdateRequest', response: { status: 200, schema: 'Project' }, errors: [400, 404] }),
    tc({
      method: 'GET',
      path: '/api/v1/projects/{project_id}/variables',
      scope: 'projects:read',
      aliases: ['P0', 'P2'],
      tag: 'Projects',
      summary: 'The project’s variables and secrets, per environment',
      description: 'Plain variables with their values; secrets by name only (`value` is always null: a secret is write-only). `environment` null: for every environment; a named one overrides it there.',
      params: [idParam('project_id')],
      response: { status: 200, schema: 'ProjectVariableList' },
      errors: [404],
    }),
    tc({
      method: 'PUT',
      path: '/api/v1/projects/{project_id}/variables/{name}',
      scope: 'projects:write',
      aliases: ['P0', 'P2'],
      tag: 'Projects',
      summary: 'Set a variable or a secret',
      description:
        'Steps use a plain variable as `{{name}}` and a secret as `{{secret.name}}`; a run’s own `variables` override plain ones. A secret (`secret: true`, at least 4 characters) is stored encrypted (AES-256-GCM), never shown again, and masked as `••••••` in results, events, logs and traces. `environment` (query): the environment it applies to; absent: every environment. 201 when created, 200 when replaced. At most 200 per project.',
      params: [idParam('project_id'), idParam('name'), q('environment', { type: 'string', maxLength: 32 })],
      body: 'ProjectVariableRequest',
      response: { status: 200, schema: 'ProjectVariable' },
      errors: [400, 404, 409],
    }),
    tc({
      method: 'DELETE',
      path: '/api/v1/projects/{project_id}/variables/{name}',
      scope: 'projects:write',
      aliases: ['P0', 'P2'],
      tag: 'Projects',
      summary: 'Delete a variable or a secret',
      params: [idParam('project_id'), idParam('name'), q('environment', { type: 'string', maxLength: 32 })],
      response: { status: 200, schema: 'ProjectVariableDeleted' },
      errors: [400, 404],
    }),
    tc({
      method: 'DELETE',
      path: '/api/v1/projects/{project_id}',
      scope: 'projects:write',
      aliases: ['P0', 'P2'],
      tag: 'Projects',
      summary: 'Delete a project',
      description: 'A project with test cases or plans answers 409 unless `force=true`, which removes them too.',
      params: [idParam('project_id'), q('force', { type: 'boolean', default: false })],
      response: { status: 200, schema: 'ProjectDeleted' },
      errors: [404, 409],
    }),
    tc({
      method: 'GET',
      path: '/api/v1/test-cases',
      scope: 'test_cases:read',
      aliases: ['P0'],
      rateBucket: 'test_cases',
      tag: 'Test cases',
      summary: 'List test cases',
      description: 'Oldest first (created_at, then id). `status` defaults to `active`; `all` lists both.',
      params: [
        q('project_id', { type: 'string' }, undefined, true),
        q('test_plan_id', { type: 'string' }, 'Only cases in this plan'),
        q('search', { type: 'string', maxLength: 200 }, 'Case-insensitive match on the name'),
        q('status', { type: 'string', enum: ['active', 'archived', 'all'], default: 'active' }),
        ...page(50, 500),
      ],
      response: { status: 200, schema: 'TestCaseList' },
      errors: [400, 404],
    }),
    tc({ method: 'POST', path: '/api/v1/test-cases', scope: 'test_cases:write', aliases: ['P0'], rateBucket: 'test_cases', tag: 'Test cases', summary: 'Create a test case', body: 'TestCaseCreateRequest', response: { status: 201, schema: 'TestCase' }, errors: [400, 404] }),
    tc({ method: 'GET', path: '/api/v1/test-cases/{test_case_id}', scope: 'test_cases:read', aliases: ['P0'], rateBucket: 'test_cases', tag: 'Test cases', summary: 'Get a test case', params: [idParam('test_case_id')], response: { status: 200, schema: 'TestCase' }, errors: [404] }),
    tc({ method: 'PUT', path: '/api/v1/test-cases/{test_case_id}', scope: 'test_cases:write', aliases: ['P0'], rateBucket: 'test_cases', tag: 'Test cases', summary: 'Update a test case', params: [idParam('test_case_id')], body: 'TestCaseUpdateRequest', response: { status: 200, schema: 'TestCase' }, errors: [400, 404] }),
    tc({
      method: 'DELETE',
      path: '/api/v1/test-cases/{test_case_id}',
      scope: 'test_cases:write',
      aliases: ['P0'],
      rateBucket: 'test_cases',
      tag: 'Test cases',
      summary: 'Archive or delete a test case',
      description: 'Archives by default (`{id, status: "archived", deleted_at}`); `force_delete=true` (or `soft_delete=false`) removes it permanently and answers TestCaseRemoved.',
      params: [idParam('test_case_id'), q('soft_delete', { type: 'boolean', default: true }), q('force_delete', { type: 'boolean', default: false })],
      response: { status: 200, schema: 'TestCaseArchived' },
      errors: [400, 404],
    }),
    tc({ method: 'POST', path: '/api/v1/test-cases/{test_case_id}/restore', scope: 'test_cases:write', aliases: ['P0'], rateBucket: 'test_cases', tag: 'Test cases', summary: 'Restore an archived test case', params: [idParam('test_case_id')], response: { status: 200, schema: 'TestCase' }, errors: [404, 409] }),
    tc({
      method: 'POST',
      path: '/api/v1/test-cases/bulk-delete',
      scope: 'test_cases:write',
      aliases: ['P0'],
      rateBucket: 'test_cases',
      tag: 'Test cases',
      summary: 'Archive or delete up to 1,000 test cases',
      description: 'One transaction, one request for rate limits; a status for every id (unknown and foreign ids: `not_found`).',
      body: 'BulkDeleteRequest',
      response: { status: 200, schema: 'BulkDeleteResponse' },
      errors: [400],
    }),
    tc({
      method: 'POST',
      path: '/api/v1/test-cases/import',
      scope: 'test_cases:write',
      aliases: ['P0'],
      rateBucket: 'test_cases',
      tag: 'Test cases',
      summary: 'Import test cases from CSV, JSON or a Selenium IDE project (.side)',
      description: 'multipart/form-data with `project_id` and `file` (≤ 10,000 cases, ≤ 20 MB). Valid rows are imported even when others fail; a `.side` test whose commands do not all map to actions is reported on its row. See the formats in the test-case service README.',
      response: { status: 200, schema: 'ImportResponse' },
      errors: [400, 404, 413, 415],
    }),
    tc({ method: 'POST', path: '/api/v1/test-plans', scope: 'test_cases:write', aliases: ['P0'], tag: 'Test plans', summary: 'Create a test plan', body: 'TestPlanCreateRequest', response: { status: 201, schema: 'TestPlan' }, errors: [400, 404] }),
    tc({ method: 'GET', path: '/api/v1/test-plans', scope: 'test_cases:read', aliases: ['P0'], tag: 'Test plans', summary: 'List test plans', params: [q('project_id', { type: 'string' }), ...page(50, 500)], response: { status: 200, schema: 'TestPlanList' }, errors: [400, 404] }),
    tc({ method: 'GET', path: '/api/v1/test-plans/{test_plan_id}', scope: 'test_cases:read', aliases: ['P0'], tag: 'Test plans', summary: 'Get a test plan', params: [idParam('test_plan_id')], response: { status: 200, schema: 'TestPlan' }, errors: [404] }),
    tc({ method: 'PUT', path: '/api/v1/test-plans/{test_plan_id}', scope: 'test_cases:write', aliases: ['P0'], tag: 'Test plans', summary: 'Update a test plan', description: '`test_case_ids` replaces the membership and its order.', params: [idParam('test_plan_id')], body: 'TestPlanUpdateRequest', response: { status: 200, schema: 'TestPlan' }, errors: [400, 404] }),
    tc({ method: 'DELETE', path: '/api/v1/test-plans/{test_plan_id}', scope: 'test_cases:write', aliases: ['P0'], tag: 'Test plans', summary: 'Delete a test plan (its test cases stay)', params: [idParam('test_plan_id')], response: { status: 200, schema: 'TestPlanDeleted' }, errors: [404] }),
    tc({
      method: 'POST',
      path: '/api/v1/test-plans/{test_plan_id}/test-cases',
      scope: 'test_cases:write',
      aliases: ['P0'],
      rateBucket: 'test_cases',
      tag: 'Test plans',
      summary: 'Add a test case to a plan',
      description: 'Idempotent: 201 when added at the end, 200 with `added: false` when it was already there.',
      params: [idParam('test_plan_id')],
      body: 'TestPlanAddCaseRequest',
      response: { status: 201, schema: 'TestPlanMembership' },
      errors: [400, 404],
    }),
    tc({ method: 'DELETE', path: '/api/v1/test-plans/{test_plan_id}/test-cases/{test_case_id}', scope: 'test_cases:write', aliases: ['P0'], rateBucket: 'test_cases', tag: 'Test plans', summary: 'Remove a test case from a plan', params: [idParam('test_plan_id'), idParam('test_case_id')], response: { status: 200, schema: 'TestPlan' }, errors: [404] }),
    ...[
      { path: '/api/v1/test-cases/{test_case_id}/export', id: 'test_case_id', tag: 'Test cases', what: 'a test case', rateBucket: 'test_cases' as const },
      { path: '/api/v1/test-plans/{test_plan_id}/export', id: 'test_plan_id', tag: 'Test plans', what: 'a test plan (its active cases in run order)' },
    ].map((e) =>
      tc({
        method: 'GET',
        path: e.path,
        scope: 'test_cases:read',
        aliases: ['P0'],
        ...(e.rateBucket ? { rateBucket: e.rateBucket } : {}),
        tag: e.tag,
        summary: `Export ${e.what} as a Playwright Test file or as import JSON`,
        description:
          '`format=playwright` (default): a `.spec.ts` that `npx playwright test` runs as is, with role, label, placeholder and test id locators where the selector says exactly that; `BASE_URL` overrides the project’s base URL (or that of `environment`), `ASSAY_VAR_<name>` supplies `{{name}}`. `format=json`: the JSON import format. Sent as an attachment with its file name.',
        params: [
          idParam(e.id),
          q('format', { type: 'string', enum: ['playwright', 'json'], default: 'playwright' }),
          q('environment', { type: 'string' }, 'A key of the project’s `environments`: its base URL is used'),
        ],
        response: { status: 200, contentType: 'text/plain' },
        errors: [400, 404],
      }),
    ),
  ];
}

function executionRoutes(): RouteContract[] {
  const ex = (r: Omit<RouteContract, 'service' | 'tag'>): RouteContract => ({ service: 'execution-runner', tag: 'Executions', ...r });
  const id = { name: 'execution_id', in: 'path' as const, required: true, schema: { type: 'string' } };
  return [
    ex({
      method: 'POST',
      path: '/api/v1/executions',
      scope: 'executions:write',
      aliases: ['P0'],
      quota: { quotas: ['executions', 'browser_minutes'], what: 'executions' },
      summary: 'Run a test plan (waits for the results by default)',
      description: 'With `wait_for_completion` (default true) answers when the run ends, with `results`; false answers at once like the async form.',
      body: 'ExecutionCreateRequest',
      response: { status: 200, schema: 'Execution' },
      errors: [400, 404],
    }),
    ex({ method: 'POST', path: '/api/v1/executions/async', scope: 'executions:write', aliases: ['P0'], quota: { quotas: ['executions', 'browser_minutes'], what: 'executions' }, summary: 'Queue a run of a test plan', body: 'ExecutionAsyncRequest', response: { status: 202, schema: 'ExecutionQueued' }, errors: [400, 404] }),
    ex({
      method: 'GET',
      path: '/api/v1/executions',
      scope: 'executions:read',
      aliases: ['P0'],
      summary: 'List executions of a project, newest first',
      params: [
        { name: 'project_id', in: 'query', required: true, schema: { type: 'string' } },
        { name: 'status', in: 'query', schema: { type: 'string', enum: ['queued', 'pending', 'running', 'completed', 'failed', 'cancelled'] } },
        {
          name: 'outcome',
          in: 'query',
          schema: { type: 'string', enum: ['passed', 'failed', 'cancelled', 'running'] },
          description: 'What a person reads first: `passed` (every case passed), `failed` (a case failed or did not run, or the run broke: `status` completed with failures, or failed), `cancelled`, `running` (not ended).',
        },
        { name: 'created_after', in: 'query', schema: { type: 'string', format: 'date-time' } },
        { name: 'created_before', in: 'query', schema: { type: 'string', format: 'date-time' } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
        { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
      ],
      response: { status: 200, schema: 'ExecutionList' },
      errors: [400],
    }),
    ex({ method: 'GET', path: '/api/v1/executions/{execution_id}', scope: 'executions:read', aliases: ['P0'], summary: 'The whole execution with its results', params: [id], response: { status: 200, schema: 'Execution' }, errors: [404] }),
    ex({ method: 'GET', path: '/api/v1/executions/{execution_id}/status', scope: 'executions:read', aliases: ['P0'], summary: 'Progress while running, counts once finished', params: [id], response: { status: 200, schema: 'ExecutionStatus' }, errors: [404] }),
    ex({ method: 'GET', path: '/api/v1/executions/{execution_id}/results', scope: 'executions:read', aliases: ['P0'], summary: 'Per-test and per-step results with screenshots', params: [id], response: { status: 200, schema: 'ExecutionResults' }, errors: [404] }),
    ex({
      method: 'GET',
      path: '/api/v1/executions/{execution_id}/stream',
      scope: 'executions:read',
      aliases: ['P0'],
      summary: 'Server-Sent Events of the run as it happens',
      description: 'Events `status`, `test_started`, `step_finished`, `test_finished`, `completed`; resumable with `Last-Event-ID`.',
      params: [id],
      response: { status: 200, contentType: 'text/event-stream' },
      errors: [404],
    }),
    ex({
      method: 'POST',
      path: '/api/v1/executions/{execution_id}/rerun',
      scope: 'executions:write',
      aliases: ['P0'],
      summary: 'Run an ended execution’s failed cases again',
      description:
        'A new execution (`rerun_of` names this one) with the same environment, variables, trace mode and timeout: of a plan run, the cases that failed or did not run (`only: "all"`: every case), as the plan holds them now; of a run of one test case, that case. 409 while it runs, when every case passed, or for an exploratory run of steps.',
      params: [id],
      body: 'ExecutionRerunRequest',
      response: { status: 202, schema: 'ExecutionQueued' },
      errors: [400, 404, 409],
    }),
    ex({ method: 'DELETE', path: '/api/v1/executions/{execution_id}', scope: 'executions:write', aliases: ['P0'], summary: 'Cancel a queued or running execution', params: [id], response: { status: 200, schema: 'ExecutionCancelled' }, errors: [404, 409] }),
    ex({
      method: 'POST',
      path: '/api/v1/artifacts',
      scope: 'executions:write',
      summary: 'Upload a file for `upload` steps',
      description:
        'multipart/form-data with one `file` field (at most `ARTIFACT_MAX_BYTES`, 10 MB by default). The file belongs to the organization: an `upload` step that names it (its `id` as the `value`) sets it on a file input. Another organization’s steps cannot read it.',
      response: { status: 201, schema: 'ArtifactUploaded' },
      errors: [400, 413, 415],
    }),
    ex({
      method: 'GET',
      path: '/api/v1/artifacts/{artifact_id}',
      scope: 'executions:read',
      summary: 'A screenshot (PNG) or trace of an execution, or an uploaded file',
      params: [{ name: 'artifact_id', in: 'path', required: true, schema: { type: 'string' } }],
      response: { status: 200, contentType: 'image/png' },
      errors: [404],
    }),
  ];
}

function testRunRoutes(): RouteContract[] {
  const tr = (r: Omit<RouteContract, 'service' | 'tag'>): RouteContract => ({ service: 'execution-runner', tag: 'Test runs', ...r });
  const id = idParam('test_run_id');
  return [
    tr({
      method: 'POST',
      path: '/api/v1/test-runs',
      scope: 'executions:write',
      quota: { quotas: ['executions', 'browser_minutes'], what: 'test runs' },
      summary: 'Run steps, or a discovery session’s flows, once without saving a test case',
      description:
        'The "try it" of test authoring: `steps` run as one test in Chromium, with the results, screenshots, traces, stream, events and failure analysis of an execution. `discovery_session_id` instead generates the session’s flows as test cases in memory and runs them all. Waits for the results unless `wait_for_completion` is false (202).',
      body: 'TestRunCreateRequest',
      response: { status: 200, schema: 'TestRun' },
      errors: [400, 404, 409, 501],
    }),
    tr({
      method: 'GET',
      path: '/api/v1/test-runs',
      scope: 'executions:read',
      summary: 'List exploratory runs of a project, newest first',
      params: [
        { name: 'project_id', in: 'query', required: true, schema: { type: 'string' } },
        { name: 'status', in: 'query', schema: { type: 'string', enum: ['queued', 'pending', 'running', 'completed', 'failed', 'cancelled'] } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
        { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
      ],
      response: { status: 200, schema: 'TestRunList' },
      errors: [400, 404],
    }),
    tr({ method: 'GET', path: '/api/v1/test-runs/{test_run_id}', scope: 'executions:read', summary: 'An exploratory run with its per-step results', params: [id], response: { status: 200, schema: 'TestRun' }, errors: [404] }),
    tr({ method: 'DELETE', path: '/api/v1/test-runs/{test_run_id}', scope: 'executions:write', summary: 'Cancel a queued or running exploratory run', params: [id], response: { status: 200, schema: 'ExecutionCancelled' }, errors: [404, 409] }),
    tr({
      method: 'GET',
      path: '/api/v1/test-runs/{test_run_id}/stream',
      scope: 'executions:read',
      summary: 'Server-Sent Events of the run as it happens',
      description: 'The events of an execution’s stream (`status`, `test_started`, `step_finished`, `test_finished`, `completed`); resumable with `Last-Event-ID`.',
      params: [id],
      response: { status: 200, contentType: 'text/event-stream' },
      errors: [404],
    }),
    tr({
      method: 'POST',
      path: '/api/v1/test-runs/{test_run_id}/save',
      scope: 'executions:write',
      summary: 'Save a finished run of steps as a test case',
      description:
        'The new case keeps the run’s test id and step ids, so the element fingerprints its run captured are the case’s history for failure analysis from day one; `test_plan_id` appends it to a plan. 409 while the run is going or once it was saved.',
      params: [id],
      body: 'TestRunSaveRequest',
      response: { status: 201, schema: 'TestRunSaved' },
      errors: [400, 404, 409],
    }),
  ];
}

function recordingRoutes(): RouteContract[] {
  const rc = (r: Omit<RouteContract, 'service' | 'tag'>): RouteContract => ({ service: 'execution-runner', tag: 'Recorder', ...r });
  const id = idParam('recording_id');
  return [
    rc({
      method: 'POST',
      path: '/api/v1/recordings',
      scope: 'executions:write',
      quota: { quotas: ['browser_minutes'], what: 'recordings' },
      summary: 'Open a recording: a remote browser page on the project’s app whose input becomes test steps',
      description:
        'The page lives in a runner process (a browser context of its own, through the egress policy like a run), opens at `start_path` under the base URL and records it as the first `navigate` step. Follow it with `GET …/stream` (screencast frames, steps) and drive it with `POST …/input`. At most `RECORDER_MAX_PER_ORG` (2) open per organization (409); closed after `RECORDER_IDLE_SECONDS` without input or `RECORDER_MAX_SECONDS` in all.',
      body: 'RecordingCreateRequest',
      response: { status: 201, schema: 'Recording' },
      errors: [400, 404, 409, 501],
    }),
    rc({ method: 'GET', path: '/api/v1/recordings', scope: 'executions:read', summary: 'The organization’s open recordings', response: { status: 200, schema: 'RecordingList' }, errors: [501] }),
    rc({ method: 'GET', path: '/api/v1/recordings/{recording_id}', scope: 'executions:read', summary: 'A recording with its steps and their selector alternatives', params: [id], response: { status: 200, schema: 'Recording' }, errors: [404, 501] }),
    rc({ method: 'DELETE', path: '/api/v1/recordings/{recording_id}', scope: 'executions:write', summary: 'Stop a recording and close its page; answers its steps', params: [id], response: { status: 200, schema: 'Recording' }, errors: [404, 501] }),
    rc({
      method: 'POST',
      path: '/api/v1/recordings/{recording_id}/input',
      scope: 'executions:write',
      summary: 'Forward one input to the page (click, text, key, select, scroll, navigate), record an assertion, or pick an element',
      description: 'Inputs run in order. The element under the point (or the focused one) is named by the same selector ranking failure analysis uses before the input is dispatched; the answer says which step it recorded or updated and the element’s selector alternatives with their stability.',
      params: [id],
      body: 'RecordingInput',
      response: { status: 200, schema: 'RecordingInputResult' },
      errors: [400, 404, 501],
    }),
    rc({
      method: 'GET',
      path: '/api/v1/recordings/{recording_id}/stream',
      scope: 'executions:read',
      summary: 'Server-Sent Events of a recording: screencast frames, steps, the page’s address, the end',
      description: 'Events `frame` (`data`: a base64 JPEG of the 1280x720 page, `width`, `height`; the latest frame first, then each change; frames a slow client cannot take are dropped), `step` (`index`, `step`, `updated`), `url`, `ended` (`reason`; the stream ends).',
      params: [id],
      response: { status: 200, contentType: 'text/event-stream' },
      errors: [404, 501],
    }),
  ];
}

function reportRoutes(): RouteContract[] {
  const rp = (r: Omit<RouteContract, 'service' | 'tag'>): RouteContract => ({ service: 'analysis', tag: 'Reports', ...r });
  const id = idParam('report_id');
  const sid = idParam('snapshot_id');
  return [
    rp({ method: 'POST', path: '/api/v1/reports', scope: 'executions:write', summary: 'Define a report over a project’s executions and analyses', body: 'ReportCreateRequest', response: { status: 201, schema: 'Report' }, errors: [400, 404] }),
    rp({
      method: 'GET',
      path: '/api/v1/reports',
      scope: 'executions:read',
      summary: 'List a project’s report definitions',
      params: [
        { name: 'project_id', in: 'query', required: true, schema: { type: 'string' } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
        { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
      ],
      response: { status: 200, schema: 'ReportList' },
      errors: [400, 404],
    }),
    rp({
      method: 'GET',
      path: '/api/v1/reports/dashboard',
      scope: 'executions:read',
      summary: 'A project’s dashboard: pass rate over time, slowest and flakiest cases, open issues, last runs',
      description:
        'Computed when asked from the data reports count (finished plan runs of the last `days`, open issues): pass rate by day (every day of the period), the ten slowest cases (median and p95 in ms), the ten flakiest (flip rate in %), up to ten open issues and the last ten runs with their outcome. `format=csv` answers one of its lists (`table`) as CSV.',
      params: [
        { name: 'project_id', in: 'query', required: true, schema: { type: 'string' } },
        { name: 'days', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 90, default: 30 } },
        { name: 'format', in: 'query', schema: { type: 'string', enum: ['json', 'csv'], default: 'json' } },
        { name: 'table', in: 'query', schema: { type: 'string', enum: ['pass_rate_by_day', 'slowest_cases', 'flakiest_cases', 'open_issues', 'last_runs'], default: 'pass_rate_by_day' }, description: 'The list a CSV export holds.' },
      ],
      response: { status: 200, schema: 'Dashboard' },
      errors: [400, 404],
    }),
    rp({ method: 'GET', path: '/api/v1/reports/{report_id}', scope: 'executions:read', summary: 'A report definition', params: [id], response: { status: 200, schema: 'Report' }, errors: [404] }),
    rp({ method: 'PUT', path: '/api/v1/reports/{report_id}', scope: 'executions:write', summary: 'Change a report definition (its snapshots stay as they were)', params: [id], body: 'ReportUpdateRequest', response: { status: 200, schema: 'Report' }, errors: [400, 404] }),
    rp({ method: 'DELETE', path: '/api/v1/reports/{report_id}', scope: 'executions:write', summary: 'Delete a report definition and its snapshots', params: [id], response: { status: 200, schema: 'ReportDeleted' }, errors: [404] }),
    rp({
      method: 'POST',
      path: '/api/v1/reports/{report_id}/snapshots',
      scope: 'executions:write',
      summary: 'Freeze the report’s data now',
      description: 'Computes the report from the runner’s raw results and the analyses and stores it as a row that never changes: reopening it later shows exactly what it showed.',
      params: [id],
      response: { status: 201, schema: 'ReportSnapshot' },
      errors: [400, 404],
    }),
    rp({ method: 'GET', path: '/api/v1/reports/{report_id}/snapshots', scope: 'executions:read', summary: 'List a report’s snapshots, newest first', params: [id], response: { status: 200, schema: 'ReportSnapshotList' }, errors: [404] }),
    rp({
      method: 'GET',
      path: '/api/v1/reports/{report_id}/snapshots/{snapshot_id}',
      scope: 'executions:read',
      summary: 'A snapshot as JSON, CSV or a self-contained HTML page',
      description:
        '`format=json` (default); `format=csv` (one table, the first unless `table=` names another); `format=html`: a page with the chart as SVG rendered on the server (Vega-Lite) and every table, no script and no external resource, to open or attach to a mail.',
      params: [
        id,
        sid,
        { name: 'format', in: 'query', schema: { type: 'string', enum: ['json', 'csv', 'html'], default: 'json' } },
        { name: 'table', in: 'query', schema: { type: 'string' }, description: 'CSV only: which table.' },
      ],
      response: { status: 200, schema: 'ReportSnapshot' },
      errors: [400, 404],
    }),
  ];
}

function discoveryRoutes(): RouteContract[] {
  const dc = (r: Omit<RouteContract, 'service' | 'tag'>): RouteContract => ({ service: 'discovery-crawler', tag: 'Discovery', ...r });
  const id = { name: 'session_id', in: 'path' as const, required: true, schema: { type: 'string' } };
  return [
    dc({
      method: 'POST',
      path: '/api/v1/discovery/start',
      scope: 'discovery:write',
      quota: { quotas: ['discovery_pages'], what: 'discovery sessions' },
      summary: 'Start crawling a target application',
      description:
        'Crawls the origin of `target_url` in Chromium. Bounds: max_pages 1–1000, max_depth 0–20, request_delay_ms 0–60000 (default 500). Private and loopback targets are refused unless the deployment allows them.',
      body: 'DiscoveryStartRequest',
      response: { status: 201, schema: 'DiscoveryStarted' },
      errors: [400, 404],
    }),
    dc({
      method: 'GET',
      path: '/api/v1/discovery',
      scope: 'discovery:read',
      summary: 'List the organization’s discovery sessions, newest first',
      description: 'Optionally of one project (an unknown project, or another organization’s, answers 404) and in one status.',
      params: [
        { name: 'project_id', in: 'query', schema: { type: 'string' } },
        { name: 'status', in: 'query', schema: { type: 'string', enum: ['running', 'paused', 'cancelled', 'completed', 'failed'] } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
        { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
      ],
      response: { status: 200, schema: 'DiscoverySessionList' },
      errors: [400, 404],
    }),
    dc({ method: 'GET', path: '/api/v1/discovery/{session_id}/progress', scope: 'discovery:read', summary: 'Progress of a discovery session', params: [id], response: { status: 200, schema: 'DiscoveryProgress' }, errors: [404] }),
    dc({ method: 'GET', path: '/api/v1/discovery/{session_id}/results', scope: 'discovery:read', summary: 'Pages, flows, UI patterns and API endpoints found so far', params: [id], response: { status: 200, schema: 'DiscoveryResults' }, errors: [404] }),
    dc({ method: 'POST', path: '/api/v1/discovery/{session_id}/pause', scope: 'discovery:write', summary: 'Pause a running session (its frontier is kept)', params: [id], response: { status: 200, schema: 'DiscoveryPaused' }, errors: [404, 409] }),
    dc({ method: 'POST', path: '/api/v1/discovery/{session_id}/resume', scope: 'discovery:write', summary: 'Resume a paused session where it stopped', params: [id], response: { status: 200, schema: 'DiscoveryResumed' }, errors: [404, 409] }),
    dc({ method: 'DELETE', path: '/api/v1/discovery/{session_id}', scope: 'discovery:write', summary: 'Cancel a running or paused session', params: [id], response: { status: 200, schema: 'DiscoveryCancelled' }, errors: [404, 409] }),
    dc({
      method: 'GET',
      path: '/api/v1/discovery/{session_id}/stream',
      scope: 'discovery:read',
      summary: 'Server-Sent Events of the crawl',
      description:
        'Events `page_discovered` (url, title, status_code, depth, content_type, reached_by), `flow_detected` (type, flow_id, pages), `warning` (code, message, pages, count: the first time a kind of warning appears), `completion` (status, pages_crawled, flows_detected, warnings); resumable with `Last-Event-ID`; a stream opened after the end replays and closes.',
      params: [id],
      response: { status: 200, contentType: 'text/event-stream' },
      errors: [404],
    }),
    dc({
      method: 'POST',
      path: '/api/v1/discovery/{session_id}/generate-test-cases',
      scope: 'discovery:write',
      summary: 'Turn detected flows into test cases of the session’s project',
      description: 'Steps use stable selectors (ids, data-testid, names, labels); an optional `test_plan_id` gets the new cases appended.',
      params: [id],
      body: 'DiscoveryGenerateRequest',
      response: { status: 201, schema: 'DiscoveryGenerated' },
      errors: [400, 404, 409],
    }),
  ];
}

function webhookRoutes(): RouteContract[] {
  const wh = (r: Omit<RouteContract, 'service' | 'tag'>): RouteContract => ({ service: 'webhook-dispatcher', tag: 'Webhooks', ...r });
  const id = idParam('webhook_id');
  const manage = 'Admin or Owner role, or an `sk_live_` key with the `webhooks:manage` scope.';
  return [
    wh({
      method: 'POST',
      path: '/api/v1/webhooks',
      scope: 'webhooks:manage',
      summary: 'Register a webhook',
      description: `${manage} Sends a test event at once. The secret (given, ≥ 24 characters, or generated) is returned only here. Plan limits: 3/10/unlimited webhooks (Starter/Growth/Pro); conditional rules on Pro.`,
      body: 'WebhookCreateRequest',
      response: { status: 201, schema: 'WebhookCreated' },
      errors: [400],
    }),
    wh({
      method: 'GET',
      path: '/api/v1/webhooks',
      scope: 'webhooks:manage',
      summary: 'List webhooks',
      params: [
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
        { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
      ],
      response: { status: 200, schema: 'WebhookList' },
      errors: [400],
    }),
    wh({ method: 'GET', path: '/api/v1/webhooks/{webhook_id}', scope: 'webhooks:manage', summary: 'Get a webhook', params: [id], response: { status: 200, schema: 'Webhook' }, errors: [404] }),
    wh({ method: 'PATCH', path: '/api/v1/webhooks/{webhook_id}', scope: 'webhooks:manage', summary: 'Change a webhook', description: 'Any subset of the fields; `enabled: true` re-enables a disabled webhook.', params: [id], body: 'WebhookUpdateRequest', response: { status: 200, schema: 'Webhook' }, errors: [400, 404] }),
    wh({ method: 'DELETE', path: '/api/v1/webhooks/{webhook_id}', scope: 'webhooks:manage', summary: 'Delete a webhook and its delivery log', params: [id], response: { status: 200, schema: 'WebhookDeleted' }, errors: [404] }),
    wh({ method: 'POST', path: '/api/v1/webhooks/{webhook_id}/test', scope: 'webhooks:manage', summary: 'Send a test event', params: [id], body: 'WebhookTestRequest', response: { status: 202, schema: 'WebhookDelivery' }, errors: [400, 404, 409] }),
    wh({
      method: 'POST',
      path: '/api/v1/webhooks/{webhook_id}/rotate-secret',
      scope: 'webhooks:manage',
      summary: 'Rotate the signing secret',
      description: 'For 24 hours deliveries carry two Standard Webhooks signatures (new and old secret); X-Service-Signature uses the new one.',
      params: [id],
      body: 'WebhookRotateRequest',
      response: { status: 200, schema: 'WebhookSecretRotated' },
      errors: [400, 404],
    }),
    wh({
      method: 'GET',
      path: '/api/v1/webhooks/{webhook_id}/deliveries',
      scope: 'webhooks:manage',
      summary: 'The delivery log, newest first',
      description: 'Kept for the plan’s history period (7/30/90 days).',
      params: [
        id,
        { name: 'status', in: 'query', schema: { type: 'string', enum: ['pending', 'delivered', 'failed'] } },
        { name: 'event', in: 'query', schema: { type: 'string' } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
        { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
      ],
      response: { status: 200, schema: 'WebhookDeliveryList' },
      errors: [400, 404],
    }),
    wh({
      method: 'POST',
      path: '/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/resend',
      scope: 'webhooks:manage',
      summary: 'Send a delivery again at once',
      params: [id, idParam('delivery_id')],
      response: { status: 202, schema: 'WebhookDelivery' },
      errors: [404, 409],
    }),
  ];
}

function analysisRoutes(): RouteContract[] {
  const an = (r: Omit<RouteContract, 'service'>): RouteContract => ({ service: 'analysis', ...r });
  const execution = idParam('execution_id');
  const test = idParam('test_id');
  const analysisDescription =
    'One item per failed test: `failure_category` (selector_changed, element_missing, element_not_interactable, assertion_mismatch, page_error, network_error, script_error, timeout, flaky), `confidence` from the evidence, a plain `description`, `evidence` and concrete `fix_suggestions`. Produced after the execution ends; until then 202 with `Retry-After` (a passed execution answers an empty `analysis`). `suggested_alternative` is only a selector verified twice: against the DOM at the failure and by re-running the test against the live target.';
  return [
    an({ method: 'GET', path: '/api/v1/executions/{execution_id}/failure-analysis', scope: 'executions:read', aliases: ['P0'], tag: 'Failure analysis', summary: 'The failure analysis of an execution', description: analysisDescription, params: [execution], response: { status: 200, schema: 'FailureAnalysis' }, errors: [404] }),
    an({ method: 'GET', path: '/api/executions/{execution_id}/failure-analysis', alias: 'P0', tag: 'Failure analysis', summary: 'The failure analysis of an execution (unversioned form)', description: 'The same resource as `/api/v1/executions/{execution_id}/failure-analysis`.', params: [execution], response: { status: 200, schema: 'FailureAnalysis' }, errors: [404] }),
    an({
      method: 'POST',
      path: '/api/v1/executions/{execution_id}/failure-analysis/{test_id}/apply',
      scope: 'executions:write',
      aliases: ['P0'],
      tag: 'Failure analysis',
      summary: 'Write the verified selector into the test case',
      description: 'Replaces the failing selector in every step of the case that used it (`test.case.updated` carries the change). 409 when the suggestion was not verified, was rejected, or the case changed since the run. Applying twice answers the same.',
      params: [execution, test],
      response: { status: 200, schema: 'FailureAnalysisApplied' },
      errors: [404, 409],
    }),
    an({
      method: 'POST',
      path: '/api/v1/executions/{execution_id}/failure-analysis/{test_id}/reject',
      scope: 'executions:write',
      aliases: ['P0'],
      tag: 'Failure analysis',
      summary: 'Reject a suggested element',
      description: 'The element is remembered for this step and never suggested again. Optional body `{reason}`.',
      params: [execution, test],
      body: 'FailureAnalysisRejectRequest',
      response: { status: 200, schema: 'FailureAnalysisRejected' },
      errors: [400, 404, 409],
    }),
    an({
      method: 'GET',
      path: '/api/v1/issues',
      scope: 'executions:read',
      tag: 'Issues',
      summary: 'List issues (failures grouped by cause)',
      description: 'One issue per project, test case, step, category and normalised error; newest occurrence first.',
      params: [
        { name: 'project_id', in: 'query', schema: { type: 'string' } },
        { name: 'status', in: 'query', schema: { type: 'string', enum: ['open', 'acknowledged', 'resolved', 'ignored'] } },
        { name: 'category', in: 'query', schema: { type: 'string' } },
        { name: 'test_case_id', in: 'query', schema: { type: 'string' } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
        { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
      ],
      response: { status: 200, schema: 'IssueList' },
      errors: [400],
    }),
    an({ method: 'GET', path: '/api/v1/issues/{issue_id}', scope: 'executions:read', tag: 'Issues', summary: 'An issue with its occurrences and latest analysis', params: [idParam('issue_id')], response: { status: 200, schema: 'IssueDetail' }, errors: [404] }),
    an({
      method: 'PATCH',
      path: '/api/v1/issues/{issue_id}',
      scope: 'executions:write',
      tag: 'Issues',
      summary: 'Triage an issue',
      description: '`{status: open | acknowledged | resolved | ignored}`. A new occurrence of a resolved issue reopens it.',
      params: [idParam('issue_id')],
      body: 'IssueUpdateRequest',
      response: { status: 200, schema: 'Issue' },
      errors: [400, 404],
    }),
    an({
      method: 'GET',
      path: '/api/v1/test-cases/{test_case_id}/flakiness',
      scope: 'test_cases:read',
      aliases: ['P0'],
      rateBucket: 'test_cases',
      tag: 'Issues',
      summary: 'How flaky a test case is',
      description: 'Flip rate over its last 30 analysed runs per plan, environment and test-case version; bands low ≤ 10 %, medium ≤ 50 %, high.',
      params: [idParam('test_case_id')],
      response: { status: 200, schema: 'TestCaseFlakiness' },
      errors: [404],
    }),
  ];
}

function saasRoutes(): RouteContract[] {
  const org = (r: Omit<RouteContract, 'service' | 'tag'>): RouteContract => ({ service: 'auth', tag: 'Organizations', ...r });
  const admins = 'Owner and admins (and unscoped keys, which act as Admin); members get 403.';
  const schedule = (r: Omit<RouteContract, 'service' | 'tag'>): RouteContract => ({ service: 'execution-runner', tag: 'Schedules', ...r });
  const planId = idParam('test_plan_id');
  const scheduleId = idParam('schedule_id');
  return [
    org({
      method: 'POST',
      path: '/api/organizations/current/members',
      scope: 'organization:write',
      summary: 'Add a member (inviting a new e-mail)',
      description: `${admins} A new e-mail gets an account and an invitation token (7 days) to set its password with accept-invitation; an existing account joins at once. Team size per plan: Starter 5, Growth 20, Pro unlimited (403 \`insufficient_permissions\` with \`details.limit\` past it).`,
      body: 'MemberAddRequest',
      response: { status: 201, schema: 'MemberAdded' },
      errors: [400, 409],
    }),
    org({
      method: 'PATCH',
      path: '/api/organizations/current/members/{user_id}',
      scope: 'organization:write',
      summary: 'Change a member’s role (admin or member)',
      description: `${admins} The owner’s role changes only by transfer-ownership (409).`,
      params: [idParam('user_id')],
      body: 'MemberUpdateRequest',
      response: { status: 200, schema: 'Member' },
      errors: [400, 404, 409],
    }),
    org({
      method: 'DELETE',
      path: '/api/organizations/current/members/{user_id}',
      scope: 'organization:write',
      summary: 'Remove a member',
      description: `${admins} The owner cannot be removed (409). The member’s sessions stop working in this organization at once.`,
      params: [idParam('user_id')],
      response: { status: 200, schema: 'MemberRemoved' },
      errors: [404, 409],
    }),
    org({
      method: 'GET',
      path: '/api/organizations/current/usage',
      scope: 'organization:read',
      summary: 'This month’s use of each quota, its limit and percentage',
      description: 'Browser minutes (each test case run billed in 30-second units, rounded up), discovery pages crawled and executions started, per calendar month (UTC).',
      response: { status: 200, schema: 'Usage' },
    }),
    {
      method: 'POST',
      path: '/api/auth/accept-invitation',
      service: 'auth',
      tag: 'Authentication',
      summary: 'Accept an invitation: set the password and sign in',
      description: 'No credential: the invitation token is one. Answers a session token like login. An unknown, used or expired token answers 400.',
      auth: false,
      body: 'AcceptInvitationRequest',
      response: { status: 200, schema: 'InvitationAccepted' },
      errors: [400],
    },
    {
      method: 'POST',
      path: '/api/billing/stripe/webhook',
      service: 'auth',
      tag: 'Billing',
      summary: 'Stripe webhook endpoint (operators point Stripe here)',
      description:
        'No Assay credential: the `Stripe-Signature` header is verified with the endpoint secret (`STRIPE_WEBHOOK_SECRET`); a bad or missing signature answers 400 and changes nothing. Events are handled once per id. `customer.subscription.updated` → plan change, `customer.subscription.deleted` → cancelled (plan `free`), `invoice.payment_succeeded`, `invoice.payment_failed`. 501 when billing is not configured.',
      auth: false,
      response: { status: 200, schema: 'StripeWebhookReceived' },
      errors: [400, 413, 415],
    },
    schedule({
      method: 'POST',
      path: '/api/v1/test-plans/{test_plan_id}/schedules',
      scope: 'executions:write',
      aliases: ['P0'],
      summary: 'Schedule a test plan (5-field cron in a time zone)',
      description: 'Each occurrence starts one execution and emits `test.plan.scheduled`. The answer lists the next five run times. At most 10 schedules per plan.',
      params: [planId],
      body: 'ScheduleCreateRequest',
      response: { status: 201, schema: 'Schedule' },
      errors: [400, 404, 409],
    }),
    schedule({ method: 'GET', path: '/api/v1/test-plans/{test_plan_id}/schedules', scope: 'executions:read', aliases: ['P0'], summary: 'List a test plan’s schedules', params: [planId], response: { status: 200, schema: 'ScheduleList' }, errors: [404] }),
    schedule({ method: 'GET', path: '/api/v1/test-plans/{test_plan_id}/schedules/{schedule_id}', scope: 'executions:read', aliases: ['P0'], summary: 'Get a schedule with its next run times', params: [planId, scheduleId], response: { status: 200, schema: 'Schedule' }, errors: [404] }),
    schedule({
      method: 'PATCH',
      path: '/api/v1/test-plans/{test_plan_id}/schedules/{schedule_id}',
      scope: 'executions:write',
      aliases: ['P0'],
      summary: 'Change a schedule (any subset of its fields)',
      description: 'A new cron or time zone recomputes the next run; `enabled: false` pauses it.',
      params: [planId, scheduleId],
      body: 'ScheduleUpdateRequest',
      response: { status: 200, schema: 'Schedule' },
      errors: [400, 404],
    }),
    schedule({ method: 'DELETE', path: '/api/v1/test-plans/{test_plan_id}/schedules/{schedule_id}', scope: 'executions:write', aliases: ['P0'], summary: 'Delete a schedule', params: [planId, scheduleId], response: { status: 200, schema: 'ScheduleDeleted' }, errors: [404] }),
  ];
}
