import type { IncomingMessage } from 'node:http';
import { INTERNAL_ROUTES, INTERNAL_TIMEOUT } from '@assay/contracts';
import { PRINCIPAL_HEADER, verifyPrincipal } from '@assay/principal';
import { TEST_INTERNAL_SECRET, freePortForTests, listen, type TestServer } from '@assay/testing';
import { InternalClient, internalPath } from '../src/index.js';

// A real HTTP server on loopback stands for the called service: it records each request and answers what the test says.
interface Seen {
  method: string;
  url: string;
  principal: unknown;
  body: string;
  contentType: string | undefined;
}
let server: TestServer;
const seen: Seen[] = [];
let answer: { status: number; body: string } = { status: 200, body: '{}' };
/** Requests still to meet a replica that is stopping: taken, then the connection reset without an answer. */
let resetNext = 0;

const read = async (req: IncomingMessage) => {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
};

beforeAll(async () => {
  server = await listen(async (req, res) => {
    const principal = await verifyPrincipal(TEST_INTERNAL_SECRET, req.headers[PRINCIPAL_HEADER] as string | undefined).catch(() => null);
    seen.push({ method: req.method!, url: req.url!, principal, body: await read(req), contentType: req.headers['content-type'] });
    if (resetNext > 0) {
      resetNext--;
      req.socket.resetAndDestroy();
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
});
afterAll(() => server.close());
beforeEach(() => {
  seen.length = 0;
  answer = { status: 200, body: '{}' };
  resetNext = 0;
});

const client = () => new InternalClient({ caller: 'analysis', urls: { 'test-case': server.url, 'execution-runner': server.url, auth: server.url }, internalTokenSecret: TEST_INTERNAL_SECRET });

describe('the internal client', () => {
  it('sends an idempotent call once more when its connection is lost before an answer (a replica stopping), never a POST', async () => {
    answer = { status: 200, body: JSON.stringify({ test_case_ids: ['tc1'] }) };
    resetNext = 1;
    const reply = await client().call('taggedTestCases', { org: 'org_1', params: { project_id: 'p1' }, query: { tags: ['smoke'] } });
    expect(reply).toMatchObject({ status: 200, ok: true, body: { test_case_ids: ['tc1'] } });
    expect(seen.map((s) => s.method)).toEqual(['GET', 'GET']);

    seen.length = 0;
    resetNext = 1;
    await expect(client().call('replaceSelector', { org: 'org_1', params: { test_case_id: 'tc1' }, body: { step_ids: ['s1'], from: '#a', to: '#b', expected_steps: [], execution_id: 'e1', source: 'failure-analysis' } })).rejects.toMatchObject({
      code: 'service_unavailable',
    });
    expect(seen.map((s) => s.method)).toEqual(['POST']);
  });

  it('sends the catalogue entry’s method and path, its parameters encoded, its query and body, signed for the organization', async () => {
    answer = { status: 200, body: JSON.stringify({ test_case: { id: 'tc 1' } }) };
    const reply = await client().call('replaceSelector', {
      org: 'org_1',
      params: { test_case_id: 'tc 1/x' },
      body: { step_ids: ['s1'], from: '#a', to: '#b', expected_steps: [], execution_id: 'e1', source: 'failure-analysis' },
    });
    expect(reply).toEqual({ status: 200, ok: true, body: { test_case: { id: 'tc 1' } }, error: { test_case: { id: 'tc 1' } } });
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/internal/test-cases/tc%201%2Fx/replace-selector',
        principal: expect.objectContaining({ org_id: 'org_1', sub: 'analysis', kind: 'service' }),
        body: JSON.stringify({ step_ids: ['s1'], from: '#a', to: '#b', expected_steps: [], execution_id: 'e1', source: 'failure-analysis' }),
        contentType: 'application/json',
      },
    ]);

    await client().call('taggedTestCases', { org: 'org_1', params: { project_id: 'p1' }, query: { tags: ['smoke', 'a&b'] } });
    expect(seen[1]).toMatchObject({ method: 'GET', url: '/internal/projects/p1/tagged-test-cases?tags=smoke&tags=a%26b', body: '', contentType: undefined });
    await client().call('entitlements', { params: { org_id: 'o 2' } });
    expect(seen[2]).toMatchObject({ url: '/internal/organizations/o%202/entitlements', principal: expect.objectContaining({ org_id: null, sub: 'analysis' }) });
  });

  it('answers refusals to the caller with their error body; expect() hands a refusal to its handler by status, else passes 400 and 409 through and makes the rest 503', async () => {
    answer = { status: 409, body: JSON.stringify({ error: 'conflict', message: 'The case changed', details: { step: 2 } }) };
    const reply = await client().call('testCase', { org: 'o', params: { test_case_id: 't' } });
    expect([reply.status, reply.ok, reply.error]).toEqual([409, false, { error: 'conflict', message: 'The case changed', details: { step: 2 } }]);
    await expect(client().expect('testCase', { org: 'o', params: { test_case_id: 't' } })).rejects.toMatchObject({ status: 409, code: 'conflict', message: 'The case changed' });
    answer = { status: 404, body: JSON.stringify({ error: 'not_found', message: 'nope' }) };
    await expect(client().expect('testCase', { org: 'o', params: { test_case_id: 't' } }, { 404: () => undefined })).resolves.toBeUndefined();
    await expect(client().expect('testCase', { org: 'o', params: { test_case_id: 't' } }, { 409: () => 'unused' })).rejects.toMatchObject({ status: 503, message: 'The test-case service answered 404' });
    answer = { status: 409, body: JSON.stringify({ error: 'conflict', message: 'The case changed' }) };
    await expect(client().expect('testCase', { org: 'o', params: { test_case_id: 't' } }, { 409: (error) => `handled: ${error.message}` })).resolves.toBe('handled: The case changed');
    answer = { status: 500, body: JSON.stringify({ error: 'internal_server_error' }) };
    await expect(client().expect('testCase', { org: 'o', params: { test_case_id: 't' } })).rejects.toMatchObject({ status: 503, code: 'service_unavailable', message: 'The test-case service answered 500' });
  });

  it('answers 503 for a service that cannot be reached, is not configured, or answers a success without JSON', async () => {
    const down = new InternalClient({ caller: 'gateway', urls: { auth: `http://127.0.0.1:${await freePortForTests()}` }, internalTokenSecret: TEST_INTERNAL_SECRET });
    await expect(down.call('authenticate', { body: { credential: 'x' } })).rejects.toMatchObject({ status: 503, message: 'The auth service is unavailable; try again shortly' });
    await expect(client().call('sessionEvidence', { org: 'o', params: { session_id: 's' } })).rejects.toMatchObject({ status: 503, message: 'The discovery-crawler service is not configured' });
    answer = { status: 200, body: '<html>' };
    await expect(client().call('project', { org: 'o', params: { project_id: 'p' } })).rejects.toMatchObject({ status: 503, message: 'The test-case service answered 200 without JSON' });
    expect(() => internalPath('project', {})).toThrow('project: the path parameter project_id is missing');
  });

  it('has one timeout policy: the default, and the few entries that wait less (authentication) or more (a report period)', () => {
    const own = Object.entries(INTERNAL_ROUTES).filter(([, r]) => 'timeout' in r).map(([name, r]) => [name, (r as { timeout: unknown }).timeout]);
    expect(own).toEqual([
      ['authenticate', { headersMs: 5000, bodyMs: 5000 }],
      ['reportUsage', { headersMs: 5000, bodyMs: 5000 }],
      ['reportResults', { headersMs: 15_000, bodyMs: 60_000 }],
    ]);
    expect(INTERNAL_TIMEOUT).toEqual({ headersMs: 10_000, bodyMs: 30_000 });
  });
});
