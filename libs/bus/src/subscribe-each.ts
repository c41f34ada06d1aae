import type { Bus, SubscribeOptions, Subscription } from './types.js';

/**
 * Subscribes one service to several topics. On `pg` one after the other (pg-boss creating several
 * queues at once can deadlock); on Kafka all at once: each subscription is a consumer group (two,
 * with the retry ladder) to join, and a restarted webhook-dispatcher joining its ten groups one
 * after the other served nothing for 44 s (`make soak BUS=kafka`, docs/soak.md). When one fails,
 * those already made are closed and the first error is thrown.
 */
export async function subscribeEach(bus: Pick<Bus, 'kind' | 'subscribe'>, list: SubscribeOptions[]): Promise<Subscription[]> {
  if (bus.kind !== 'kafka') {
    const made: Subscription[] = [];
    try {
      for (const opts of list) made.push(await bus.subscribe(opts));
    } catch (err) {
      await Promise.allSettled(made.map((s) => s.close()));
      throw err;
    }
    return made;
  }
  const settled = await Promise.allSettled(list.map((opts) => bus.subscribe(opts)));
  const made = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.allSettled(made.map((s) => s.close()));
    throw failed.reason;
  }
  return made;
}
