import { randomBytes } from 'node:crypto';
import { createTestDatabase, eventually, listen, type TestDatabase, type TestServer } from '@assay/testing';
import { startShop } from '../fixtures/shop/server.js';
import { bearer, call } from './support/http.js';
import { removeAssayHome, startAssay, type Assay } from './support/launcher.js';

// Traces across real processes: the launcher starts every service with the tracing preload and
// an OTLP/HTTP endpoint (JSON protocol) served by this test. One API call, sent with a
// traceparent the test chose, must yield spans of every service it reaches under that trace id,
// linked into one tree across the outbox and the bus, and log lines carrying that trace id.
// The launcher waits this long for each service (the support passes it on; a loaded machine starts seven slowly): ASSAY_TEST_READY_TIMEOUT_MS raises it.
const READY_MS = Number(process.env.ASSAY_TEST_READY_TIMEOUT_MS) || 120_000;
jest.setTimeout(2 * READY_MS + 120_000);

interface Span {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
}
// OTLP span kinds.
const PRODUCER = 4;
const CONSUMER = 5;

const spans: Span[] = [];
const exports: string[] = [];
let collector: TestServer;

const launched = {} as { assay: Assay; database: TestDatabase };

// The collector first, then Assay on a fresh database with its endpoint.
beforeAll(async () => {
  collector = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      exports.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }; scopeSpans: Array<{ spans: Array<Omit<Span, 'service'>> }> }>;
        };
        for (const rs of body.resourceSpans) {
          const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '?';
          for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ service, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, kind: s.kind });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  launched.database = await createTestDatabase();
  launched.assay = await startAssay({
    databaseUrl: launched.database.url,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '200' },
  });
});

afterAll(async () => {
  await launched.assay?.stop();
  await launched.database?.drop();
  await removeAssayHome(launched.assay?.home);
});

let shop: Awaited<ReturnType<typeof startShop>>;
let receiver: TestServer;
const received: Array<{ traceparent: string | undefined; event: string; caseId: string | undefined }> = [];

beforeAll(async () => {
  shop = await startShop();
  receiver = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { event?: string; data?: { test_case?: { id?: string } } };
      received.push({ traceparent: req.headers.traceparent as string | undefined, event: body.event ?? '', caseId: body.data?.test_case?.id });
      res.writeHead(204).end();
    });
  });
});

afterAll(async () => {
  await receiver?.close();
  await shop?.close();
  await collector?.close();
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const gw = (method: string, path: string, body?: unknown, traceparent?: string) =>
  call(launched.assay.gatewayUrl, method, path, { headers: { ...bearer(launched.assay.serviceKey), ...(traceparent ? { traceparent } : {}) }, ...(body !== undefined ? { body } : {}) });

const inTrace = (traceId: string) => spans.filter((s) => s.traceId === traceId);

/** True when every span of the trace hangs below the caller's span: one tree, nothing orphaned. */
function oneTree(traceId: string, rootSpanId: string): boolean {
  const ids = new Set([rootSpanId, ...inTrace(traceId).map((s) => s.spanId)]);
  return inTrace(traceId).every((s) => ids.has(s.parentSpanId));
}

/** The chain of services from a span up to the caller's span. */
function servicesUp(traceId: string, span: Span): string[] {
  const byId = new Map(inTrace(traceId).map((s) => [s.spanId, s]));
  const chain: string[] = [];
  for (let s: Span | undefined = span; s; s = byId.get(s.parentSpanId)) if (chain.at(-1) !== s.service) chain.push(s.service);
  return chain.reverse();
}

function logLinesWith(traceId: string): string[] {
  return launched.assay.output().split('\n').filter((l) => l.includes(`"trace_id":"${traceId}"`));
}

describe('traces across services', () => {
  let project: { id: string };

  beforeAll(async () => {
    const hook = await gw('POST', '/api/v1/webhooks', { name: 'traces', url: `${receiver.url}/hook`, events: ['test.case.created', 'test.completed'] });
    expect(hook.status).toBe(201);
    project = (await gw('POST', '/api/v1/projects', { name: 'Shop', base_url: shop.url })).body as { id: string };
  });

  it('follows one API call from the gateway through test-case, its outbox and the bus to the webhook delivery', async () => {
    const traceId = hex(16);
    const rootSpanId = hex(8);
    const created = await gw('POST', '/api/v1/test-cases', { project_id: project.id, name: 'Traced', steps: [{ action: 'navigate', value: '/' }] }, `00-${traceId}-${rootSpanId}-01`);
    expect(created.status).toBe(201);

    // The receiver sees the delivery as a request of the same trace.
    const delivery = await eventually(async () => received.find((r) => r.event === 'test.case.created' && r.caseId === created.body.id), 120_000);
    expect({ traceparent: delivery.traceparent, services: [...new Set(inTrace(traceId).map((s) => s.service))] }).toEqual({ traceparent: expect.stringContaining(traceId), services: expect.any(Array) });
    expect(delivery.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    // Every span of the call, once all are exported: the webhook delivery's is among the last.
    await eventually(async () => inTrace(traceId).some((s) => s.service === 'assay-webhook-dispatcher' && s.name === 'webhook delivery') && oneTree(traceId, rootSpanId), 120_000);
    const services = new Set(inTrace(traceId).map((s) => s.service));
    expect([...services].sort()).toEqual(expect.arrayContaining(['assay-gateway', 'assay-test-case', 'assay-webhook-dispatcher']));
    expect(oneTree(traceId, rootSpanId)).toBe(true);

    // The bus hop: test-case's relay publishes a producer span, the dispatcher's consumer span is its child.
    const producer = inTrace(traceId).find((s) => s.service === 'assay-test-case' && s.kind === PRODUCER && s.name.endsWith(' publish'));
    expect(producer).toBeDefined();
    const consumer = inTrace(traceId).find((s) => s.service === 'assay-webhook-dispatcher' && s.kind === CONSUMER && s.parentSpanId === producer!.spanId);
    expect(consumer).toBeDefined();
    const deliverySpan = inTrace(traceId).find((s) => s.name === 'webhook delivery')!;
    expect(servicesUp(traceId, deliverySpan)).toEqual(['assay-gateway', 'assay-test-case', 'assay-webhook-dispatcher']);
    // The test-case service's own queries are in it too (pg instrumentation under the request).
    expect(inTrace(traceId).some((s) => s.service === 'assay-test-case' && /insert|INSERT|pg/.test(s.name))).toBe(true);

    // Log lines written while a span of the call was active carry its trace id.
    const lines = logLinesWith(traceId);
    expect(lines.some((l) => l.startsWith('[gateway]'))).toBe(true);
    expect(lines.some((l) => l.startsWith('[test-case]'))).toBe(true);
  });

  it('follows a run from the gateway through the execution-runner to the events it emits and their webhooks', async () => {
    const testCase = await gw('POST', '/api/v1/test-cases', { project_id: project.id, name: 'Home', steps: [{ action: 'navigate', value: '/' }, { action: 'assert_visible', selector: '#title' }] });
    const plan = await gw('POST', '/api/v1/test-plans', { project_id: project.id, name: 'Traced plan', test_case_ids: [testCase.body.id] });
    const traceId = hex(16);
    const rootSpanId = hex(8);
    const run = await gw('POST', '/api/v1/executions', { test_plan_id: plan.body.id, project_id: project.id }, `00-${traceId}-${rootSpanId}-01`);
    expect(run.body).toMatchObject({ status: 'completed', passed_tests: 1 });

    const delivery = await eventually(async () => received.find((r) => r.event === 'test.completed' && r.traceparent?.includes(traceId)), 120_000);
    expect(delivery).toBeDefined();
    await eventually(async () => inTrace(traceId).some((s) => s.service === 'assay-webhook-dispatcher' && s.name === 'webhook delivery') && oneTree(traceId, rootSpanId), 120_000);
    expect(oneTree(traceId, rootSpanId)).toBe(true);
    const deliverySpan = inTrace(traceId).find((s) => s.name === 'webhook delivery')!;
    // gateway → runner (request, then its own execution command over the bus) → events → dispatcher.
    expect(servicesUp(traceId, deliverySpan)).toEqual(['assay-gateway', 'assay-execution-runner', 'assay-webhook-dispatcher']);
    const runnerConsumer = inTrace(traceId).find((s) => s.service === 'assay-execution-runner' && s.kind === CONSUMER);
    expect(runnerConsumer).toBeDefined();
    expect(logLinesWith(traceId).some((l) => l.startsWith('[execution-runner]'))).toBe(true);
  });

  it('exported over OTLP/HTTP with the JSON protocol and nothing but traces', () => {
    expect(exports.length).toBeGreaterThan(0);
    expect(exports.every((e) => e.startsWith('POST /v1/traces application/json'))).toBe(true);
  });
});
