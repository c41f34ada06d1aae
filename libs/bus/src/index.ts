import type { BusKind } from '@assay/config';
import type { Logger } from '@assay/logger';
import { KafkaBus } from './kafka.transport.js';
import { PgBus } from './pg.transport.js';
import type { Bus } from './types.js';

export type { Bus, BusMessage, EventEnvelope, MessageHandler, SubscribeOptions, Subscription } from './types.js';
export { PgBus, type PgBusOptions } from './pg.transport.js';
export { KafkaBus, type KafkaBusOptions } from './kafka.transport.js';
export {
  enqueueEvent,
  enqueueEvents,
  handleOnce,
  handleManyOnce,
  outboxChannel,
  outboxMigration,
  outboxTraceparentMigration,
  startOutboxRelay,
  type NewEvent,
  type OutboxRelay,
  type OutboxRelayOptions,
  type OutboxTables,
} from './outbox.js';

export interface CreateBusOptions {
  kind: BusKind;
  databaseUrl: string;
  kafkaBrokers: string[];
  clientId: string;
  logger: Logger;
}

/** The bus the deployment chose with `BUS`; services depend only on the `Bus` interface. */
export function createBus(opts: CreateBusOptions): Bus {
  return opts.kind === 'kafka'
    ? new KafkaBus({ brokers: opts.kafkaBrokers, clientId: opts.clientId, logger: opts.logger })
    : new PgBus({ connectionString: opts.databaseUrl, logger: opts.logger });
}
