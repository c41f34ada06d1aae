import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AssayApiError, AssayConnectionError, createAssayClient, ok, parseEventStream, retryAfterSeconds } from './index.js';

// The gateway's answers are played by a local HTTP server here: these tests
// pin the client's own rules (retry, errors, SSE parsing). The e2e suites run
// the client against the real gateway.

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

async function server(handler: (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen[]) => void) {
  const seen: Seen[] = [];
  const s = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body, at: Date.now() });
      handler(req, res, seen);
    });
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r()))) };
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

function streamOf(text: string, chunk = 3): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + chunk));
      at += chunk;
    },
  });
}

describe('AssayClient', () => {
  it('sends the key as a bearer credential and returns typed data', async () => {
    const s = await server((_req, res) => json(res, 200, { data: [{ id: 'p1', name: 'Shop' }], pagination: { limit: 50, offset: 0, total: 1 } }));
    try {
      const client = createAssayClient({ baseUrl: `${s.url}/`, apiKey: 'service_sk_dev_abc' });
      const list = ok(await client.api.GET('/api/v1/projects', { params: { query: { limit: 50 } } }));
      expect(list.data[0]!.name).toBe('Shop');
      expect(s.seen[0]!.headers.authorization).toBe('Bearer service_sk_dev_abc');
      expect(s.seen[0]!.url).toBe('/api/v1/projects?limit=50');
    } finally {
      await s.close();
    }
  });

  it('throws AssayApiError with the code, message, request id and details of an error answer', async () => {
    const s = await server((_req, res) =>
      json(res, 400, { error: 'validation_error', message: 'Invalid body', details: [{ field: 'name', message: 'is required' }], request_id: 'req-1' }),
    );
    try {
      const client = createAssayClient({ baseUrl: s.url, apiKey: 'k' });
      const err = await client.api.POST('/api/v1/projects', { body: { name: '', base_url: 'http://x' } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AssayApiError);
      expect(err).toMatchObject({ status: 400, error: 'validation_error', message: 'Invalid body', request_id: 'req-1', method: 'POST', path: '/api/v1/projects' });
      expect((err as AssayApiError).details).toEqual([{ field: 'name', message: 'is required' }]);
    } finally {
      await s.close();
    }
  });

  it('retries a 429 after its Retry-After and a 503 with backoff, resending the same body', async () => {
    const s = await server((_req, res, seen) => {
      if (seen.length === 1) return json(res, 429, { error: 'rate_limit_exceeded', message: 'slow down', retry_after: 1 }, { 'retry-after': '1' });
      if (seen.length === 2) return json(res, 503, { error: 'service_unavailable', message: 'down' });
      json(res, 201, { id: 'p1' });
    });
    try {
      const client = createAssayClient({ baseUrl: s.url, apiKey: 'k', retry: { baseDelayMs: 10 } });
      const created = await client.requestJson<{ id: string }>('POST', '/api/v1/projects', { body: { name: 'Shop' } });
      expect(created.id).toBe('p1');
      expect(s.seen.map((r) => r.body)).toEqual(Array(3).fill('{"name":"Shop"}'));
      // Retry-After: 1 was honoured (no earlier than ~1 s after the 429).
      expect(s.seen[1]!.at - s.seen[0]!.at).toBeGreaterThanOrEqual(900);
    } finally {
      await s.close();
    }
  });

  it('gives up after its retries and throws the last 429 with retry_after', async () => {
    const s = await server((_req, res) => json(res, 429, { error: 'rate_limit_exceeded', message: 'slow down', retry_after: 0 }, { 'retry-after': '0' }));
    try {
      const client = createAssayClient({ baseUrl: s.url, apiKey: 'k', retry: { retries: 2 } });
      const err = await client.requestJson('GET', '/api/v1/projects').catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 429, error: 'rate_limit_exceeded', retry_after: 0 });
      expect(s.seen).toHaveLength(3);
    } finally {
      await s.close();
    }
  });

  it('does not wait for a Retry-After longer than its longest delay', async () => {
    const s = await server((_req, res) => json(res, 429, { error: 'rate_limit_exceeded', message: 'hourly limit', retry_after: 3000 }, { 'retry-after': '3000' }));
    try {
      const client = createAssayClient({ baseUrl: s.url, apiKey: 'k' });
      const err = await client.requestJson('GET', '/api/v1/projects').catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 429, retry_after: 3000 });
      expect(s.seen).toHaveLength(1);
    } finally {
      await s.close();
    }
  });

  it('turns a refused connection into AssayConnectionError naming the address, not the key', async () => {
    const s = await server(() => undefined);
    await s.close();
    const client = createAssayClient({ baseUrl: s.url, apiKey: 'sk_live_secret' });
    const err = await client.requestJson('GET', '/api/v1/projects').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AssayConnectionError);
    expect((err as Error).message).toContain(s.url);
    expect((err as Error).message).not.toContain('sk_live_secret');
  });

  it('reads a non-JSON error page as an error with its status', async () => {
    const s = await server((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<h1>Bad gateway</h1>');
    });
    try {
      const err = await createAssayClient({ baseUrl: s.url, apiKey: 'k' }).requestJson('GET', '/x').catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 502, error: 'http_502', message: '<h1>Bad gateway</h1>' });
    } finally {
      await s.close();
    }
  });

  it('follows an execution stream across a dropped connection with Last-Event-ID', async () => {
    const s = await server((req, res, seen) => {
      if (req.url!.endsWith('/stream')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (!req.headers['last-event-id']) {
          res.write('id: 1\nevent: status\ndata: {"status":"running"}\n\n');
          res.write('id: 2\nevent: test_started\ndata: {"test_id":"t1","name":"A","position":0}\n\n');
          return void res.end(); // dropped before the end
        }
        res.write(`id: 3\nevent: test_finished\ndata: {"test_id":"t1","name":"A","status":"passed","duration_ms":5}\n\n`);
        res.write('id: 4\nevent: completed\ndata: {"status":"completed","passed_tests":1,"failed_tests":0,"total_tests":1}\n\n');
        return void res.end();
      }
      if (req.url!.endsWith('/status')) return json(res, 200, { id: 'e1', status: seen.some((r) => r.headers['last-event-id']) ? 'completed' : 'running' });
      json(res, 200, { id: 'e1', status: 'completed', passed_tests: 1, failed_tests: 0, total_tests: 1, results: { test_results: [{ test_id: 't1', name: 'A', status: 'passed', duration_ms: 5, steps: [] }], summary: { total: 1, passed: 1, failed: 0, skipped: 0 } } });
    });
    try {
      const client = createAssayClient({ baseUrl: s.url, apiKey: 'k' });
      const events: string[] = [];
      const result = await client.followExecution('e1', { pollIntervalMs: 10, onEvent: (e) => events.push(e.event) });
      expect(events).toEqual(['status', 'test_started', 'test_finished', 'completed']);
      expect(result.finished).toBe(true);
      expect(result.finished && result.execution.results.summary.passed).toBe(1);
      expect(s.seen.filter((r) => r.url.endsWith('/stream')).map((r) => r.headers['last-event-id'])).toEqual([undefined, '2']);
    } finally {
      await s.close();
    }
  });

  it('returns an unfinished run with its status once waitMs passed', async () => {
    const s = await server((req, res) => {
      if (req.url!.endsWith('/stream')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return void res.write('id: 1\nevent: status\ndata: {"status":"running"}\n\n'); // and nothing more
      }
      json(res, 200, { id: 'e1', status: 'running', progress: { current: 0, total: 1, percent: 0 } });
    });
    try {
      const result = await createAssayClient({ baseUrl: s.url, apiKey: 'k' }).followExecution('e1', { waitMs: 300 });
      expect(result).toEqual({ id: 'e1', finished: false, status: { id: 'e1', status: 'running', progress: { current: 0, total: 1, percent: 0 } } });
    } finally {
      await s.close();
    }
  });
});

describe('parseEventStream', () => {
  it('reads ids, event names, multi-line data and CRLF line ends split across chunks, and skips comments', async () => {
    const text = ': keep-alive\r\n\r\nid: 7\r\nevent: page_discovered\r\ndata: {"url":\r\ndata: "/a"}\r\n\r\nretry: 2000\n\ndata: plain\n\n';
    const events = [];
    for await (const e of parseEventStream(streamOf(text))) events.push(e);
    expect(events).toEqual([
      { id: '7', event: 'page_discovered', data: '{"url":\n"/a"}' },
      { id: '7', event: 'message', data: 'plain' },
    ]);
  });
});

describe('retryAfterSeconds', () => {
  it('reads delta seconds and HTTP dates and ignores junk', () => {
    expect(retryAfterSeconds('12')).toBe(12);
    expect(retryAfterSeconds(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThanOrEqual(4);
    expect(retryAfterSeconds('soon')).toBeUndefined();
    expect(retryAfterSeconds(null)).toBeUndefined();
  });
});
