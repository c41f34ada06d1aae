import { TOPICS } from '@assay/contracts';
import { subscribeEach } from './subscribe-each.js';
import type { SubscribeOptions, Subscription } from './types.js';

/** A bus that takes `ms` to subscribe (a Kafka group join), recording how many subscribes ran at once. */
function slowBus(kind: 'pg' | 'kafka', ms: number, failTopic?: string) {
  const seen = { inFlight: 0, most: 0, closed: [] as string[], made: [] as string[] };
  return {
    seen,
    bus: {
      kind,
      async subscribe(opts: SubscribeOptions): Promise<Subscription> {
        seen.inFlight++;
        seen.most = Math.max(seen.most, seen.inFlight);
        await new Promise((r) => setTimeout(r, ms));
        seen.inFlight--;
        if (opts.topic === failTopic) throw new Error(`cannot join ${opts.topic}`);
        seen.made.push(opts.topic);
        return { close: async () => void seen.closed.push(opts.topic) };
      },
    },
  };
}

const list = [TOPICS.executionEvents, TOPICS.discoveryEvents, TOPICS.analysisEvents, TOPICS.testcases].map((topic) => ({ topic, group: 'g', handler: async () => undefined }));

describe('subscribeEach', () => {
  it('joins every Kafka group at once: a restart waits for one join, not one per topic', async () => {
    const { bus, seen } = slowBus('kafka', 150);
    const started = Date.now();
    const subs = await subscribeEach(bus, list);
    expect(subs).toHaveLength(4);
    expect(seen.most).toBe(4);
    expect(Date.now() - started).toBeLessThan(4 * 150);
  });

  it('subscribes one after the other on pg (pg-boss creating queues at once can deadlock)', async () => {
    const { bus, seen } = slowBus('pg', 20);
    expect(await subscribeEach(bus, list)).toHaveLength(4);
    expect(seen.most).toBe(1);
    expect(seen.made).toEqual(list.map((l) => l.topic));
  });

  it.each(['kafka', 'pg'] as const)('on %s, closes what it made when one subscription fails, and throws', async (kind) => {
    const { bus, seen } = slowBus(kind, 10, TOPICS.analysisEvents);
    await expect(subscribeEach(bus, list)).rejects.toThrow(`cannot join ${TOPICS.analysisEvents}`);
    expect(seen.closed.sort()).toEqual(seen.made.sort());
    expect(seen.closed.length).toBeGreaterThan(0);
  });
});
