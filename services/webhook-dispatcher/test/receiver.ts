import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver run as its own process by the tests. The path picks the
 * behaviour; every request is recorded with its raw body and headers:
 *   /ok                 200
 *   /fail/<n>/<id>      500 for the first n requests to this path, then 200
 *   /status/<code>      always <code>
 *   /retry-after/<s>    429 with Retry-After: <s>
 *   /hang               never answers
 *   /slow/<ms>          200 after <ms>
 *   /big                200 with a 10 KB body
 *   /chunked            200 with a 10 KB body in chunks, no Content-Length
 *   /drip               200 at once, then a byte of body every 200 ms, never ending
 * GET /__requests lists what was received; DELETE /__requests forgets it.
 */
interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

const received: Received[] = [];
const counts = new Map<string, number>();

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const path = req.url ?? '/';
    if (path === '/__requests') {
      if (req.method === 'DELETE') received.length = 0;
      res.setHeader('content-type', 'application/json');
      res.end(req.method === 'DELETE' ? '[]' : JSON.stringify(received));
      return;
    }
    received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
    const n = (counts.get(path) ?? 0) + 1;
    counts.set(path, n);
    const [, kind, arg] = path.split('/');
    if (kind === 'hang') return;
    if (kind === 'fail') {
      res.statusCode = n <= Number(arg) ? 500 : 200;
      res.end(res.statusCode === 200 ? 'ok' : `failure ${n}`);
      return;
    }
    if (kind === 'status') {
      res.statusCode = Number(arg);
      res.end(`status ${arg}`);
      return;
    }
    if (kind === 'retry-after') {
      res.statusCode = 429;
      res.setHeader('retry-after', String(arg));
      res.end('slow down');
      return;
    }
    if (kind === 'slow') {
      setTimeout(() => res.end('late'), Number(arg));
      return;
    }
    if (kind === 'chunked') {
      res.write('y'.repeat(3000));
      setTimeout(() => res.end('z'.repeat(7240)), 20);
      return;
    }
    if (kind === 'drip') {
      res.write('.');
      const timer = setInterval(() => res.write('.'), 200);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (kind === 'big') {
      res.end('x'.repeat(10_240));
      return;
    }
    res.end('ok');
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
