import { EVENTS, ROUTES, SCHEMAS, TOPICS, eventTopic } from './index.js';

/** Every value of a `$ref` key anywhere inside `value`. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => (key === '$ref' && typeof v === 'string' ? [v] : refsIn(v)));
}

describe('SCHEMAS', () => {
  it('holds the shared schemas and the auth schemas', () => {
    expect(Object.keys(SCHEMAS)).toEqual(
      expect.arrayContaining(['Error', 'Pagination', 'EventEnvelope', 'LoginRequest', 'ServiceKeyCreateRequest', 'ApiKeyList']),
    );
  });

  it('points every $ref at a schema that exists', () => {
    const refs = Object.entries(SCHEMAS).flatMap(([name, schema]) => refsIn(schema).map((ref) => ({ name, ref })));
    // The catalog does use refs, so this check is not vacuous.
    expect(refs.length).toBeGreaterThan(0);
    const dangling = refs.filter(({ ref }) => !(ref in SCHEMAS));
    expect(dangling).toEqual([]);
  });

  it('writes refs as bare schema names, which the validator and the OpenAPI builder rewrite', () => {
    const refs = Object.values(SCHEMAS).flatMap(refsIn);
    for (const ref of refs) expect(ref).toMatch(/^[A-Za-z0-9_]+$/);
  });

  it('makes every request body schema refuse unknown fields', () => {
    const bodies = new Set(ROUTES.flatMap((r) => (r.body ? [r.body] : [])));
    expect(bodies.size).toBeGreaterThan(0);
    for (const name of bodies) expect({ name, additionalProperties: SCHEMAS[name]!.additionalProperties }).toEqual({ name, additionalProperties: false });
  });

  it('lists every error code of DESIGN.md in the Error schema', () => {
    const codes = (SCHEMAS.Error!.properties as { error: { enum: string[] } }).error.enum;
    expect(codes).toEqual(
      expect.arrayContaining([
        'validation_error',
        'invalid_api_key',
        'insufficient_permissions',
        'not_found',
        'conflict',
        'payload_too_large',
        'unsupported_media_type',
        'rate_limit_exceeded',
        'internal_server_error',
        'service_unavailable',
      ]),
    );
  });
});

describe('ROUTES', () => {
  it('names an existing schema for every body and response', () => {
    const missing = ROUTES.flatMap((r) =>
      [r.body, r.response.schema].filter((name): name is string => name !== undefined && !(name in SCHEMAS)).map((name) => `${r.method} ${r.path}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('declares no route twice', () => {
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('declares a required path parameter for every {placeholder} and no other path parameter', () => {
    for (const route of ROUTES) {
      const placeholders = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (route.params ?? []).filter((p) => p.in === 'path');
      expect({ route: route.path, params: declared.map((p) => p.name).sort() }).toEqual({ route: route.path, params: placeholders.sort() });
      for (const p of declared) expect(p.required).toBe(true);
    }
  });

  it('leaves only login, the session refresh (its cookie is the credential), accepting an invitation, the Stripe webhook and the API reference reachable without a credential', () => {
    expect(ROUTES.filter((r) => r.auth === false).map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /api/v1/openapi.json',
      'GET /docs',
      'POST /api/auth/accept-invitation',
      'POST /api/auth/login',
      'POST /api/auth/refresh',
      'POST /api/billing/stripe/webhook',
    ]);
  });

  it('gives every route a success status and a summary', () => {
    for (const route of ROUTES) {
      expect(route.response.status).toBeGreaterThanOrEqual(200);
      expect(route.response.status).toBeLessThan(300);
      expect(route.summary.length).toBeGreaterThan(0);
    }
  });
});

describe('EVENTS', () => {
  const topics = Object.values(TOPICS) as string[];

  it('puts every event on one of the topics of DESIGN.md', () => {
    expect(Object.keys(EVENTS).length).toBeGreaterThan(0);
    for (const [type, contract] of Object.entries(EVENTS)) {
      expect({ type, topic: topics.includes(contract.topic) }).toEqual({ type, topic: true });
    }
  });

  it('names the eight topics of DESIGN.md', () => {
    expect(topics.sort()).toEqual([
      'assay.analysis.events',
      'assay.auth.events',
      'assay.discovery.commands',
      'assay.discovery.events',
      'assay.executions.commands',
      'assay.executions.events',
      'assay.org.events',
      'assay.testcases',
    ]);
  });

  it('names event types in dotted lower case and describes each', () => {
    for (const [type, contract] of Object.entries(EVENTS)) {
      expect(type).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
      expect(contract.description.length).toBeGreaterThan(0);
      expect(['public', 'internal']).toContain(contract.visibility);
      expect(contract.data.type).toBe('object');
    }
  });

  it('points every $ref inside event data at an existing schema', () => {
    const dangling = Object.values(EVENTS).flatMap((e) => refsIn(e.data)).filter((ref) => !(ref in SCHEMAS));
    expect(dangling).toEqual([]);
  });

  it('returns the topic of a known event and throws for an unknown one', () => {
    expect(eventTopic('auth.key.revoked')).toBe('assay.auth.events');
    expect(eventTopic('organization.member.added')).toBe('assay.org.events');
    expect(() => eventTopic('test.case.exploded')).toThrow('Unknown event type "test.case.exploded": add it to libs/contracts/src/events.ts');
  });
});
