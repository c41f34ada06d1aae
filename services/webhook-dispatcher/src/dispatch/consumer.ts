import type { Kysely } from 'kysely';
import { handleManyOnce, MESSAGES_PER_JOB, subscribeEach, type Bus, type EventEnvelope, type Subscription } from '@assay/bus';
import type { Logger } from '@assay/logger';
import { activeTraceparent } from '@assay/telemetry';
import type { WebhookDatabase } from '../db/database.js';
import type { Clock } from '../shared/clock.js';
import { fanOutMany, PUBLIC_EVENTS, PUBLIC_TOPICS, publicEventsOf } from './intake.js';

export const CONSUMER_GROUP = 'webhook-dispatcher';

/**
 * Collects the events handed over in one tick and fans them out in one
 * transaction: the bus passes messages one by one, but a whole fetched batch
 * arrives at once. Each caller's promise settles with the batch, so a failed
 * transaction fails (and redelivers) every message in it.
 */
class IntakeBatcher {
  private pending: Array<{ envelope: EventEnvelope; traceparent: string | undefined; done: (err?: unknown) => void }> = [];
  private scheduled = false;

  constructor(private readonly flush: (envelopes: EventEnvelope[], traceparents: Map<string, string>) => Promise<void>) {}

  add(envelope: EventEnvelope): Promise<void> {
    // Each message's own consumer span: the batch is flushed in the context of whichever came first.
    const traceparent = activeTraceparent();
    return new Promise((resolve, reject) => {
      this.pending.push({ envelope, traceparent, done: (err) => (err ? reject(err) : resolve()) });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        const batch = this.pending;
        this.pending = [];
        this.scheduled = false;
        const traceparents = new Map(batch.flatMap((b) => (b.traceparent ? [[b.envelope.id, b.traceparent] as const] : [])));
        this.flush(batch.map((b) => b.envelope), traceparents).then(
          () => batch.forEach((b) => b.done()),
          (err) => batch.forEach((b) => b.done(err ?? new Error('intake failed'))),
        );
      });
    });
  }
}

/**
 * Subscribes to every topic that carries public events and turns them into
 * deliveries, once per event id (the inbox makes redeliveries no-ops).
 */
export async function subscribeToEvents(opts: { bus: Bus; db: Kysely<WebhookDatabase>; clock: Clock; logger: Logger; onDeliveries(): void; concurrency?: number }): Promise<Subscription[]> {
  const batcher = new IntakeBatcher(async (envelopes, traceparents) => {
    let made = 0;
    await handleManyOnce(opts.db, CONSUMER_GROUP, envelopes.map((e) => e.id), async (trx, fresh) => {
      const once = new Map(envelopes.filter((e) => fresh.has(e.id)).map((e) => [e.id, e]));
      made = await fanOutMany(trx, [...once.values()], opts.clock, traceparents);
    });
    if (made > 0) opts.onDeliveries();
  });
  // One after the other on pg (pg-boss creating several queues at once can deadlock), at once on Kafka.
  return subscribeEach(
    opts.bus,
    PUBLIC_TOPICS.map((topic) => ({
      topic,
      group: CONSUMER_GROUP,
      events: publicEventsOf(topic),
      // A whole bus job of events (up to MESSAGES_PER_JOB) goes into one intake transaction.
      concurrency: opts.concurrency ?? MESSAGES_PER_JOB,
      handler: async (envelope: EventEnvelope) => {
        if (PUBLIC_EVENTS.has(envelope.event)) await batcher.add(envelope);
      },
    })),
  );
}
