import http from 'node:http';
import type { AddressInfo } from 'node:net';

// The receiver of `make bench webhooks`, in its own process so that neither
// sender shares a CPU with it: answers 200 to every POST, counts them, and
// reports the count on GET /__count.
let count = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/__count') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ count }));
    return;
  }
  req.resume();
  req.on('end', () => {
    count++;
    res.end('ok');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`));
process.on('SIGTERM', () => process.exit(0));
