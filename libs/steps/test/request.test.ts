import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { EgressPolicy, type EgressProxy } from '@assay/egress';
import { runStep, StepError, type Step, type StepContext } from '@assay/steps';

jest.setTimeout(60_000);

// A small app: POST /api/records creates a record (201 {id, name}) when the bearer token is right;
// /records/:id is its page; GET /api/records lists them.
const records = new Map<string, string>();
let seenAuth: string | undefined;
const server = http.createServer((req, res) => {
  const url = new URL(req.url!, 'http://x');
  if (req.method === 'POST' && url.pathname === '/api/records') {
    seenAuth = req.headers.authorization;
    if (req.headers.authorization !== 'Bearer s3cret-token') return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { name } = JSON.parse(body) as { name: string };
      const id = `r${records.size + 1}`;
      records.set(id, name);
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id, name, tags: ['a', 'b', 'c'] }));
    });
    return;
  }
  if (url.pathname === '/api/records') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: [...records].map(([id, name]) => ({ id, name })) }));
  const m = /^\/records\/(\w+)$/.exec(url.pathname);
  if (m && records.has(m[1]!)) return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1 id="name">${records.get(m[1]!)}</h1>`);
  res.writeHead(404).end('not found');
});

let browser: Browser;
let page: Page;
let base: string;
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH });
  page = await (await browser.newContext()).newPage();
});
afterAll(async () => {
  await browser?.close();
  server.close();
});

const ctx = (variables: Record<string, string> = {}): StepContext => ({ page, baseUrl: base, variables, stepTimeoutMs: 5000, navigationTimeoutMs: 10_000 });
const create = (extra: Partial<Step> = {}): Step => ({
  step_id: 'r',
  action: 'request',
  request: { method: 'POST', url: '/api/records', headers: { Authorization: 'Bearer {{secret.token}}' }, body: { name: '{{who}}' } },
  expect: ['status=201', '$.id exists', '$.error !exists', '$.tags.length>=3', '$.name="Ada"'],
  save_as: { record_id: '$.id' },
  ...extra,
});

describe('request step', () => {
  it('creates a record through the API and a later browser step finds it by the saved id', async () => {
    const variables: Record<string, string> = { 'secret.token': 's3cret-token', who: 'Ada' };
    await runStep(ctx(variables), create());
    expect(seenAuth).toBe('Bearer s3cret-token');
    expect(variables).toMatchObject({ record_id: expect.stringMatching(/^r\d+$/) });
    expect(records.get(variables.record_id!)).toBe('Ada');
    await runStep(ctx(variables), { step_id: 'n', action: 'navigate', value: '/records/{{record_id}}' });
    await runStep(ctx(variables), { step_id: 'a', action: 'assert_text', selector: '#name', value: 'Ada' });
    // A GET with a numeric comparison on a saved list.
    await runStep(ctx(variables), { step_id: 'g', action: 'request', request: { method: 'GET', url: `${base}/api/records` }, expect: ['status=200', '$.items.length>=1', '$.items[0].id exists'] });
  });

  it('fails a wrong status with both values in the error, and every failed assertion', async () => {
    const err = await runStep(ctx({ 'secret.token': 'wrong', who: 'Ada' }), create()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StepError);
    expect((err as StepError).type).toBe('assertion_failed');
    expect((err as StepError).message).toContain('Expected status = 201 but it is 401');
    expect((err as StepError).message).toContain('Expected $.id exists: the response has no such field');
    expect((err as StepError).message).toContain('Expected $.error !exists: it is "unauthorized"');
  });

  it('fails save_as of a field the response lacks, and an unknown variable', async () => {
    const missing = await runStep(ctx({ 'secret.token': 's3cret-token', who: 'B' }), create({ expect: [], save_as: { x: '$.nope' } })).catch((e: unknown) => e);
    expect((missing as StepError).message).toMatch(/save_as x: the response has no \$\.nope \(status 201\)/);
    const unknown = await runStep(ctx({}), create()).catch((e: unknown) => e);
    expect((unknown as StepError).message).toContain('Unknown variable {{secret.token}}');
  });

  it('goes through the egress guard: a URL the policy refuses is never called', async () => {
    const before = records.size;
    const guarded: StepContext = { ...ctx({ 'secret.token': 's3cret-token', who: 'C' }), egress: { policy: new EgressPolicy(), proxy: { peekBlocked: () => [], lastFailed: () => undefined } as unknown as EgressProxy } };
    const err = await runStep(guarded, create()).catch((e: unknown) => e);
    expect((err as StepError).type).toBe('egress_blocked');
    expect((err as StepError).message).toMatch(/^Request POST http:\/\/127\.0\.0\.1:\d+\/api\/records blocked by the egress policy/);
    expect(records.size).toBe(before);
  });
});
