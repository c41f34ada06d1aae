import { ROUTES, type RouteContract, type ServiceName } from './routes/index.js';
import { SCHEMAS } from './validator.js';
import type { JsonSchema } from './json-schema.js';

export interface OpenApiOptions {
  /** Only routes of these services are listed: the ones this deployment runs. */
  services: ReadonlySet<ServiceName>;
  serverUrl: string;
  version?: string;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Validation error: `details` lists the failing fields',
  401: 'Missing, invalid, revoked or expired credential (`invalid_api_key`)',
  403: 'Plan, role, scope or suspension forbids the call (`insufficient_permissions`)',
  404: 'Not found (also for another organization’s ids)',
  409: 'Conflict with the current state',
  413: 'Body too large',
  415: 'Content type not supported',
  429: 'Rate limit exceeded; see `Retry-After`',
  503: 'A service behind the gateway is unavailable',
};

function toOpenApiSchema(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"([A-Za-z0-9_]+)"/g, '"$ref":"#/components/schemas/$1"')) as JsonSchema;
}

function errorResponse(status: number) {
  return {
    description: ERROR_DESCRIPTIONS[status] ?? 'Error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

function operation(route: RouteContract) {
  const responses: Record<string, unknown> = {
    [route.response.status]: {
      description: 'Success',
      ...(route.response.schema || route.response.contentType
        ? {
            content: {
              [route.response.contentType ?? 'application/json']: route.response.schema
                ? { schema: { $ref: `#/components/schemas/${route.response.schema}` } }
                : {},
            },
          }
        : {}),
    },
  };
  const errors = new Set([...(route.errors ?? []), ...(route.auth === false ? [] : [401, 403, 429]), 503]);
  for (const status of [...errors].sort()) responses[status] = errorResponse(status);
  return {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    ...(route.auth === false ? { security: [] } : {}),
    ...(route.params?.length ? { parameters: route.params } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.body}` } } },
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of the routes this deployment serves. */
export function buildOpenApi(opts: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const used = new Set<string>(['Error']);
  const collect = (name: string | undefined) => {
    if (!name || used.has(name)) return;
    used.add(name);
    for (const m of JSON.stringify(SCHEMAS[name] ?? {}).matchAll(/"\$ref":"([A-Za-z0-9_]+)"/g)) collect(m[1]);
  };
  for (const route of ROUTES.filter((r) => opts.services.has(r.service))) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
    collect(route.body);
    collect(route.response.schema);
  }
  const schemas = Object.fromEntries(
    [...used].sort().filter((n) => SCHEMAS[n]).map((n) => [n, toOpenApiSchema(SCHEMAS[n]!)]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Assay API',
      version: opts.version ?? '1.0.0',
      description:
        'Store browser test cases, run them in real Chromium, read results and failure analyses, crawl your app, and receive signed webhooks.',
    },
    servers: [{ url: opts.serverUrl }],
    security: [{ bearer: [] }, { apiKey: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A service key (`service_sk_<env>_...`), an API key (`sk_live_...`) or a session token from login.',
        },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An `sk_live_` API key.' },
      },
    },
  };
}
