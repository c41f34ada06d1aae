import { ROUTES, buildOpenApi, type ServiceName } from './index.js';

interface Operation {
  operationId: string;
  summary: string;
  tags: string[];
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: { required: boolean; content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, { description: string; content?: Record<string, { schema?: { $ref: string } }> }>;
}

interface Document {
  openapi: string;
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
  security: unknown[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

function build(services: ServiceName[], extra: { version?: string } = {}): Document {
  return buildOpenApi({ services: new Set(services), serverUrl: 'https://assay.example.com', ...extra }) as unknown as Document;
}

function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => (key === '$ref' && typeof v === 'string' ? [v] : refsIn(v)));
}

function operations(doc: Document): Array<{ key: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );
}

describe('buildOpenApi', () => {
  const doc = build(['auth', 'gateway']);

  it('is an OpenAPI 3.1.0 document with the server URL and the default version', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Assay API', version: '1.0.0' });
    expect(doc.servers).toEqual([{ url: 'https://assay.example.com' }]);
    expect(doc.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'bearer']);
  });

  it('uses the version it is given', () => {
    expect(build(['gateway'], { version: '2.3.4' }).info.version).toBe('2.3.4');
  });

  it('lists exactly the auth and gateway routes', () => {
    const expected = ROUTES.filter((r) => r.service === 'auth' || r.service === 'gateway').map((r) => `${r.method} ${r.path}`);
    expect(expected).toContain('POST /api/auth/login');
    expect(expected).toContain('GET /api/v1/openapi.json');
    expect(operations(doc).map((o) => o.key).sort()).toEqual(expected.sort());
  });

  it('lists only the routes of the services it is given', () => {
    const gatewayOnly = build(['gateway']);
    expect(operations(gatewayOnly).map((o) => o.key).sort()).toEqual(['GET /api/v1/openapi.json', 'GET /docs', 'POST /mcp']);
    // Gateway routes use no named schema, so only the shared Error schema is listed.
    expect(Object.keys(gatewayOnly.components.schemas)).toEqual(['Error']);

    const analysis = build(['analysis']);
    expect(operations(analysis).map((o) => o.key).sort()).toEqual(ROUTES.filter((r) => r.service === 'analysis').map((r) => `${r.method} ${r.path}`).sort());
    expect(Object.keys(analysis.components.schemas)).toEqual(expect.arrayContaining(['Error', 'FailureAnalysis', 'FailureAnalysisItem', 'Issue', 'IssueList']));
  });

  it('resolves every $ref of the document inside components.schemas', () => {
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(0);
    const unresolved = refs.filter((ref) => {
      const match = /^#\/components\/schemas\/([A-Za-z0-9_]+)$/.exec(ref);
      return !match || !(match[1]! in doc.components.schemas);
    });
    expect(unresolved).toEqual([]);
  });

  it('includes the schemas that listed schemas refer to', () => {
    // MemberList refers to Member and Pagination; ServiceKeyList to ServiceKey; Me to Organization.
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['MemberList', 'Member', 'Pagination', 'ServiceKeyList', 'ServiceKey', 'Me', 'Organization', 'Error']),
    );
    expect(doc.components.schemas.MemberList).toMatchObject({
      properties: { data: { items: { $ref: '#/components/schemas/Member' } }, pagination: { $ref: '#/components/schemas/Pagination' } },
    });
  });

  it('leaves out schemas no listed route uses', () => {
    expect(doc.components.schemas).not.toHaveProperty('AuthenticateRequest');
    expect(doc.components.schemas).not.toHaveProperty('UsageReport');
    expect(doc.components.schemas).not.toHaveProperty('EventEnvelope');
  });

  it('gives routes without authentication an empty security list and no 401/403/429', () => {
    const open = operations(doc).filter(({ key }) => ['POST /api/auth/login', 'GET /api/v1/openapi.json', 'GET /docs'].includes(key));
    expect(open).toHaveLength(3);
    for (const { op } of open) {
      expect(op.security).toEqual([]);
      expect(op.responses).not.toHaveProperty('403');
      expect(op.responses).not.toHaveProperty('429');
    }
    // Login can still answer 401 for a wrong password: it says so itself.
    expect(doc.paths['/api/auth/login']!.post!.responses).toHaveProperty('401');
  });

  it('lets authenticated routes inherit the document security and document 401, 403, 429 and 503', () => {
    const op = doc.paths['/api/service-keys']!.get!;
    expect(op).not.toHaveProperty('security');
    expect(Object.keys(op.responses).sort()).toEqual(['200', '401', '403', '429', '503']);
    expect(op.responses['401']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Error' });
  });

  it('describes request bodies and success responses with their schemas', () => {
    const create = doc.paths['/api/service-keys']!.post!;
    expect(create.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ServiceKeyCreateRequest' } } },
    });
    expect(create.responses['201']).toEqual({
      description: 'Success',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ServiceKeyCreated' } } },
    });
    expect(Object.keys(create.responses).sort()).toEqual(['201', '400', '401', '403', '409', '429', '503']);
  });

  it('gives the HTML reference page a text/html response without a schema', () => {
    expect(doc.paths['/docs']!.get!.responses['200']).toEqual({ description: 'Success', content: { 'text/html': {} } });
    expect(doc.paths['/api/v1/openapi.json']!.get!.responses['200']).toEqual({ description: 'Success' });
  });

  it('declares path parameters and unique operation ids', () => {
    const revoke = doc.paths['/api/service-keys/{key_id}']!.delete!;
    expect(revoke.parameters).toEqual([{ name: 'key_id', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(revoke.operationId).toBe('deleteApiServiceKeysKeyId');
    const ids = operations(doc).map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+[A-Za-z0-9]*$/);
  });

  it('tags and summarises every operation', () => {
    for (const { op } of operations(doc)) {
      expect(op.tags).toHaveLength(1);
      expect(op.summary.length).toBeGreaterThan(0);
    }
  });

  it('survives a JSON round trip unchanged, as the gateway serves it', () => {
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });
});

describe('the SaaS routes in the document', () => {
  it('lists members, usage, invitations, the Stripe webhook and schedules with their schemas', () => {
    const doc = build(['gateway', 'auth', 'execution-runner']);
    expect(doc.paths['/api/organizations/current/members']!.post!.requestBody!.content['application/json']!.schema.$ref).toBe('#/components/schemas/MemberAddRequest');
    expect(Object.keys(doc.paths['/api/organizations/current/members/{user_id}']!).sort()).toEqual(['delete', 'patch']);
    expect(doc.paths['/api/organizations/current/usage']!.get!.responses['200']!.content!['application/json']!.schema!.$ref).toBe('#/components/schemas/Usage');
    expect(doc.paths['/api/auth/accept-invitation']!.post!.security).toEqual([]);
    expect(doc.paths['/api/billing/stripe/webhook']!.post!.security).toEqual([]);
    expect(Object.keys(doc.paths['/api/v1/test-plans/{test_plan_id}/schedules']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/v1/test-plans/{test_plan_id}/schedules/{schedule_id}']!).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Schedule', 'ScheduleList', 'QuotaUsage', 'MemberAdded', 'InvitationAccepted']));
    // Without the runner, no schedule route is listed.
    expect(Object.keys(build(['gateway', 'auth']).paths).filter((p) => p.includes('schedules'))).toEqual([]);
  });
});
