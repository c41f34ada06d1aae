import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { drainServer } from './client-errors.js';

/** A GET through `agent` (kept-alive connections, one at a time), with its status, body and Connection header. */
function get(url: string, agent: http.Agent): Promise<{ status: number; body: string; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
      })
      .on('error', reject);
  });
}

describe('drainServer', () => {
  it('answers the request in flight before it resolves, and takes no new connection', async () => {
    const order: string[] = [];
    const server = http.createServer((_req, res) => {
      setTimeout(() => {
        order.push('answered');
        res.end('done');
      }, 400);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const inFlight = fetch(url).then(async (r) => ({ status: r.status, body: await r.text() }));
    await new Promise((r) => setTimeout(r, 100));
    await drainServer(server, 5000).then(() => order.push('drained'));
    // What a service's stop does next (its database closed): only now.
    expect(order).toEqual(['answered', 'drained']);
    expect(await inFlight).toEqual({ status: 200, body: 'done' });
    await expect(fetch(url)).rejects.toThrow();
  });

  it('answers a request sent on a kept-alive connection after the drain began (with Connection: close) instead of resetting it', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect(await get(url, agent)).toEqual({ status: 200, body: 'ok', connection: 'keep-alive' });
    // The caller's next request on its idle kept-alive connection, just as the server begins to stop.
    const drained = drainServer(server, 5000, 300);
    expect(await get(url, agent)).toEqual({ status: 200, body: 'ok', connection: 'close' });
    await drained;
    // The listener is closed: a new connection is refused.
    await expect(get(url, agent)).rejects.toThrow();
    agent.destroy();
  });

  it('closes kept-alive connections left idle once its grace has passed', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    await get(url, agent);
    let closed = false;
    const drained = drainServer(server, 10_000, 200).then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    // Within the grace the idle connection is still open (the drain has not resolved).
    expect(closed).toBe(false);
    await drained;
    agent.destroy();
  });

  it('resolves after its limit when a request never ends', async () => {
    const server = http.createServer(() => undefined);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const hanging = fetch(url).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await drainServer(server, 300);
    expect(Date.now() - started).toBeLessThan(2000);
    server.closeAllConnections();
    await hanging;
  });
});
