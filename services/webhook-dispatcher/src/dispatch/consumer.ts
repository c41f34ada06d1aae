import type { Kysely } from 'kysely';
import { handleManyOnce, MESSAGES_PER_JOB, subscribeEach, TickBatcher, type Bus, type EventEnvelope, type Subscription } from '@assay/bus';
import type { Logger } from '@assay/logger';
import { activeTraceparent } from '@assay/telemetry';
import type { WebhookDatabase } from '../db/database.js';
import type { Clock } from '../shared/clock.js';
import { fanOutMany, PUBLIC_EVENTS, PUBLIC_TOPICS, publicEventsOf } from './intake.js';

export const CONSUMER_GROUP = 'webhook-dispatcher';

/**
 * Subscribes to every topic that carries public events and turns them into
 * deliveries, once per event id (the inbox makes redeliveries no-ops).
 */
export async function subscribeToEvents(opts: { bus: Bus; db: Kysely<WebhookDatabase>; clock: Clock; logger: Logger; onDeliveries(): void; concurrency?: number }): Promise<Subscription[]> {
  // The events handed over in one tick are fanned out in one transaction, each with its own consumer span's trace context.
  const batcher = new TickBatcher<{ envelope: EventEnvelope; traceparent: string | undefined }>(async (items) => {
    const envelopes = items.map((i) => i.envelope);
    const traceparents = new Map(items.flatMap((i) => (i.traceparent ? [[i.envelope.id, i.traceparent] as const] : [])));
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
        if (PUBLIC_EVENTS.has(envelope.event)) await batcher.add({ envelope, traceparent: activeTraceparent() });
      },
    })),
  );
}
