/**
 * The public HTTP routes, one entry each: the OpenAPI document and the
 * reference page are built from this list. Adding an endpoint to a service
 * means adding its entry here.
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
}

const idParam = (name: string): RouteParam => ({ name, in: 'path', required: true, schema: { type: 'string' } });

export const ROUTES: RouteContract[] = [
  // auth
  {
    method: 'POST',
    path: '/api/auth/login',
    service: 'auth',
    tag: 'Authentication',
    summary: 'Log in with e-mail and password',
    description: 'Returns an HS256 session token (never prefixed `sk_live_`) usable as `Authorization: Bearer`.',
    auth: false,
    body: 'LoginRequest',
    response: { status: 200, schema: 'LoginResponse' },
    errors: [400, 401],
  },
  {
    method: 'GET',
    path: '/api/auth/me',
    service: 'auth',
    tag: 'Authentication',
    summary: 'The calling credential and its organization',
    response: { status: 200, schema: 'Me' },
  },
  {
    method: 'POST',
    path: '/api/service-keys',
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
    service: 'auth',
    tag: 'Service keys',
    summary: 'List active service keys with usage',
    response: { status: 200, schema: 'ServiceKeyList' },
  },
  {
    method: 'DELETE',
    path: '/api/service-keys/{key_id}',
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
    service: 'auth',
    tag: 'API keys',
    summary: 'List active API keys with usage',
    response: { status: 200, schema: 'ApiKeyList' },
  },
  {
    method: 'DELETE',
    path: '/api/api-keys/{key_id}',
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
    service: 'auth',
    tag: 'Organizations',
    summary: 'The caller’s organization',
    response: { status: 200, schema: 'Organization' },
  },
  {
    method: 'GET',
    path: '/api/organizations/current/members',
    service: 'auth',
    tag: 'Organizations',
    summary: 'Members of the caller’s organization',
    response: { status: 200, schema: 'MemberList' },
  },
  {
    method: 'POST',
    path: '/api/organizations/current/transfer-ownership',
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
    service: 'auth',
    tag: 'Organizations',
    summary: 'Delete the organization (owner session only)',
    description: 'Every credential of the organization stops working at once.',
    response: { status: 200, schema: 'Organization' },
  },
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
];
