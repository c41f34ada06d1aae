import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { drainServer } from './client-errors.js';

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
