import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { answerClientErrorsWithJson, keepConnectionsAlive, KEEP_ALIVE_MS } from './client-errors.js';

function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(request));
    let got = '';
    s.on('data', (d) => (got += d.toString('latin1')));
    s.on('close', () => resolve(got));
    s.on('error', () => resolve(got));
  });
}

describe('requests Node cannot parse', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('ok'));
    answerClientErrorsWithJson(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('answers headers over 16 KB with a JSON 431', async () => {
    const reply = await raw(port, `GET / HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${'A'.repeat(20_000)}\r\n\r\n`);
    expect(reply.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(reply).toContain('content-type: application/json');
    expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'payload_too_large', message: 'Request headers are larger than the 16 KB this server accepts' });
  });

  it('answers a malformed request line with a JSON 400', async () => {
    const reply = await raw(port, 'GET / HTTP/1.1\r\nhost: x\r\ncontent-length: nope\r\n\r\n');
    expect(reply.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'validation_error', message: 'Malformed HTTP request' });
  });
});

describe('keep-alive', () => {
  it('advertises and keeps idle connections for 65 s, so pooling callers expire theirs first', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    keepConnectionsAlive(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const reply = await raw((server.address() as AddressInfo).port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(reply).toMatch(/\r\nKeep-Alive: timeout=65\r\n/);
      expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_MS);
      expect(server.headersTimeout).toBeGreaterThan(server.keepAliveTimeout);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
