import type { Kysely } from 'kysely';
import { handleOnce, type Bus, type Subscription } from '@assay/bus';
import type { Logger } from '@assay/logger';
import type { WebhookDatabase } from '../db/database.js';
import type { Clock } from '../shared/clock.js';
import { fanOut, PUBLIC_EVENTS, PUBLIC_TOPICS } from './intake.js';

export const CONSUMER_GROUP = 'webhook-dispatcher';

/**
 * Subscribes to every topic that carries public events and turns each one
 * into deliveries, once per event id (the inbox makes redeliveries no-ops).
 */
export async function subscribeToEvents(opts: { bus: Bus; db: Kysely<WebhookDatabase>; clock: Clock; logger: Logger; onDeliveries(): void; concurrency?: number }): Promise<Subscription[]> {
  const subscriptions: Subscription[] = [];
  // One after the other: pg-boss creating several queues at once can deadlock.
  for (const topic of PUBLIC_TOPICS) {
    subscriptions.push(
      await opts.bus.subscribe({
        topic,
        group: CONSUMER_GROUP,
        concurrency: opts.concurrency ?? 16,
        handler: async (envelope) => {
          if (!PUBLIC_EVENTS.has(envelope.event)) return;
          let made = 0;
          await handleOnce(opts.db, CONSUMER_GROUP, envelope.id, async (trx) => {
            made = await fanOut(trx, envelope, opts.clock);
          });
          if (made > 0) opts.onDeliveries();
        },
      }),
    );
  }
  return subscriptions;
}
