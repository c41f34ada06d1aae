import type { BusKind, KafkaConfig } from '@assay/config';
import type { Logger } from '@assay/logger';
import { KafkaBus } from './kafka.transport.js';
import { kafkaClientSecurity } from './kafka-security.js';
import { PgBus } from './pg.transport.js';
import type { Bus } from './types.js';

export { MAX_ATTEMPTS, type Bus, type BusHealth, type BusMessage, type EventEnvelope, type MessageHandler, type SubscribeOptions, type Subscription } from './types.js';
export { subscribeEach } from './subscribe-each.js';
export { TickBatcher } from './tick-batcher.js';
export { kafkaClientSecurity, tokenFileProvider, type KafkaClientSecurity, type OauthBearerProvider } from './kafka-security.js';
export { PgBus, deadLetterQueue, MESSAGES_PER_JOB, type DeadLetter, type PgBusOptions } from './pg.transport.js';
export { KafkaBus, deadLetterTopic, retryTopic, kafkaGroupId, isConnectivityError, kafkaLogLevel, OutageEpisodes, DEFAULT_KAFKA_TOPIC_SETTINGS, DEFAULT_RETRY_DELAYS_MS, type KafkaBusOptions, type KafkaTopicSettings } from './kafka.transport.js';
export { outboxChannel, outboxMigration, outboxTraceparentMigration, type OutboxTables } from './outbox.tables.js';
export { enqueueEvent, enqueueEvents, outboxBatch, outboxCte, type NewEvent, type OutboxBatch } from './outbox.write.js';
export { handleOnce, handleManyOnce } from './inbox.js';
export { startOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from './outbox.relay.js';

export interface CreateBusOptions {
  kind: BusKind;
  databaseUrl: string;
  kafka: KafkaConfig;
  clientId: string;
  logger: Logger;
}

/** The bus the deployment chose with `BUS`; services depend only on the `Bus` interface. */
export function createBus(opts: CreateBusOptions): Bus {
  return opts.kind === 'kafka'
    ? new KafkaBus({
        brokers: opts.kafka.brokers,
        ...kafkaClientSecurity(opts.kafka),
        clientId: opts.clientId,
        logger: opts.logger,
        sessionTimeoutMs: opts.kafka.sessionTimeoutMs,
        retryDelaysMs: opts.kafka.retryDelaysMs,
        databaseUrl: opts.databaseUrl,
        topics: opts.kafka.provisionTopics
          ? { partitions: opts.kafka.partitions, replicationFactor: opts.kafka.replicationFactor, minInsyncReplicas: opts.kafka.minInsyncReplicas }
          : false,
      })
    : new PgBus({ connectionString: opts.databaseUrl, logger: opts.logger });
}
