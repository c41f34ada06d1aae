import { randomBytes } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import { Kafka, logLevel, type Admin, type Consumer, type IHeaders, type KafkaMessage, type Producer, type SASLOptions } from 'kafkajs';
import { TOPICS, type Topic } from '@assay/contracts';
import type { Logger } from '@assay/logger';
import { withTraceparent } from '@assay/telemetry';
import { handleInSpan } from './tracing.js';
import { MAX_ATTEMPTS, type Bus, type BusMessage, type EventEnvelope, type SubscribeOptions, type Subscription } from './types.js';

export interface KafkaTopicSettings {
  /** Partitions of each topic: the ceiling on busy consumers of one group (runner, crawler replicas). */
  partitions: number;
  replicationFactor: number;
  /** `min.insync.replicas` of each topic; with `acks: -1` a write needs this many replicas. */
  minInsyncReplicas: number;
}

export interface KafkaBusOptions {
  brokers: string[];
  /** TLS options (kafkajs `ssl`, see `kafkaClientSecurity`); unset: plaintext. */
  ssl?: ConnectionOptions;
  /** SASL options (kafkajs `sasl`); unset: no authentication. */
  sasl?: SASLOptions;
  /** Connection retries of the client (kafkajs `retry.retries`, default 5); tests lower it to fail fast. */
  connectionRetries?: number;
  clientId: string;
  logger: Logger;
  /** Topic settings for the admin step at start; `false` skips it (topics made by ops, or a broker without CreateTopics). */
  topics?: KafkaTopicSettings | false;
  /** Group session timeout (default 30 s); a busy handler keeps its member alive with heartbeats. */
  sessionTimeoutMs?: number;
  /** Heartbeat interval (default 3 s; at most a third of the session timeout). */
  heartbeatIntervalMs?: number;
  /** Attempts per message before it goes to the dead-letter topic (default 25, as on `pg`). */
  maxAttempts?: number;
  /** First pause between attempts (default 1 s); doubles up to `retryMaxDelayMs` (default 30 s). */
  retryDelayMs?: number;
  retryMaxDelayMs?: number;
  /** Pause before a crashed consumer is started again (default 5 s). */
  restartDelayMs?: number;
  /**
   * Idempotent producer (default true). Only tests turn it off: librdkafka's
   * mock cluster names no controller, which kafkajs needs for a producer id.
   */
  idempotent?: boolean;
}

export const DEFAULT_KAFKA_TOPIC_SETTINGS: KafkaTopicSettings = { partitions: 6, replicationFactor: 3, minInsyncReplicas: 2 };

/**
 * Kafka group id of a (consumer group, topic) pair: each subscription is its
 * own Kafka group, so every member of a group subscribes to exactly the same
 * topic and the leader's assigner knows all of them (see README, issue 15).
 */
export function kafkaGroupId(group: string, topic: string): string {
  return `${group}.${topic}`;
}

/** Dead-letter topic of a (topic, consumer group): messages that failed `maxAttempts` times, with the error in headers. */
export function deadLetterTopic(topic: string, group: string): string {
  return `${topic}.dlq.${group}`;
}

const BROADCAST_MARK = '.broadcast.';

interface Running {
  groupId: string;
  broadcast: boolean;
  consumer: Consumer;
  /** Set while the consumer is down after a crash, until it joins its group again. */
  crashed?: Error;
  closed: boolean;
  abort: AbortController;
}

/**
 * The `kafka` transport (kafkajs). Topic = Kafka topic, message key = the
 * aggregate id (one aggregate's events stay in order on one partition), one
 * Kafka group per (consumer group, topic). Offsets are committed only after
 * the handler resolves, so delivery is at-least-once; a failing handler is
 * tried again with backoff, up to `maxAttempts`, then the message goes to
 * its dead-letter topic and the partition moves on.
 */
export class KafkaBus implements Bus {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly admin: Admin;
  private readonly running = new Set<Running>();
  private readonly instance = randomBytes(4).toString('hex');
  private readonly log: Logger;
  private readonly sessionTimeout: number;
  private readonly heartbeatInterval: number;
  private readonly maxAttempts: number;
  private readonly provisioned = new Set<string>();
  private started = false;
  private stopped = false;

  constructor(private readonly opts: KafkaBusOptions) {
    this.log = opts.logger;
    this.kafka = new Kafka({
      clientId: opts.clientId,
      brokers: opts.brokers,
      ...(opts.ssl ? { ssl: opts.ssl } : {}),
      ...(opts.sasl ? { sasl: opts.sasl } : {}),
      ...(opts.connectionRetries !== undefined ? { retry: { retries: opts.connectionRetries } } : {}),
      logLevel: logLevel.WARN,
      logCreator: () => (entry) => {
        const { message, ...rest } = entry.log;
        const level = entry.level === logLevel.ERROR ? 'error' : 'warn';
        this.log[level]({ kafka: rest, namespace: entry.namespace }, `kafka: ${message}`);
      },
    });
    this.sessionTimeout = opts.sessionTimeoutMs ?? 30_000;
    this.heartbeatInterval = Math.min(opts.heartbeatIntervalMs ?? 3000, Math.floor(this.sessionTimeout / 3));
    this.maxAttempts = opts.maxAttempts ?? MAX_ATTEMPTS;
    this.producer = this.kafka.producer({ idempotent: opts.idempotent ?? true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    this.admin = this.kafka.admin();
  }

  /**
   * Connects the producer and the admin client (kept for `/readyz`) and
   * provisions every topic of the catalog.
   * @throws Error naming the setting when the cluster cannot host the topics.
   */
  async start(): Promise<void> {
    if (this.started) return;
    await this.admin.connect();
    await this.provision(Object.values(TOPICS));
    await this.producer.connect();
    this.started = true;
  }

  /** Creates the topics that do not exist yet (idempotent); warns about existing ones with fewer partitions. */
  private async provision(topics: string[]): Promise<void> {
    const settings = this.opts.topics ?? DEFAULT_KAFKA_TOPIC_SETTINGS;
    const wanted = topics.filter((t) => !this.provisioned.has(t));
    if (settings === false || wanted.length === 0) return;
    const { brokers } = await this.admin.describeCluster();
    if (settings.replicationFactor > brokers.length) {
      throw new Error(
        `Kafka has ${brokers.length} broker(s) but KAFKA_REPLICATION_FACTOR is ${settings.replicationFactor}: lower it (1 for a single broker) or add brokers`,
      );
    }
    if (settings.minInsyncReplicas > settings.replicationFactor) {
      throw new Error(`KAFKA_MIN_INSYNC_REPLICAS (${settings.minInsyncReplicas}) cannot exceed KAFKA_REPLICATION_FACTOR (${settings.replicationFactor})`);
    }
    const existing = new Set(await this.admin.listTopics());
    const missing = wanted.filter((t) => !existing.has(t));
    if (missing.length > 0) {
      try {
        await this.admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((topic) => ({
            topic,
            numPartitions: settings.partitions,
            replicationFactor: settings.replicationFactor,
            configEntries: [{ name: 'min.insync.replicas', value: String(settings.minInsyncReplicas) }],
          })),
        });
      } catch (err) {
        // Another replica creating the same topics at the same moment is fine.
        if (!/already exists/i.test(String(err))) {
          throw new Error(`Kafka refused to create topics ${missing.join(', ')} (${settings.partitions} partitions, replication ${settings.replicationFactor}): ${errorText(err)}`);
        }
      }
      this.log.info({ topics: missing, ...settings }, 'kafka topics created');
    }
    const present = wanted.filter((t) => existing.has(t));
    if (present.length > 0) {
      const metadata = await this.admin.fetchTopicMetadata({ topics: present });
      for (const t of metadata.topics) {
        if (t.partitions.length < settings.partitions) {
          this.log.warn(
            { topic: t.name, partitions: t.partitions.length, wanted: settings.partitions },
            'kafka topic has fewer partitions than KAFKA_PARTITIONS; add them with kafka-topics --alter (keys move to other partitions once)',
          );
        }
      }
    }
    for (const t of wanted) this.provisioned.add(t);
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
    if (this.stopped) throw new Error('bus is stopped');
    const groupId = opts.broadcast
      ? `${kafkaGroupId(opts.group, opts.topic)}${BROADCAST_MARK}${this.instance}`
      : kafkaGroupId(opts.group, opts.topic);
    if (!opts.broadcast) await this.provision([deadLetterTopic(opts.topic, opts.group)]);
    const state: Running = { groupId, broadcast: Boolean(opts.broadcast), consumer: undefined as unknown as Consumer, closed: false, abort: new AbortController() };
    this.running.add(state);
    try {
      // A join can fail while the group rebalances (several members starting at once): try again.
      for (let attempt = 1; ; attempt++) {
        try {
          await this.startConsumer(state, groupId, opts);
          break;
        } catch (err) {
          if (attempt >= 5) throw err;
          this.log.warn({ err, groupId, attempt }, 'kafka consumer could not join its group; trying again');
          await state.consumer.disconnect().catch(() => undefined);
          await sleep((this.opts.restartDelayMs ?? 5000) / 5, state.abort.signal);
        }
      }
    } catch (err) {
      // kafkajs may be restarting a consumer that crashed before joining: stop it.
      await this.closeConsumer(state);
      this.running.delete(state);
      throw err;
    }
    return {
      close: async () => {
        await this.closeConsumer(state);
        this.running.delete(state);
        if (opts.broadcast) await this.deleteGroup(groupId);
      },
    };
  }

  /**
   * Starts one consumer for the subscription and resolves once it has joined
   * its group. A broadcast consumer starts at the topic's end as it was before
   * joining, so nothing published after subscribe() resolves is missed.
   */
  private async startConsumer(state: Running, groupId: string, opts: SubscribeOptions): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId,
      sessionTimeout: this.sessionTimeout,
      heartbeatInterval: this.heartbeatInterval,
      rebalanceTimeout: Math.max(60_000, this.sessionTimeout),
      allowAutoTopicCreation: false,
      // Restarts after retriable errors are kafkajs's; the CRASH listener handles the rest.
      retry: { retries: 8 },
    });
    state.consumer = consumer;
    const startAt = opts.broadcast ? await this.endOffsets(opts.topic) : undefined;
    let joined: () => void = () => undefined;
    let failed: (err: Error) => void = () => undefined;
    const firstJoin = new Promise<void>((resolve, reject) => {
      joined = resolve;
      failed = reject;
    });

    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      if (startAt) {
        // Each broadcast group has one member (this process) and never commits: seek every
        // partition to the end recorded before joining. Listeners run before the first fetch.
        for (const partition of e.payload.memberAssignment[opts.topic] ?? []) {
          consumer.seek({ topic: opts.topic, partition, offset: startAt.get(partition) ?? '0' });
        }
      }
      if (state.crashed) this.log.info({ groupId }, 'kafka consumer rejoined its group after a crash');
      state.crashed = undefined;
      joined();
    });
    consumer.on(consumer.events.CRASH, (e) => {
      const { error, restart } = e.payload;
      failed(error);
      if (state.closed) return;
      state.crashed = error;
      this.log.error({ err: error, groupId, restart }, restart ? 'kafka consumer crashed; kafkajs restarts it' : 'kafka consumer crashed; restarting it');
      if (!restart) void this.restartConsumer(state, groupId, opts);
    });

    await consumer.connect();
    await consumer.subscribe({ topic: opts.topic, fromBeginning: !opts.broadcast });
    await consumer.run({
      autoCommit: !opts.broadcast,
      partitionsConsumedConcurrently: Math.max(1, opts.concurrency ?? 1),
      eachMessage: async ({ topic, partition, message, heartbeat }) => {
        if (!message.value) return;
        await this.handle(state, groupId, opts, { topic, partition, message, heartbeat });
      },
    });
    // Resolve once this member holds its partitions (a broadcast one at its start offsets).
    await firstJoin;
  }

  private async restartConsumer(state: Running, groupId: string, opts: SubscribeOptions): Promise<void> {
    const delay = this.opts.restartDelayMs ?? 5000;
    for (let attempt = 1; !state.closed && !this.stopped; attempt++) {
      await state.consumer.disconnect().catch(() => undefined);
      await sleep(delay, state.abort.signal);
      if (state.closed || this.stopped) return;
      try {
        await this.startConsumer(state, groupId, opts);
        return;
      } catch (err) {
        state.crashed = err as Error;
        this.log.error({ err, groupId, attempt }, 'kafka consumer could not be restarted; /readyz stays red');
      }
    }
  }

  /**
   * Runs the handler for one message: again after a backoff while it fails,
   * heartbeating all along so a long handler keeps its member in the group;
   * after `maxAttempts` the message goes to the dead-letter topic.
   */
  private async handle(
    state: Running,
    groupId: string,
    opts: SubscribeOptions,
    m: { topic: string; partition: number; message: KafkaMessage; heartbeat(): Promise<void> },
  ): Promise<void> {
    const envelope = JSON.parse(m.message.value!.toString('utf8')) as EventEnvelope;
    const key = m.message.key?.toString('utf8') ?? '';
    const header = m.message.headers?.traceparent;
    const traceparent = (Array.isArray(header) ? header[0] : header)?.toString('utf8');
    const beat = setInterval(() => void m.heartbeat().catch(() => undefined), this.heartbeatInterval);
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          await handleInSpan(opts.handler, envelope, { topic: opts.topic, key, group: groupId, traceparent });
          return;
        } catch (err) {
          if (opts.broadcast) {
            // As on pg: a broadcast (cache eviction) is not retried.
            this.log.warn({ err, event: envelope.event, groupId }, 'bus handler failed; broadcast messages are not retried');
            return;
          }
          if (attempt >= this.maxAttempts) {
            await this.deadLetter(opts, m, err, attempt);
            return;
          }
          this.log.warn({ err, event: envelope.event, groupId, attempt }, 'bus handler failed; will retry');
          const base = this.opts.retryDelayMs ?? 1000;
          await sleep(Math.min(base * 2 ** (attempt - 1), this.opts.retryMaxDelayMs ?? 30_000), state.abort.signal);
          // Stopping: leave the offset uncommitted, another member gets the message.
          if (state.abort.signal.aborted) throw new Error('subscription closed while retrying');
        }
      }
    } finally {
      clearInterval(beat);
    }
  }

  private async deadLetter(
    opts: SubscribeOptions,
    m: { topic: string; partition: number; message: KafkaMessage },
    err: unknown,
    attempts: number,
  ): Promise<void> {
    const topic = deadLetterTopic(opts.topic, opts.group);
    const headers: IHeaders = {
      ...m.message.headers,
      'assay-error': errorText(err).slice(0, 2000),
      'assay-attempts': String(attempts),
      'assay-group': opts.group,
      'assay-source': `${m.topic}/${m.partition}/${m.message.offset}`,
    };
    await this.producer.send({ topic, acks: -1, messages: [{ key: m.message.key, value: m.message.value, headers }] });
    this.log.error({ err, topic: m.topic, group: opts.group, attempts, deadLetter: topic }, 'bus handler gave up; message sent to the dead-letter topic');
  }

  /** The current end offset of each partition of `topic`. */
  private async endOffsets(topic: string): Promise<Map<number, string>> {
    const offsets = await this.admin.fetchTopicOffsets(topic);
    return new Map(offsets.map((o) => [o.partition, o.high]));
  }

  private async closeConsumer(state: Running): Promise<void> {
    if (state.closed) return;
    state.closed = true;
    state.abort.abort();
    if (!state.consumer) return;
    // disconnect() waits for the message in hand, then leaves the group at once (no session timeout wait).
    await state.consumer.disconnect().catch((err) => this.log.warn({ err }, 'kafka consumer disconnect failed'));
  }

  /**
   * Broadcast groups never commit offsets, so the broker drops them once empty;
   * deleting them on close makes that immediate where the broker allows it.
   */
  private async deleteGroup(groupId: string): Promise<void> {
    await this.admin.deleteGroups([groupId]).catch((err) => this.log.debug({ err, groupId }, 'kafka broadcast group not deleted'));
  }

  /**
   * True when no consumer is down after a crash and the cluster answers on
   * the admin connection opened at start (no new connection per call).
   */
  async isHealthy(): Promise<boolean> {
    if (!this.started || this.stopped) return false;
    for (const r of this.running) if (r.crashed) return false;
    try {
      await this.admin.describeCluster();
      return true;
    } catch {
      return false;
    }
  }

  /** Leaves every group at once (handlers in progress finish first), then closes the producer and the admin client. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const states = [...this.running];
    await Promise.all(states.map((s) => this.closeConsumer(s)));
    this.running.clear();
    const broadcasts = states.filter((s) => s.broadcast).map((s) => s.groupId);
    if (broadcasts.length > 0) await this.admin.deleteGroups(broadcasts).catch(() => undefined);
    await this.producer.disconnect().catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
