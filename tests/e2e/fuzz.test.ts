import fc from 'fast-check';
import { bearer, call } from './support/http.js';
import { launchForFile } from './support/launcher.js';

/**
 * Every operation of the live OpenAPI document gets malformed, oversized and
 * type-confused input through the gateway: path and query values of every
 * kind, bodies that are any JSON value, schema-shaped objects with each field
 * the wrong type, invalid JSON, 2 MB strings, deep nesting and the wrong
 * content type. Any 5xx (but a 501 `not_implemented` of a route whose
 * service this deployment does not run) or an answer later than 15 s fails.
 */
jest.setTimeout(420_000);

// Rate limits off: thousands of calls a minute on purpose.
const launched = launchForFile({ env: { RATE_LIMITS_ENABLED: 'false' } });

// 12 inputs an operation in make test (a new seed each run); `make test-fuzz FUZZ_RUNS=200` goes deeper, FUZZ_SEED replays a run.
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const ANSWER_WITHIN_MS = 15_000;

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; enum?: unknown[]; $ref?: string; required?: string[] };
interface Operation {
  method: string;
  path: string;
  params: Array<{ name: string; in: 'path' | 'query'; schema?: Schema }>;
  body?: Schema;
}

const nasty = fc.constantFrom(
  '',
  ' ',
  'null',
  'undefined',
  '-1',
  '0',
  '1e309',
  '99999999999999999999999999',
  'NaN',
  'true',
  '[]',
  '{}',
  '..',
  '../../etc/passwd',
  '%00',
  '\u0000',
  "' or '1'='1",
  '"; drop table x; --',
  '<script>alert(1)</script>',
  '😀'.repeat(40),
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'a'.repeat(10_000),
);
const text = fc.oneof(nasty, fc.string({ maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.uuid());
const scalar = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.bigInt().map((n) => Number(n)));
const confused: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 })),
})).value;

/** An object with the schema's properties (resolved through $ref), each either a plausible value or a type-confused one. */
function shaped(schema: Schema | undefined, components: Record<string, Schema>, depth = 0): fc.Arbitrary<unknown> {
  const s = schema?.$ref ? components[schema.$ref.replace('#/components/schemas/', '')] : schema;
  if (!s || depth > 3) return confused;
  if (s.enum) return fc.oneof(fc.constantFrom(...s.enum), confused);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'object' && s.properties) {
    const entries = Object.entries(s.properties).map(([k, v]) => [k, fc.option(fc.oneof(shaped(v, components, depth + 1), confused), { nil: undefined })] as const);
    return fc.record(Object.fromEntries(entries)).map((o) => Object.fromEntries(Object.entries(o as Record<string, unknown>).filter(([, v]) => v !== undefined)));
  }
  if (type === 'array') return fc.oneof(fc.array(shaped(s.items, components, depth + 1), { maxLength: 5 }), confused);
  if (type === 'integer' || type === 'number') return fc.oneof(fc.integer({ min: -1, max: 2000 }), confused);
  if (type === 'boolean') return fc.oneof(fc.boolean(), confused);
  return fc.oneof(text, confused);
}

type RawBody = { kind: 'json'; value: unknown } | { kind: 'raw'; contentType: string | undefined; text: string };
const rawBodies: fc.Arbitrary<RawBody> = fc.oneof(
  fc.constantFrom<RawBody>(
    { kind: 'raw', contentType: 'application/json', text: '{"name":' },
    { kind: 'raw', contentType: 'application/json', text: '\u0000\u0001\u0002' },
    { kind: 'raw', contentType: 'application/json', text: '['.repeat(100_000) + ']'.repeat(100_000) },
    { kind: 'raw', contentType: 'application/json', text: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }) },
    { kind: 'raw', contentType: 'text/plain', text: 'name=x' },
    { kind: 'raw', contentType: 'application/x-www-form-urlencoded', text: 'name=x&steps=1' },
    { kind: 'raw', contentType: 'multipart/form-data; boundary=x', text: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nName\r\n--x--' },
    { kind: 'raw', contentType: 'multipart/form-data', text: 'no boundary' },
    { kind: 'raw', contentType: undefined, text: '{}' },
  ),
  fc.json().map((t): RawBody => ({ kind: 'raw', contentType: 'application/json', text: t })),
);

const statuses = new Map<number, number>();
let requests = 0;
const failures: string[] = [];

async function send(op: Operation, pathValues: Record<string, string>, query: Array<[string, string]>, body: RawBody | undefined, credential?: string): Promise<void> {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathValues[name] ?? 'x'));
  const qs = query.length ? `?${query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}` : '';
  const headers: Record<string, string> = credential === undefined ? { ...bearer(launched.assay.serviceKey) } : { authorization: credential, 'x-api-key': credential };
  let payload: string | undefined;
  if (body?.kind === 'json') {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.value) ?? 'null';
  } else if (body) {
    if (body.contentType) headers['content-type'] = body.contentType;
    payload = body.text;
  }
  const label = `${op.method} ${path}${qs}`.slice(0, 300);
  requests++;
  let res: Response;
  try {
    res = await fetch(`${launched.assay.gatewayUrl}${path}${qs}`, { method: op.method, headers, ...(payload !== undefined && op.method !== 'GET' ? { body: payload } : {}), signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
  } catch (err) {
    failures.push(`${label}: no answer (${(err as Error).name === 'TimeoutError' ? `hung past ${ANSWER_WITHIN_MS} ms` : (err as Error).message})`);
    return;
  }
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  const type = res.headers.get('content-type') ?? '';
  // Streams (SSE) stay open by design: the headers are the answer.
  const bodyText = type.startsWith('text/event-stream') ? (await res.body?.cancel(), '') : await res.text();
  if (res.status >= 500) {
    const notBuilt = res.status === 501 && /"error":"not_implemented"/.test(bodyText);
    if (!notBuilt) failures.push(`${label} with ${(payload ?? '').slice(0, 200)} → ${res.status} ${bodyText.slice(0, 300)}`);
  } else if (res.status >= 400 && !type.includes('application/json')) {
    failures.push(`${label} → ${res.status} answered ${type || 'no content type'}, not a JSON error`);
  }
}

describe('fuzzing every operation of the OpenAPI document', () => {
  it('never answers 5xx, an HTML error or nothing, however malformed the input', async () => {
    const doc = (await call(launched.assay.gatewayUrl, 'GET', '/api/v1/openapi.json')).body;
    const components = doc.components.schemas as Record<string, Schema>;
    const operations: Operation[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        const body = op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
        operations.push({ method: method.toUpperCase(), path, params: op.parameters ?? [], ...(body ? { body } : {}) });
      }
    }
    expect(operations.length).toBeGreaterThan(40);

    for (const op of operations) {
      const pathNames = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const queryNames = op.params.filter((p) => p.in === 'query').map((p) => p.name);
      const arb = fc.record({
        pathValues: fc.record(Object.fromEntries(pathNames.map((n) => [n, text]))) as fc.Arbitrary<Record<string, string>>,
        query: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...(queryNames.length ? queryNames : ['x'])), fc.string({ maxLength: 10 })), fc.oneof(text, scalar.map(String))), { maxLength: 5 }),
        body: fc.option(fc.oneof(shaped(op.body, components).map((value): RawBody => ({ kind: 'json', value })), confused.map((value): RawBody => ({ kind: 'json', value })), rawBodies), { nil: undefined }),
      });
      await fc.assert(
        fc.asyncProperty(arb, async ({ pathValues, query, body }) => {
          await send(op, pathValues, query, body);
        }),
        { numRuns: RUNS_PER_OPERATION, seed: SEED },
      );
    }
    // Credentials of every malformed kind: never more than a 401.
    // (What fetch can send: header values are Latin-1.)
    const latin1 = (t: string) => /^[\x20-\x7e\xa0-\xff]*$/.test(t);
    const credentials = fc.oneof(
      text.filter(latin1).map((t) => `Bearer ${t}`),
      fc.constantFrom('Bearer', 'Basic abc', `Bearer sk_live_${'x'.repeat(300)}`, 'Bearer service_sk_prod_0OIl', 'Bearer a.b.c', 'Bearer eyJhbGciOiJub25lIn0.eyJvcmdfaWQiOiJ4In0.', `Bearer ${'A'.repeat(20_000)}`),
      fc.string({ maxLength: 50 }).filter(latin1),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...operations), credentials, async (op, credential) => {
        await send(op, {}, [], undefined, credential);
      }),
      { numRuns: RUNS_PER_OPERATION * 8, seed: SEED },
    );

    // The stack is still whole afterwards.
    expect((await fetch(`${launched.assay.gatewayUrl}/readyz`)).status).toBe(200);
    console.warn(`fuzz (FUZZ_SEED=${SEED}, FUZZ_RUNS=${RUNS_PER_OPERATION}): ${requests} requests over ${operations.length} operations; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
    expect(failures.slice(0, 20)).toEqual([]);
  });
});
