import { createHmac, timingSafeEqual } from 'node:crypto';
import { contractValidator } from '@assay/contracts';
import { eventually, listen, type TestServer } from '@assay/testing';
import { startShop } from '../fixtures/shop/server.js';
import { bearer, call } from './support/http.js';
import { launchForFile } from './support/launcher.js';

// Webhooks through the real gateway and the real webhook-dispatcher process:
// events of the test-case and execution-runner processes reach a receiver
// listening on a real port, signed, in the spec's envelope.
jest.setTimeout(120_000);

const launched = launchForFile();

let shop: Awaited<ReturnType<typeof startShop>>;
let receiver: TestServer;
const received: Array<{ headers: Record<string, string>; body: string }> = [];
const staging: Array<{ event: string; data: any }> = [];

const gw = (method: string, path: string, body?: unknown, credential = launched.assay.serviceKey) =>
  call(launched.assay.gatewayUrl, method, path, { headers: bearer(credential), ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  shop = await startShop();
  receiver = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/staging') staging.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as (typeof staging)[number]);
      if (req.method === 'POST' && req.url === '/hook') received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(req.url === '/hook' || req.url === '/staging' ? 204 : 404).end();
    });
  });
});

afterAll(async () => {
  await receiver?.close();
  await shop?.close();
});

const bodies = () => received.map((r) => ({ ...r, json: JSON.parse(r.body) as { event: string; data: any; delivery_id: string; webhook_id: string; organization_id: string } }));
const waitFor = (event: string, n = 1) =>
  eventually(async () => {
    const hits = bodies().filter((b) => b.json.event === event);
    return hits.length >= n ? hits : undefined;
  }, 60_000);

describe('webhooks through the gateway', () => {
  it('delivers signed events of test-case and execution-runner with the spec data shapes', async () => {
    const created = await gw('POST', '/api/v1/webhooks', {
      name: 'CI',
      url: `${receiver.url}/hook`,
      events: ['test.case.created', 'test.plan.started', 'test.plan.completed', 'test.execution.started', 'test.execution.completed', 'test.execution.passed', 'test.execution.failed', 'test.completed'],
    });
    expect(created.status).toBe(201);
    const secret: string = created.body.secret;

    const [test] = await waitFor('test.case.created');
    expect(test!.json).toMatchObject({ delivery_id: created.body.test_delivery_id, webhook_id: created.body.id, data: { test: true } });

    const project = await gw('POST', '/api/v1/projects', { name: 'Shop', base_url: shop.url });
    const passing = await gw('POST', '/api/v1/test-cases', { project_id: project.body.id, name: 'Home loads', priority: 'critical', steps: [{ action: 'navigate', value: '/' }, { action: 'assert_visible', selector: '#title' }] });
    const failing = await gw('POST', '/api/v1/test-cases', { project_id: project.body.id, name: 'Wrong price', priority: 'high', steps: [{ action: 'navigate', value: '/products/1' }, { action: 'assert_text', selector: '#price', value: '$99.00' }] });
    const plan = await gw('POST', '/api/v1/test-plans', { project_id: project.body.id, name: 'Smoke', test_case_ids: [passing.body.id, failing.body.id] });
    const run = await gw('POST', '/api/v1/executions', { test_plan_id: plan.body.id, project_id: project.body.id });
    expect(run.body).toMatchObject({ status: 'completed', passed_tests: 1, failed_tests: 1 });

    const cases = await waitFor('test.case.created', 3);
    expect(cases.slice(1).map((c) => [c.json.data.test_case.name, c.json.data.test_case.priority]).sort()).toEqual([['Home loads', 'critical'], ['Wrong price', 'high']]);
    const [failed] = await waitFor('test.execution.failed');
    expect(failed!.json.data.execution).toMatchObject({ test_case_id: failing.body.id, test_case_name: 'Wrong price', project_id: project.body.id, project_name: 'Shop', priority: 'high', error: { message: expect.any(String), step: 2 } });
    expect(failed!.json.data.environment).toMatchObject({ browser: expect.any(String), viewport: expect.stringMatching(/^\d+x\d+$/) });
    const [passed] = await waitFor('test.execution.passed');
    expect(passed!.json.data.execution).toMatchObject({ test_case_id: passing.body.id, priority: 'critical', status: 'passed' });
    const [planDone] = await waitFor('test.plan.completed');
    expect(planDone!.json.data.test_plan).toMatchObject({ id: plan.body.id, name: 'Smoke', summary: { total: 2, passed: 1, failed: 1, skipped: 0, pass_rate: 50 }, failed_tests: [expect.objectContaining({ id: failing.body.id })] });
    const [short] = await waitFor('test.completed');
    expect(short!.json.data).toEqual({ execution_id: run.body.id, status: 'completed', duration_ms: expect.any(Number) });
    await waitFor('test.plan.started');
    await waitFor('test.execution.started', 2);
    await waitFor('test.execution.completed', 2);

    // Every delivery: the envelope, a valid catalog shape, and a signature a receiver checks in constant time.
    for (const b of bodies()) {
      expect(Object.keys(b.json).sort()).toEqual(['data', 'delivery_id', 'event', 'organization_id', 'timestamp', 'webhook_id']);
      const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(b.body).digest('hex')}`);
      const given = Buffer.from(b.headers['x-service-signature'] ?? '');
      expect(given.length === expected.length && timingSafeEqual(given, expected)).toBe(true);
      expect(b.headers['x-service-event']).toBe(b.json.event);
      expect(b.headers['webhook-id']).toBe(b.json.delivery_id);
      if (!b.json.data.test && b.json.event !== 'test.completed') expect({ event: b.json.event, problems: contractValidator().validateEventData(b.json.event, b.json.data) }).toEqual({ event: b.json.event, problems: [] });
    }

    const log = await gw('GET', `/api/v1/webhooks/${created.body.id}/deliveries?event=test.execution.failed`);
    expect(log.body.data).toEqual([expect.objectContaining({ status: 'delivered', status_code: 204, attempt_count: 1 })]);
  });

  it('an environment rule gets only the events of runs in that environment', async () => {
    const project = await gw('POST', '/api/v1/projects', { name: 'Envs', base_url: shop.url, environments: { staging: shop.url, production: shop.url } });
    const kase = await gw('POST', '/api/v1/test-cases', { project_id: project.body.id, name: 'Home', priority: 'medium', steps: [{ action: 'navigate', value: '/' }, { action: 'assert_visible', selector: '#title' }] });
    const plan = await gw('POST', '/api/v1/test-plans', { project_id: project.body.id, name: 'Envs', test_case_ids: [kase.body.id] });
    const events = ['test.plan.started', 'test.plan.completed', 'test.execution.started', 'test.execution.completed', 'test.execution.passed'];
    const hook = await gw('POST', '/api/v1/webhooks', {
      name: 'Staging only',
      url: `${receiver.url}/staging`,
      events,
      filters: { projects: [project.body.id] },
      conditional_rules: { match: 'all', rules: [{ field: 'environment', op: 'eq', value: 'staging' }] },
    });
    expect(hook.status).toBe(201);
    const runs: Record<string, string> = {};
    for (const environment of ['production', undefined, 'staging']) {
      const run = await gw('POST', '/api/v1/executions', { test_plan_id: plan.body.id, project_id: project.body.id, ...(environment ? { environment } : {}) });
      expect(run.body).toMatchObject({ status: 'completed', passed_tests: 1 });
      runs[environment ?? 'none'] = run.body.id;
    }
    // The unfiltered webhook of the first test saw all three runs end: their events were fanned out.
    await eventually(async () => {
      const done = bodies().filter((b) => b.json.event === 'test.plan.completed' && b.json.data.test_plan.project_id === project.body.id);
      return done.length === 3 ? done : undefined;
    }, 60_000);
    const all = bodies().filter((b) => b.json.data.execution?.project_id === project.body.id || b.json.data.test_plan?.project_id === project.body.id);
    const environmentOf = (d: any) => (d.execution ? d.execution.environment : d.test_plan?.environment);
    expect(new Set(all.map((b) => environmentOf(b.json.data)))).toEqual(new Set(['production', null, 'staging']));
    const logged = await eventually(async () => {
      const log = await gw('GET', `/api/v1/webhooks/${hook.body.id}/deliveries?limit=100`);
      // The create-time test event and one delivery per event of the staging run.
      const rows = log.body.data as Array<{ status: string }>;
      return rows.length === events.length + 1 && rows.every((d) => d.status === 'delivered') && staging.length >= rows.length ? rows : undefined;
    }, 60_000);
    expect(logged).toHaveLength(events.length + 1);
    const runEvents = staging.filter((b) => !b.data.test);
    expect(runEvents.map((b) => b.event).sort()).toEqual([...events].sort());
    for (const b of runEvents) {
      expect(environmentOf(b.data)).toBe('staging');
      expect(b.data.execution?.id ?? b.data.execution_id).toBe(runs.staging);
    }
  });

  it('refuses bad input with 400, a key without the webhooks scope with 403, and lists the routes in the OpenAPI document', async () => {
    const bad = await gw('POST', '/api/v1/webhooks', { name: 'x', url: 'http://example.com/hook', events: ['nope'] });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['events.0', 'url']);
    const reader = await gw('POST', '/api/api-keys', { name: 'reader', scopes: ['projects:read'] });
    const refused = await gw('GET', '/api/v1/webhooks', undefined, reader.body.key);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/webhooks:manage/);
    const manager = await gw('POST', '/api/api-keys', { name: 'hooks', scopes: ['webhooks:manage'] });
    const list = await gw('GET', '/api/v1/webhooks', undefined, manager.body.key);
    expect(list.status).toBe(200);
    expect(list.body.pagination.total).toBeGreaterThanOrEqual(1);
    const openapi = await call(launched.assay.gatewayUrl, 'GET', '/api/v1/openapi.json');
    expect(Object.keys(openapi.body.paths)).toEqual(expect.arrayContaining(['/api/v1/webhooks', '/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/resend', '/api/v1/webhooks/{webhook_id}/rotate-secret']));
  });
});
