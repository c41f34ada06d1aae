import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type Consumer, type Producer } from 'kafkajs';
import type { Topic } from '@assay/contracts';
import type { Logger } from '@assay/logger';
import { withTraceparent } from '@assay/telemetry';
import { handleInSpan } from './tracing.js';
import type { Bus, BusMessage, EventEnvelope, SubscribeOptions, Subscription } from './types.js';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
}

/**
 * The `kafka` transport (kafkajs). Topic = Kafka topic, message key = the
 * aggregate id, consumer group = Kafka group id. Offsets are committed only
 * after the handler resolves, so delivery is at-least-once; a handler that
 * throws makes kafkajs retry the message before moving on.
 */
export class KafkaBus implements Bus {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly consumers = new Set<Consumer>();
  private readonly instance = randomBytes(4).toString('hex');

  constructor(opts: KafkaBusOptions) {
    this.kafka = new Kafka({
      clientId: opts.clientId,
      brokers: opts.brokers,
      logLevel: logLevel.WARN,
      logCreator: () => (entry) => opts.logger.warn({ kafka: entry.log }, entry.log.message),
    });
    this.producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  }

  async start(): Promise<void> {
    await this.producer.connect();
  }

  async publish(topic: Topic, messages: BusMessage[]): Promise<void> {
    if (messages.length === 0) return;
    // kafkajs's instrumentation writes the active context into every message's headers: send each run of
    // consecutive messages of one trace in that trace's context (runs, not groups, keep the order per key).
    for (let start = 0; start < messages.length; ) {
      let end = start + 1;
      while (end < messages.length && messages[end]!.traceparent === messages[start]!.traceparent) end++;
      const run = messages.slice(start, end);
      await withTraceparent(run[0]!.traceparent, () =>
        this.producer.send({
          topic,
          acks: -1,
          messages: run.map((m) => ({
            key: m.key,
            value: JSON.stringify(m.value),
            headers: { event: m.value.event, ...(m.traceparent ? { traceparent: m.traceparent } : {}) },
          })),
        }),
      );
      start = end;
    }
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    const groupId = opts.broadcast ? `${opts.group}.${this.instance}` : opts.group;
    const consumer = this.kafka.consumer({ groupId });
    await consumer.connect();
    await consumer.subscribe({ topic: opts.topic, fromBeginning: !opts.broadcast });
    await consumer.run({
      partitionsConsumedConcurrently: Math.max(1, opts.concurrency ?? 1),
      eachMessage: async ({ message }) => {
        if (!message.value) return;
        const envelope = JSON.parse(message.value.toString('utf8')) as EventEnvelope;
        const header = message.headers?.traceparent;
        const traceparent = (Array.isArray(header) ? header[0] : header)?.toString('utf8');
        await handleInSpan(opts.handler, envelope, { topic: opts.topic, key: message.key?.toString('utf8') ?? '', group: groupId, traceparent });
      },
    });
    this.consumers.add(consumer);
    return {
      close: async () => {
        this.consumers.delete(consumer);
        await consumer.disconnect();
      },
    };
  }

  async isHealthy(): Promise<boolean> {
    const admin = this.kafka.admin();
    try {
      await admin.connect();
      await admin.listTopics();
      return true;
    } catch {
      return false;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    for (const c of this.consumers) await c.disconnect().catch(() => undefined);
    this.consumers.clear();
    await this.producer.disconnect();
  }
}
