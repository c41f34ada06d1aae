import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * The soak's webhook receiver: one HTTP server with a route per behaviour
 * (`/fast`, `/slow` answering after 0.5–3 s, `/flaky` answering 500 while told
 * to), behind a TCP relay that can stall: while stalled it accepts connections
 * and holds every byte both ways, as a partitioned network does. Every request
 * that reaches the server is logged with what it was answered.
 */

export interface Receipt {
  at: number;
  path: string;
  deliveryId: string;
  webhookId: string;
  event: string;
  status: number;
  /** The body as received (parsed). */
  body: { event: string; timestamp: string; organization_id: string; webhook_id: string; delivery_id: string; data: unknown };
}

export interface Receiver {
  /** The relay's URL (what webhooks are registered with). */
  url: string;
  receipts: Receipt[];
  setFlaky(failing: boolean): void;
  stall(on: boolean): void;
  close(): Promise<void>;
}

export async function startReceiver(random: () => number): Promise<Receiver> {
  let failing = false;
  const receipts: Receipt[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      let body: Receipt['body'];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Receipt['body'];
      } catch {
        res.statusCode = 400;
        res.end('bad json');
        return;
      }
      const answer = (status: number) => {
        receipts.push({ at: Date.now(), path, deliveryId: body.delivery_id, webhookId: body.webhook_id, event: body.event, status, body });
        res.statusCode = status;
        res.end(status === 200 ? 'ok' : 'failing on purpose');
      };
      if (path === '/slow') setTimeout(() => answer(200), 500 + Math.floor(random() * 2500));
      else if (path === '/flaky' && failing) answer(500);
      else answer(200);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const target = (server.address() as AddressInfo).port;

  let stalled = false;
  const held: Array<() => void> = [];
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    sockets.add(client).add(upstream);
    const pipe = (from: net.Socket, to: net.Socket) =>
      from.on('data', (d: Buffer) => {
        if (stalled) held.push(() => to.write(d));
        else to.write(d);
      });
    pipe(client, upstream);
    pipe(upstream, client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  const port = (relay.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    receipts,
    setFlaky: (f) => (failing = f),
    stall(on) {
      stalled = on;
      if (!on) for (const release of held.splice(0)) release();
    },
    async close() {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await Promise.all([new Promise((r) => relay.close(r)), new Promise((r) => server.close(r))]);
    },
  };
}
