import { InOrder } from './in-order.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('InOrder', () => {
  it('runs writes one after another in the order they were queued, without the caller waiting', async () => {
    const q = new InOrder();
    const log: string[] = [];
    const write = (name: string, ms: number) => async () => {
      log.push(`${name} start`);
      await tick(ms);
      log.push(`${name} end`);
    };
    q.push(write('a', 30));
    q.push(write('b', 1));
    q.push(write('c', 10));
    // Queued, not yet run: push returned at once.
    expect(log).toEqual([]);
    await q.drain();
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
  });

  it('skips the writes after a failed one and throws its error from drain, with no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    try {
      const q = new InOrder();
      const ran: string[] = [];
      q.push(async () => void ran.push('first'));
      q.push(async () => {
        throw new Error('database away');
      });
      q.push(async () => void ran.push('after the failure'));
      await tick(20);
      await expect(q.drain()).rejects.toThrow('database away');
      await expect(q.settled()).resolves.toBeUndefined();
      expect(ran).toEqual(['first']);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
