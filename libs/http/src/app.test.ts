import { ASSAY_VERSION } from '@assay/contracts';
import { createLogger, createSilentLogger } from '@assay/logger';
import { servicePrincipal, signPrincipal, PRINCIPAL_HEADER, type Principal } from '@assay/principal';
import net from 'node:net';
import { freePortForTests, listen, TEST_INTERNAL_SECRET, type TestServer } from '@assay/testing';
import {
  AppError,
  createHttpApp,
  orgPrincipal,
  parsePagination,
  requireScope,
  requireServicePrincipal,
  SERVICE_UNAVAILABLE_RETRY_SECONDS,
  serviceUnavailable,
  validateBody,
  verifyPrincipalHeader,
  type HttpAppOptions,
} from './index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const scopedKey: Principal = {
  org_id: 'org_1',
  sub: 'key_scoped',
  kind: 'api_key',
  role: 'admin',
  scopes: ['test_cases:read'],
  plan: 'growth',
};
const fullKey: Principal = { ...scopedKey, sub: 'key_full', scopes: [] };
const session: Principal = { org_id: 'org_1', sub: 'user_1', kind: 'session', role: 'owner', scopes: [], plan: 'pro' };

function buildApp(overrides: Partial<HttpAppOptions> = {}) {
  return createHttpApp({
    name: 'test-service',
    logger: createSilentLogger(),
    bodyLimit: '1kb',
    ready: async () => ({ database: true, bus: true }),
    mount(app) {
      app.get('/conflict', () => {
        throw new AppError('conflict', 'A key with this name exists', [{ field: 'name', message: 'is already used' }]);
      });
      app.get('/crash', () => {
        throw new Error('connect ECONNREFUSED postgres://assay:hunter2@db:5432');
      });
      app.get('/crash-async', async () => {
        await Promise.resolve();
        throw new Error('secret internals from an async handler');
      });
      // What a query sees while Postgres is stopped: node-postgres passes the socket's ECONNREFUSED through.
      app.get('/database-stopped', async () => {
        const port = await freePortForTests();
        await new Promise<void>((_resolve, reject) => net.connect(port, '127.0.0.1').once('error', reject));
      });
      // What a query sees when Postgres shuts down under it (pg's DatabaseError, SQLSTATE 57P01 admin_shutdown).
      app.get('/database-shutting-down', () => {
        throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01', severity: 'FATAL' });
      });
      app.get('/downstream-down', () => {
        throw serviceUnavailable('The test-case service is unavailable; try again shortly');
      });
      app.get('/throttled', () => {
        throw new AppError('rate_limit_exceeded', 'Too many requests', undefined, { retry_after: 7 });
      });
      app.post('/keys', validateBody('ServiceKeyCreateRequest'), (req, res) => {
        res.status(201).json({ received: req.body as unknown });
      });
      app.get('/items', (req, res) => {
        res.json(parsePagination(req.query as Record<string, unknown>, { defaultLimit: 50, maxLimit: 500 }));
      });
      app.get('/items/:id', (req, res) => {
        res.json({ id: req.params.id });
      });
      app.get('/internal/ping', verifyPrincipalHeader(TEST_INTERNAL_SECRET), requireServicePrincipal, (_req, res) => {
        res.json({ caller: (res.locals.principal as Principal).sub });
      });
      app.get('/keys', verifyPrincipalHeader(TEST_INTERNAL_SECRET), requireScope('keys:manage'), (_req, res) => {
        const principal = orgPrincipal(res);
        res.json({ org_id: principal.org_id, sub: principal.sub });
      });
    },
    ...overrides,
  });
}

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

let server: TestServer;

async function call(path: string, init: RequestInit = {}, base = server.url): Promise<Reply> {
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as Record<string, unknown> };
}

const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

beforeAll(async () => {
  server = await listen(buildApp());
});

afterAll(async () => {
  await server.close();
});

describe('request logs', () => {
  it('never carry the value of a credential-like query parameter', async () => {
    const lines: string[] = [];
    const server = await listen(buildApp({ logger: createLogger('test-service', 'info', { write: (line) => void lines.push(line) }) }));
    try {
      await fetch(`${server.url}/conflict?token=inv_secret_1&page=2`);
      await fetch(`${server.url}/crash?api_key=sk_live_secret_2`);
    } finally {
      await server.close();
    }
    const text = lines.join('');
    expect(text).toContain('/conflict?token=[redacted]&page=2');
    expect(text).toContain('/crash?api_key=[redacted]');
    expect(text).not.toMatch(/inv_secret_1|sk_live_secret_2/);
  });
});

describe('request ids', () => {
  it('echoes a well-formed x-request-id in the header and in error bodies', async () => {
    const reply = await call('/nowhere', { headers: { 'x-request-id': 'client-req.42:abc_DEF' } });
    expect(reply.headers.get('x-request-id')).toBe('client-req.42:abc_DEF');
    expect(reply.body.request_id).toBe('client-req.42:abc_DEF');
  });

  it('generates a UUID when x-request-id is absent', async () => {
    const reply = await call('/healthz');
    expect(reply.headers.get('x-request-id')).toMatch(UUID);
  });

  it('replaces a malformed x-request-id with a generated UUID', async () => {
    for (const bad of ['has spaces in it', '<script>', 'x'.repeat(129), 'semi;colon']) {
      const reply = await call('/nowhere', { headers: { 'x-request-id': bad } });
      const id = reply.headers.get('x-request-id');
      expect(id).toMatch(UUID);
      expect(reply.body.request_id).toBe(id);
    }
  });

  it('accepts an x-request-id of exactly 128 characters', async () => {
    const id = 'a'.repeat(128);
    const reply = await call('/healthz', { headers: { 'x-request-id': id } });
    expect(reply.headers.get('x-request-id')).toBe(id);
  });

  it('gives two requests without an id two different ids', async () => {
    const [a, b] = await Promise.all([call('/healthz'), call('/healthz')]);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });
});

describe('health and readiness', () => {
  it('answers /healthz with the service name and the release it runs', async () => {
    const reply = await call('/healthz');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'ok', service: 'test-service', version: ASSAY_VERSION });
  });

  it('answers /readyz with 200 and the checks when every check passes', async () => {
    const reply = await call('/readyz');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      status: 'ready',
      service: 'test-service',
      checks: { database: true, bus: true },
      dependencies: { database: { status: 'up', critical: true }, bus: { status: 'up', critical: true } },
    });
  });

  it('answers /livez without asking any dependency', async () => {
    let asked = 0;
    const app = await listen(buildApp({ ready: async () => (asked++, { database: false }) }));
    try {
      const reply = await call('/livez', {}, app.url);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ status: 'ok', service: 'test-service' });
      expect(asked).toBe(0);
    } finally {
      await app.close();
    }
  });

  it('stays ready with a non-critical dependency down, reporting it degraded with its reason', async () => {
    const app = await listen(buildApp({ ready: async () => ({ database: true, bus: { status: 'down', critical: false, detail: 'brokers unreachable for 12 s' } }) }));
    try {
      const reply = await call('/readyz', {}, app.url);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        status: 'ready',
        service: 'test-service',
        checks: { database: true, bus: false },
        dependencies: { database: { status: 'up', critical: true }, bus: { status: 'degraded', critical: false, detail: 'brokers unreachable for 12 s' } },
      });
    } finally {
      await app.close();
    }
  });

  it('answers 503 at its 900 ms deadline when a check hangs, instead of hanging', async () => {
    const app = await listen(buildApp({ ready: () => new Promise(() => undefined) }));
    try {
      const started = Date.now();
      const reply = await call('/readyz', {}, app.url);
      // The deadline is 900 ms; the bound is loose so a loaded machine's scheduling does not fail it (the
      // check never answers, so without the deadline the call would hang until the test's timeout).
      expect(Date.now() - started).toBeLessThan(5000);
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({ status: 'not_ready', checks: { checks: false }, dependencies: { checks: { status: 'down', detail: 'readiness checks gave no answer within 900 ms' } } });
    } finally {
      await app.close();
    }
  });

  it('answers /readyz with 200 and no checks when the service has none', async () => {
    const bare = await listen(buildApp({ ready: undefined }));
    try {
      const reply = await call('/readyz', {}, bare.url);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ status: 'ready', service: 'test-service', checks: {}, dependencies: {} });
    } finally {
      await bare.close();
    }
  });

  it('answers /readyz with 503 naming the failing check when one is false', async () => {
    const degraded = await listen(buildApp({ ready: async () => ({ database: true, bus: false }) }));
    try {
      const reply = await call('/readyz', {}, degraded.url);
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({ status: 'not_ready', service: 'test-service', checks: { database: true, bus: false }, dependencies: { bus: { status: 'down', critical: true } } });
    } finally {
      await degraded.close();
    }
  });

  it('answers /readyz with 503 when the readiness check itself rejects', async () => {
    const broken = await listen(buildApp({ ready: () => Promise.reject(new Error('pool closed')) }));
    try {
      const reply = await call('/readyz', {}, broken.url);
      expect(reply.status).toBe(503);
      expect(reply.body).toEqual({
        status: 'not_ready',
        service: 'test-service',
        checks: { checks: false },
        dependencies: { checks: { status: 'down', critical: true, detail: 'pool closed' } },
      });
    } finally {
      await broken.close();
    }
  });
});

describe('body parsing', () => {
  it('answers malformed JSON with a 400 validation_error naming the body', async () => {
    const reply = await call('/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": "ci",' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      error: 'validation_error',
      message: 'Request body is not valid JSON',
      details: [{ field: 'body', message: 'malformed JSON' }],
      request_id: reply.headers.get('x-request-id'),
    });
  });

  it('refuses a NUL character in the path or a query parameter with 400 before any route sees it', async () => {
    const inQuery = await call('/conflict?name=a%00b');
    expect(inQuery.status).toBe(400);
    expect(inQuery.body).toMatchObject({ error: 'validation_error', details: [{ field: 'name', message: 'must not contain NUL characters or unpaired surrogates' }] });
    const repeated = await call('/conflict?id=ok&id=%00');
    expect(repeated.body).toMatchObject({ error: 'validation_error', details: [{ field: 'id' }] });
    const inName = await call('/conflict?a%00=1');
    expect(inName.body).toMatchObject({ error: 'validation_error', details: [{ field: 'a?' }] });
    const inPath = await call('/keys/%00');
    expect(inPath.status).toBe(400);
    expect(inPath.body).toMatchObject({ error: 'validation_error', details: [{ field: 'path' }] });
    // Anything else still reaches the route.
    expect((await call('/conflict?name=ok')).status).toBe(409);
  });

  it('refuses a bare JSON string as a body (strict mode)', async () => {
    const reply = await call('/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '"ci"' });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'validation_error', details: [{ field: 'body', message: 'malformed JSON' }] });
  });

  it('answers a body over the limit with 413 payload_too_large', async () => {
    const reply = await postJson('/keys', { name: 'x'.repeat(2000), environment: 'dev' });
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual({
      error: 'payload_too_large',
      message: 'Request body exceeds the limit of 1024 bytes',
      request_id: reply.headers.get('x-request-id'),
    });
  });

  it('applies a 1 MB limit when none is configured', async () => {
    const defaults = await listen(buildApp({ bodyLimit: undefined }));
    try {
      const justUnder = await call('/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ci', environment: 'dev', padding: 'x'.repeat(1000) }),
      }, defaults.url);
      // Under the limit the request reaches the validator, which refuses the unknown field.
      expect(justUnder.status).toBe(400);
      expect(justUnder.body.details).toEqual([{ field: 'padding', message: 'is not a known field' }]);

      const over = await call('/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), environment: 'dev' }),
      }, defaults.url);
      expect(over.status).toBe(413);
      expect(over.body).toMatchObject({ error: 'payload_too_large', message: 'Request body exceeds the limit of 1048576 bytes' });
    } finally {
      await defaults.close();
    }
  });

  it('answers a text/plain POST with 415 unsupported_media_type', async () => {
    const reply = await call('/keys', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"name":"ci","environment":"dev"}' });
    expect(reply.status).toBe(415);
    expect(reply.body).toEqual({
      error: 'unsupported_media_type',
      message: 'Content-Type must be application/json (got "text/plain")',
      request_id: reply.headers.get('x-request-id'),
    });
  });

  it('answers a form-encoded POST with 415 even on an unknown path', async () => {
    const reply = await call('/nowhere', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=ci',
    });
    expect(reply.status).toBe(415);
    expect(reply.body).toMatchObject({ error: 'unsupported_media_type' });
  });

  it('accepts JSON with a charset parameter and in upper case', async () => {
    const body = JSON.stringify({ name: 'ci', environment: 'prod' });
    for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
      const reply = await call('/keys', { method: 'POST', headers: { 'content-type': type }, body });
      expect(reply.status).toBe(201);
      expect(reply.body).toEqual({ received: { name: 'ci', environment: 'prod' } });
    }
  });

  it('answers a JSON body in an unsupported charset or content encoding with 415', async () => {
    const variants: Array<Record<string, string>> = [
      { 'content-type': 'application/json; charset=latin1' },
      { 'content-type': 'application/json', 'content-encoding': 'compress' },
    ];
    for (const headers of variants) {
      const reply = await call('/keys', { method: 'POST', headers, body: '{"name":"ci","environment":"dev"}' });
      expect(reply.status).toBe(415);
      expect(reply.body).toMatchObject({ error: 'unsupported_media_type', message: 'Unsupported body encoding or charset' });
    }
  });

  it('answers a body that claims gzip but is not with a 400, not a 500', async () => {
    const reply = await call('/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: '{"name":"ci","environment":"dev"}',
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'validation_error', message: 'Request could not be read' });
  });

  it('accepts the extra content types a service declares', async () => {
    const uploads = await listen(
      buildApp({
        extraContentTypes: ['text/csv'],
        mount(app) {
          app.post('/import', (req, res) => {
            res.json({ type: req.header('content-type'), parsed: req.body === undefined ? 'left to the route' : 'parsed' });
          });
        },
      }),
    );
    try {
      const reply = await call('/import', { method: 'POST', headers: { 'content-type': 'text/csv' }, body: 'a,b\n1,2\n' }, uploads.url);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ type: 'text/csv', parsed: 'left to the route' });
      const refused = await call('/import', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'a' }, uploads.url);
      expect(refused.status).toBe(415);
      expect(refused.body.message).toBe('Content-Type must be application/json or text/csv (got "text/plain")');
    } finally {
      await uploads.close();
    }
  });
});

describe('parseJson: false', () => {
  it('leaves every body unread and unchecked for the route to stream', async () => {
    const passthrough = await listen(
      buildApp({
        parseJson: false,
        mount(app) {
          app.post('/forward', async (req, res) => {
            let raw = '';
            for await (const chunk of req) raw += String(chunk);
            res.json({ parsed: req.body !== undefined, type: req.header('content-type'), raw });
          });
        },
      }),
    );
    try {
      const text = await call('/forward', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' }, passthrough.url);
      expect(text.status).toBe(200);
      expect(text.body).toEqual({ parsed: false, type: 'text/plain', raw: 'hello' });
      const json = await call('/forward', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' }, passthrough.url);
      expect(json.status).toBe(200);
      expect(json.body).toEqual({ parsed: false, type: 'application/json', raw: '{"a":' });
    } finally {
      await passthrough.close();
    }
  });
});

describe('errors', () => {
  it('answers an unknown path with a JSON 404 naming the method and path', async () => {
    const reply = await call('/does/not/exist?x=1', { method: 'DELETE' });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({
      error: 'not_found',
      message: 'No route for DELETE /does/not/exist',
      request_id: reply.headers.get('x-request-id'),
    });
  });

  it('answers a plain Error with a 500 that does not leak its message', async () => {
    for (const path of ['/crash', '/crash-async']) {
      const res = await fetch(`${server.url}${path}`);
      const text = await res.text();
      expect(res.status).toBe(500);
      expect(JSON.parse(text)).toEqual({
        error: 'internal_server_error',
        message: 'an unexpected error occurred',
        request_id: res.headers.get('x-request-id'),
      });
      expect(text).not.toMatch(/hunter2|ECONNREFUSED|secret internals|stack|at /);
    }
  });

  it('answers a 503 with a Retry-After header, so clients wait and retry', async () => {
    const reply = await call('/downstream-down');
    expect(reply.status).toBe(503);
    expect(reply.headers.get('retry-after')).toBe(String(SERVICE_UNAVAILABLE_RETRY_SECONDS));
    expect(reply.body).toMatchObject({ error: 'service_unavailable', message: 'The test-case service is unavailable; try again shortly' });
  });

  it('answers a database that is stopped or shutting down with a 503 and Retry-After, not a 500', async () => {
    for (const path of ['/database-stopped', '/database-shutting-down']) {
      const res = await fetch(`${server.url}${path}`);
      const text = await res.text();
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe(String(SERVICE_UNAVAILABLE_RETRY_SECONDS));
      expect(JSON.parse(text)).toMatchObject({ error: 'service_unavailable' });
      expect(text).not.toMatch(/ECONNREFUSED|administrator|57P01/);
    }
  });

  it('passes the status, code, message and details of an AppError through', async () => {
    const reply = await call('/conflict');
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({
      error: 'conflict',
      message: 'A key with this name exists',
      details: [{ field: 'name', message: 'is already used' }],
      request_id: reply.headers.get('x-request-id'),
    });
  });

  it('adds retry_after to the body and a Retry-After header on 429', async () => {
    const reply = await call('/throttled');
    expect(reply.status).toBe(429);
    expect(reply.headers.get('retry-after')).toBe('7');
    expect(reply.body).toMatchObject({ error: 'rate_limit_exceeded', message: 'Too many requests', retry_after: 7 });
    expect(reply.body).not.toHaveProperty('details');
  });

  it('answers a path parameter that is not valid percent-encoding with a 400, not a 500', async () => {
    const reply = await call('/items/%E0%A4%A');
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'validation_error' });
  });

  it('does not advertise express', async () => {
    const res = await fetch(`${server.url}/healthz`);
    await res.text();
    expect(res.headers.get('x-powered-by')).toBeNull();
  });
});

describe('validateBody', () => {
  it('passes a valid body through to the route', async () => {
    const reply = await postJson('/keys', { name: 'ci', environment: 'dev', expires_in_days: 30 });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({ received: { name: 'ci', environment: 'dev', expires_in_days: 30 } });
  });

  it('names a missing required field', async () => {
    const reply = await postJson('/keys', { environment: 'dev' });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      error: 'validation_error',
      message: 'Invalid request: name is required',
      details: [{ field: 'name', message: 'is required' }],
    });
  });

  it('names a value outside an enum and lists the allowed values', async () => {
    const reply = await postJson('/keys', { name: 'ci', environment: 'staging' });
    expect(reply.status).toBe(400);
    expect(reply.body.details).toEqual([{ field: 'environment', message: 'must be one of prod, dev' }]);
  });

  it('names an unknown field', async () => {
    const reply = await postJson('/keys', { name: 'ci', environment: 'dev', colour: 'blue' });
    expect(reply.status).toBe(400);
    expect(reply.body.details).toEqual([{ field: 'colour', message: 'is not a known field' }]);
  });

  it('reports every failing field at once', async () => {
    const reply = await postJson('/keys', { environment: 'qa', colour: 'blue', expires_in_days: 0 });
    expect(reply.status).toBe(400);
    expect(reply.body.details).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'is required' },
        { field: 'colour', message: 'is not a known field' },
        { field: 'environment', message: 'must be one of prod, dev' },
        { field: 'expires_in_days', message: 'must be >= 1' },
      ]),
    );
    expect(reply.body.details).toHaveLength(4);
  });

  it('refuses a request without a body', async () => {
    const reply = await call('/keys', { method: 'POST' });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      error: 'validation_error',
      details: [{ field: 'body', message: 'a JSON body is required' }],
    });
  });

  it('refuses a JSON array where an object is expected', async () => {
    const reply = await postJson('/keys', [{ name: 'ci', environment: 'dev' }]);
    expect(reply.status).toBe(400);
    expect(reply.body.details).toEqual([{ field: 'body', message: 'must be object' }]);
  });

  it('refuses a blank name', async () => {
    const reply = await postJson('/keys', { name: '   ', environment: 'dev' });
    expect(reply.status).toBe(400);
    expect(reply.body.details).toEqual([{ field: 'name', message: expect.stringContaining('pattern') }]);
  });
});

describe('parsePagination over HTTP', () => {
  it('applies the defaults when no parameters are given', async () => {
    const reply = await call('/items');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ limit: 50, offset: 0 });
  });

  it('reads limit and offset, including the maximum limit', async () => {
    expect((await call('/items?limit=500&offset=20')).body).toEqual({ limit: 500, offset: 20 });
    expect((await call('/items?limit=1')).body).toEqual({ limit: 1, offset: 0 });
  });

  it.each([
    ['limit=0', 'limit', 'must be between 1 and 500'],
    ['limit=501', 'limit', 'must be between 1 and 500'],
    ['offset=-1', 'offset', `must be between 0 and ${Number.MAX_SAFE_INTEGER}`],
    ['limit=abc', 'limit', 'must be an integer'],
    ['limit=2.5', 'limit', 'must be an integer'],
    ['offset=1e3', 'offset', 'must be an integer'],
    ['limit=1&limit=2', 'limit', 'must be an integer'],
  ])('answers ?%s with a 400 naming %s', async (query, field, message) => {
    const reply = await call(`/items?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'validation_error', details: [{ field, message }] });
    expect(reply.body.message).toBe(`Invalid request: ${field} ${message}`);
  });

  it('names both parameters when both are wrong', async () => {
    const reply = await call('/items?limit=0&offset=x');
    expect(reply.status).toBe(400);
    expect(reply.body.details).toEqual([
      { field: 'limit', message: 'must be between 1 and 500' },
      { field: 'offset', message: 'must be an integer' },
    ]);
  });
});

describe('principal middleware', () => {
  const principalHeader = async (p: Principal, secret = TEST_INTERNAL_SECRET) => ({ [PRINCIPAL_HEADER]: await signPrincipal(secret, p) });

  it('lets a service principal call an internal route', async () => {
    const reply = await call('/internal/ping', { headers: await principalHeader(servicePrincipal('gateway')) });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ caller: 'gateway' });
  });

  it('answers a missing principal header with 401 invalid_api_key', async () => {
    const reply = await call('/internal/ping');
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({
      error: 'invalid_api_key',
      message: 'Missing or invalid internal principal: call through the gateway',
      request_id: reply.headers.get('x-request-id'),
    });
  });

  it('answers a principal signed with another secret with 401 invalid_api_key', async () => {
    const headers = await principalHeader(servicePrincipal('gateway'), 'a-forger-does-not-know-the-real-secret');
    for (const path of ['/internal/ping', '/keys']) {
      const reply = await call(path, { headers });
      expect(reply.status).toBe(401);
      expect(reply.body).toMatchObject({ error: 'invalid_api_key' });
    }
  });

  it('answers a garbage principal header with 401', async () => {
    const reply = await call('/keys', { headers: { [PRINCIPAL_HEADER]: 'not.a.jwt' } });
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ error: 'invalid_api_key' });
  });

  it('refuses an organization principal on an internal route with 403', async () => {
    for (const p of [fullKey, session]) {
      const reply = await call('/internal/ping', { headers: await principalHeader(p) });
      expect(reply.status).toBe(403);
      expect(reply.body).toMatchObject({
        error: 'insufficient_permissions',
        message: 'Internal route: service principals only',
      });
    }
  });

  it('refuses a scoped key that lacks the scope with 403', async () => {
    const reply = await call('/keys', { headers: await principalHeader(scopedKey) });
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({
      error: 'insufficient_permissions',
      message: 'This key lacks the "keys:manage" scope',
      request_id: reply.headers.get('x-request-id'),
    });
  });

  it('lets a key holding the scope through', async () => {
    const reply = await call('/keys', { headers: await principalHeader({ ...scopedKey, scopes: ['keys:manage'] }) });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ org_id: 'org_1', sub: 'key_scoped' });
  });

  it('lets a key with an empty scope list through', async () => {
    const reply = await call('/keys', { headers: await principalHeader(fullKey) });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ org_id: 'org_1', sub: 'key_full' });
  });

  it('refuses a service principal on an organization route with 403', async () => {
    const reply = await call('/keys', { headers: await principalHeader(servicePrincipal('analysis')) });
    expect(reply.status).toBe(403);
    expect(reply.body).toMatchObject({
      error: 'insufficient_permissions',
      message: 'This route is for organization credentials',
    });
  });
});
