import { freePortForTests, useHarness } from '@assay/testing';
import { endpointOf, Sender } from '../src/dispatch/sender.js';
import { signDelivery } from '../src/dispatch/signing.js';
import { startReceiver, TEST_EGRESS } from './harness.js';

// The sender on its own, against the receiver process: what it keeps of an
// answer, and the deadline over the whole request.
const receiver = useHarness(() => startReceiver());

const body = JSON.stringify({ event: 'test.case.created', data: {} });
const headers = (id: string) => signDelivery({ deliveryId: id, event: 'test.case.created', body, secrets: ['s'.repeat(32)], at: new Date() });

describe('sender', () => {
  it('ends a request whose body never ends at the deadline, though data keeps coming', async () => {
    const sender = new Sender(TEST_EGRESS, 1000);
    try {
      const started = Date.now();
      const r = await sender.send(endpointOf(`${receiver.url}/drip/a`), headers('d1'), body);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(Date.now() - started).toBeLessThan(1600);
      expect(r).toMatchObject({ statusCode: null, body: null, error: 'No answer within 1 s' });
    } finally {
      await sender.close();
    }
  });

  it('keeps the first 4 KB of a chunked body with no length, and the next request still goes out', async () => {
    const sender = new Sender(TEST_EGRESS);
    try {
      const r = await sender.send(endpointOf(`${receiver.url}/chunked/b?x=1`), headers('d2'), body);
      expect(r.statusCode).toBe(200);
      expect(r.error).toBeNull();
      expect(r.body).toBe('y'.repeat(3000) + 'z'.repeat(1096));
      const next = await sender.send(endpointOf(`${receiver.url}/ok/b`), headers('d3'), body);
      expect(next).toMatchObject({ statusCode: 200, body: 'ok', error: null });
      // The path and query reach the receiver as given.
      expect((await receiver.requests('/chunked/b')).map((q) => q.path)).toEqual(['/chunked/b?x=1']);
    } finally {
      await sender.close();
    }
  });

  it('reads Retry-After and reports a refused connection as an error, never a throw', async () => {
    const sender = new Sender(TEST_EGRESS);
    try {
      expect(await sender.send(endpointOf(`${receiver.url}/retry-after/7`), headers('d4'), body)).toMatchObject({ statusCode: 429, retryAfter: '7', error: 'HTTP 429', body: 'slow down' });
      const closed = await freePortForTests();
      const refused = await sender.send(endpointOf(`http://127.0.0.1:${closed}/x`), headers('d5'), body);
      expect(refused).toMatchObject({ statusCode: null, body: null });
      expect(refused.error).toMatch(/ECONNREFUSED/);
    } finally {
      await sender.close();
    }
  });
});
