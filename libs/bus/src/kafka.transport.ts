import { randomBytes } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import type { ConnectionOptions } from 'node:tls';
import { Kafka, logLevel, Partitioners, type Admin, type Consumer, type IHeaders, type KafkaMessage, type Producer, type SASLOptions } from 'kafkajs';
import { TOPICS, type Topic } from '@assay/contracts';
import type { Logger } from '@assay/logger';
import { withTraceparent } from '@assay/telemetry';
import { handleInSpan } from './tracing.js';
import { KafkaHolds } from './kafka-holds.js';
import { wantedEvents, type Bus, type BusHealth, type BusMessage, type EventEnvelope, type SubscribeOptions, type Subscription } from './types.js';

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
  /**
   * The retry ladder (default 10 s, 1 min, 10 min): a message whose handler fails moves to retry
   * topic 1 and is tried again after the first delay, then topic 2…; after the last step it goes to
   * the dead-letter topic. The partition never waits; later messages of the same key are parked
   * (`databaseUrl`) until the held one succeeds or is dead-lettered. `[]`: straight to the DLQ.
   */
  retryDelaysMs?: number[];
  /** The service's Postgres: per-key holds of the retry ladder (`bus.kafka_holds`). Needed to subscribe (not to broadcast). */
  databaseUrl?: string;
  /**
   * Longest a fetch waits for data (kafkajs `maxWaitTimeInMs`; default 1 s: a stop waits for the fetch in
   * flight, kafkajs's own 5 s made every stop take 5 s; a real broker answers as soon as data arrives).
   * librdkafka's mock cluster answers only when the wait is over: tests lower it.
   */
  fetchMaxWaitMs?: number;
  /** Background health probe: how often (default 5 s) and how long one may take before it counts as failed (default 2 s). */
  probeIntervalMs?: number;
  probeTimeoutMs?: number;
  /** Tests on librdkafka's mock cluster only: let clients create topics by metadata requests (the mock answers no CreateTopics). */
  autoCreateTopics?: boolean;
  /** Pause before a crashed consumer is started again (default 5 s). */
  restartDelayMs?: number;
  /**
   * Idempotent producer (default true). Only tests turn it off: librdkafka's
   * mock cluster names no controller, which kafkajs needs for a producer id.
   */
  idempotent?: boolean;
}

export const DEFAULT_RETRY_DELAYS_MS = [10_000, 60_000, 600_000];

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

/** Retry topic `level` (1-based) of a (topic, consumer group): messages waiting their turn on the retry ladder. */
export function retryTopic(topic: string, group: string, level: number): string {
  return `${topic}.retry.${group}.${level}`;
}

const BROADCAST_MARK = '.broadcast.';
/** Headers of a message on the retry ladder and in the DLQ. */
const H = {
  error: 'assay-error',
  attempts: 'assay-attempts',
  group: 'assay-group',
  source: 'assay-source',
  notBefore: 'assay-not-before',
  /** Set on the message that holds its key: its success or dead-lettering releases the key's parked messages. */
  holds: 'assay-holds',
} as const;

interface IncomingMessage {
  topic: string;
  partition: number;
  message: KafkaMessage;
  heartbeat(): Promise<void>;
}

interface Running {
  groupId: string;
  broadcast: boolean;
  consumer: Consumer;
  /** Set while the consumer is down after a crash, until it joins its group again. */
  crashed?: Error;
  closed: boolean;
  abort: AbortController;
  /** `main`: the topic itself; `retry`: the subscription's retry topics. */
  role: 'main' | 'retry';
}

/**
 * The `kafka` transport (kafkajs). Topic = Kafka topic, message key = the
 * aggregate id (one aggregate's events stay in order on one partition), one
 * Kafka group per (consumer group, topic). Offsets are committed only after
 * the handler resolves (or the message was moved on), so delivery is
 * at-least-once. A failing message moves to the retry ladder (retry topics
 * with delays, then the dead-letter topic) and the partition goes on at
 * once; later messages of its key are parked until it is done (`KafkaHolds`).
 */
export class KafkaBus implements Bus {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly admin: Admin;
  private readonly running = new Set<Running>();
  /** The event types each subscription hands its handler (see wantedEvents). */
  private readonly wanted = new WeakMap<SubscribeOptions, ReadonlySet<string> | undefined>();
  private readonly instance = randomBytes(4).toString('hex');
  private readonly log: Logger;
  private readonly sessionTimeout: number;
  private readonly heartbeatInterval: number;
  private readonly retryDelays: number[];
  private readonly provisioned = new Set<string>();
  private readonly holds?: KafkaHolds;
  private readonly outage: OutageEpisodes;
  private probe?: { timer: NodeJS.Timeout; inFlight?: Promise<void>; lastOk: boolean; lastError?: string; since?: number };
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
        const level = kafkaLogLevel(entry.level, message, rest, this.outage);
        this.log[level]({ kafka: rest, namespace: entry.namespace }, `kafka: ${message}`);
      },
    });
    this.outage = new OutageEpisodes(this.log);
    this.sessionTimeout = opts.sessionTimeoutMs ?? 30_000;
    this.heartbeatInterval = Math.min(opts.heartbeatIntervalMs ?? 3000, Math.floor(this.sessionTimeout / 3));
    this.retryDelays = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    if (opts.databaseUrl) this.holds = new KafkaHolds(opts.databaseUrl);
    // An explicit partitioner (the Java client's murmur2, kafkajs's default since 2.0): keys land where other clients put them, and no warning at start.
    this.producer = this.kafka.producer({
      idempotent: opts.idempotent ?? true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: Boolean(opts.autoCreateTopics),
      createPartitioner: Partitioners.DefaultPartitioner,
    });
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
    this.startProbe();
  }

  /**
   * Health is probed in the background (every `probeIntervalMs`, default 5 s; a probe that has no
   * answer within 2 s counts as failed), so `health()` answers at once even when the broker hangs.
   */
  private startProbe(): void {
    const every = this.opts.probeIntervalMs ?? 5000;
    const state: NonNullable<KafkaBus['probe']> = { timer: setInterval(() => void this.runProbe(), every), lastOk: true };
    state.timer.unref();
    this.probe = state;
  }

  private async runProbe(): Promise<void> {
    const state = this.probe;
    if (!state || this.stopped) return;
    if (state.inFlight) return; // the previous probe still hangs: its timeout marks the failure
    const timeoutMs = this.opts.probeTimeoutMs ?? 2000;
    let timer: NodeJS.Timeout | undefined;
    state.inFlight = Promise.race([
      this.admin.describeCluster().then(() => undefined),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from the brokers within ${timeoutMs} ms`)), timeoutMs);
      }),
    ])
      .then(() => {
        state.lastOk = true;
        state.lastError = undefined;
        state.since = undefined;
        this.outage.recovered();
      })
      .catch((err) => {
        if (state.lastOk) state.since = Date.now();
        state.lastOk = false;
        state.lastError = errorText(err);
        this.outage.failing(err);
      })
      .finally(() => {
        clearTimeout(timer);
        state.inFlight = undefined;
      });
    await state.inFlight;
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
    this.wanted.set(opts, wantedEvents(opts));
    const groupId = opts.broadcast
      ? `${kafkaGroupId(opts.group, opts.topic)}${BROADCAST_MARK}${this.instance}`
      : kafkaGroupId(opts.group, opts.topic);
    if (!opts.broadcast) {
      if (!this.holds && this.retryDelays.length > 0) throw new Error('the Kafka bus needs databaseUrl to subscribe (per-key holds of the retry ladder)');
      await this.holds?.init();
      await this.provision([deadLetterTopic(opts.topic, opts.group), ...this.retryDelays.map((_, i) => retryTopic(opts.topic, opts.group, i + 1))]);
    }
    // The main and the retry-ladder consumers join their groups at once (a join waits out a dead member's session).
    const withRetry = !opts.broadcast && this.retryDelays.length > 0;
    const [mainJoin, retryJoin] = await Promise.allSettled([
      this.startSubscription(groupId, opts, 'main'),
      withRetry ? this.startSubscription(`${groupId}.retry`, opts, 'retry') : Promise.resolve(undefined),
    ]);
    if (mainJoin.status === 'rejected' || retryJoin.status === 'rejected') {
      for (const join of [mainJoin, retryJoin]) {
        if (join.status !== 'fulfilled' || !join.value) continue;
        await this.closeConsumer(join.value);
        this.running.delete(join.value);
      }
      throw mainJoin.status === 'rejected' ? mainJoin.reason : (retryJoin as PromiseRejectedResult).reason;
    }
    const main = mainJoin.value;
    const retry: Running | undefined = retryJoin.value;
    return {
      close: async () => {
        // Both consumers leave their groups at once.
        await Promise.all([main, retry].filter((r): r is Running => r !== undefined).map((r) => this.closeConsumer(r)));
        this.running.delete(main);
        if (retry) this.running.delete(retry);
        if (opts.broadcast) await this.deleteGroup(groupId);
      },
    };
  }

  /** One consumer (the main one of a subscription, or its retry-ladder one), joined, with restarts after crashes. */
  private async startSubscription(groupId: string, opts: SubscribeOptions, role: 'main' | 'retry'): Promise<Running> {
    const state: Running = { groupId, role, broadcast: Boolean(opts.broadcast), consumer: undefined as unknown as Consumer, closed: false, abort: new AbortController() };
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
    return state;
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
      allowAutoTopicCreation: Boolean(this.opts.autoCreateTopics),
      // Restarts after retriable errors are kafkajs's; the CRASH listener handles the rest.
      retry: { retries: 8 },
      // An idle consumer's fetch waits this long; a stop waits for it (kafkajs's 5 s made every stop take 5 s).
      maxWaitTimeInMs: this.opts.fetchMaxWaitMs ?? 1000,
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
      // A crash from a broker outage belongs to the outage episode (one warning, its duration); others are errors.
      if (isConnectivityError(error) || this.outage.active) {
        this.outage.failing(error);
        this.outage.noteLine();
      } else this.log.error({ err: error, groupId, restart }, restart ? 'kafka consumer crashed; kafkajs restarts it' : 'kafka consumer crashed; restarting it');
      if (!restart) void this.restartConsumer(state, groupId, opts);
    });

    consumer.on(consumer.events.REBALANCING, (e) => this.log.info({ groupId: e.payload.groupId }, 'kafka group rebalancing'));

    await consumer.connect();
    const topics = state.role === 'retry' ? this.retryDelays.map((_, i) => retryTopic(opts.topic, opts.group, i + 1)) : [opts.topic];
    await consumer.subscribe({ topics, fromBeginning: !opts.broadcast });
    await consumer.run({
      autoCommit: !opts.broadcast,
      // The retry consumer waits on each partition's head until it is due: every partition of every step at once.
      partitionsConsumedConcurrently: state.role === 'retry' ? 16 * topics.length : Math.max(1, opts.concurrency ?? 1),
      eachMessage: async ({ topic, partition, message, heartbeat }) => {
        if (!message.value) return;
        const m = { topic, partition, message, heartbeat };
        if (state.role === 'retry') await this.handleRetry(state, opts, m);
        else await this.handle(state, groupId, opts, m);
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
        if (isConnectivityError(err) || this.outage.active) {
          this.outage.failing(err);
          this.outage.noteLine();
        } else this.log.error({ err, groupId, attempt }, 'kafka consumer could not be restarted; /readyz reports the bus down');
      }
    }
  }

  /**
   * A message of the topic itself: parked when its key is held (a message of the same key is on the
   * retry ladder), else handled; a failure moves it onto the ladder (or, without one, to the DLQ) and
   * the partition goes on. A broadcast is handled once, as on pg.
   */
  private async handle(state: Running, groupId: string, opts: SubscribeOptions, m: IncomingMessage): Promise<void> {
    const key = m.message.key?.toString('utf8') ?? '';
    if (!opts.broadcast && this.holds && (await this.holds.parkIfHeld(groupId, key, m.message.value!, stringHeaders(m.message.headers)))) {
      this.log.debug({ groupId, key }, 'bus message parked behind a failing message of its key');
      return;
    }
    const beat = setInterval(() => void m.heartbeat().catch(() => undefined), this.heartbeatInterval);
    try {
      await this.runHandler(groupId, opts, key, m.message.value!, m.message.headers);
    } catch (err) {
      if (opts.broadcast) {
        this.log.warn({ err, groupId }, 'bus handler failed; broadcast messages are not retried');
        return;
      }
      await this.moveOn(opts, groupId, { key: m.message.key, value: m.message.value!, headers: stringHeaders(m.message.headers) }, 1, err, `${m.topic}/${m.partition}/${m.message.offset}`, true);
    } finally {
      clearInterval(beat);
    }
  }

  /**
   * A message of a retry step: waits until it is due (heartbeating; the partition's later messages
   * are due later still), tries again, and on success releases its key's parked messages; on failure
   * it moves to the next step, after the last to the DLQ (which also releases the key).
   */
  private async handleRetry(state: Running, opts: SubscribeOptions, m: IncomingMessage): Promise<void> {
    const headers = stringHeaders(m.message.headers);
    const groupId = kafkaGroupId(opts.group, opts.topic);
    const due = Number(headers[H.notBefore] ?? 0);
    const beat = setInterval(() => void m.heartbeat().catch(() => undefined), this.heartbeatInterval);
    try {
      if (due > Date.now()) await sleep(due - Date.now(), state.abort.signal);
      // Stopping: leave the offset uncommitted, another member takes the message.
      if (state.abort.signal.aborted) throw new Error('subscription closed while waiting on the retry ladder');
      const key = m.message.key?.toString('utf8') ?? '';
      const attempts = Number(headers[H.attempts] ?? 0) + 1;
      const holdsKey = headers[H.holds] === '1';
      try {
        await this.runHandler(groupId, opts, key, m.message.value!, m.message.headers);
      } catch (err) {
        await this.moveOn(opts, groupId, { key: m.message.key, value: m.message.value!, headers }, attempts, err, headers[H.source] ?? `${m.topic}/${m.partition}/${m.message.offset}`, holdsKey);
        return;
      }
      if (attempts > 1) this.log.info({ groupId, attempts }, 'bus message handled on the retry ladder');
      if (holdsKey && this.holds) await this.release(opts, groupId, key);
    } finally {
      clearInterval(beat);
    }
  }

  /**
   * After a failed attempt: onto the next retry step (holding the key when this message is the
   * key's head), or, after the last step, to the dead-letter topic and the key released.
   */
  private async moveOn(
    opts: SubscribeOptions,
    groupId: string,
    msg: { key: Buffer | string | null; value: Buffer; headers: Record<string, string> },
    attempts: number,
    err: unknown,
    source: string,
    holdsKey: boolean,
  ): Promise<void> {
    const key = msg.key?.toString() ?? '';
    const step = attempts; // the step this message goes to next (1-based)
    const base: Record<string, string> = { ...msg.headers, [H.error]: errorText(err).slice(0, 2000), [H.attempts]: String(attempts), [H.group]: opts.group, [H.source]: source };
    if (step <= this.retryDelays.length) {
      if (holdsKey && this.holds) await this.holds.hold(groupId, key);
      const delay = this.retryDelays[step - 1]!;
      await this.producer.send({
        topic: retryTopic(opts.topic, opts.group, step),
        acks: -1,
        messages: [{ key: msg.key, value: msg.value, headers: { ...base, [H.notBefore]: String(Date.now() + delay), [H.holds]: holdsKey ? '1' : '0' } }],
      });
      this.log.warn({ err, groupId, attempts, retry_in_ms: delay }, 'bus handler failed; message moved to the retry ladder, its key held');
      return;
    }
    const dlq = deadLetterTopic(opts.topic, opts.group);
    const { [H.notBefore]: _due, [H.holds]: _holds, ...kept } = base;
    await this.producer.send({ topic: dlq, acks: -1, messages: [{ key: msg.key, value: msg.value, headers: kept }] });
    this.log.error({ err, topic: opts.topic, group: opts.group, attempts, deadLetter: dlq }, 'bus handler gave up; message sent to the dead-letter topic');
    if (holdsKey && this.holds) await this.release(opts, groupId, key);
  }

  /** Handles the key's parked messages in order; one that fails becomes the key's new head on the ladder. */
  private async release(opts: SubscribeOptions, groupId: string, key: string): Promise<void> {
    for (;;) {
      const parked = await this.holds!.next(groupId, key);
      if (!parked) return;
      try {
        await this.runHandler(groupId, opts, key, parked.value, parked.headers);
      } catch (err) {
        await this.moveOn(opts, groupId, { key, value: parked.value, headers: parked.headers }, 1, err, parked.headers[H.source] ?? `parked/${parked.id}`, true);
        await this.holds!.done(parked.id);
        return;
      }
      await this.holds!.done(parked.id);
    }
  }

  private async runHandler(groupId: string, opts: SubscribeOptions, key: string, value: Buffer, headers: IHeaders | Record<string, string> | undefined): Promise<void> {
    const envelope = JSON.parse(value.toString('utf8')) as EventEnvelope;
    const wanted = this.wanted.get(opts);
    if (wanted && !wanted.has(envelope.event)) return;
    const header = headers?.traceparent;
    const traceparent = (Array.isArray(header) ? header[0] : header)?.toString('utf8');
    await handleInSpan(opts.handler, envelope, { topic: opts.topic, key, group: groupId, traceparent });
  }

  /**
   * Replays the (topic, group)'s dead letters present now onto its first retry step, due at once,
   * for that group only; a replay group's committed offsets keep a second replay from repeating them.
   * @returns how many messages were replayed.
   */
  async replayDeadLetters(topic: Topic, group: string, opts: { timeoutMs?: number } = {}): Promise<number> {
    if (this.retryDelays.length === 0) throw new Error('replay needs a retry ladder (KAFKA_RETRY_DELAYS)');
    const dlq = deadLetterTopic(topic, group);
    const replayGroup = `${kafkaGroupId(group, topic)}.dlq-replay`;
    const ends = await this.endOffsets(dlq);
    const committed = new Map<number, string>();
    for (const t of await this.admin.fetchOffsets({ groupId: replayGroup, topics: [dlq] })) {
      for (const p of t.partitions) committed.set(p.partition, p.offset);
    }
    const lows = new Map((await this.admin.fetchTopicOffsets(dlq)).map((o) => [o.partition, o.low]));
    const remaining = new Set<number>();
    for (const [partition, high] of ends) {
      const from = Number(committed.get(partition) ?? '-1');
      const start = from >= 0 ? from : Number(lows.get(partition) ?? '0');
      if (start < Number(high)) remaining.add(partition);
    }
    if (remaining.size === 0) return 0;
    const consumer = this.kafka.consumer({ groupId: replayGroup, sessionTimeout: this.sessionTimeout, heartbeatInterval: this.heartbeatInterval, allowAutoTopicCreation: false });
    let replayed = 0;
    const giveUp = new AbortController();
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((r) => (finish = r));
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: dlq, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          if (!remaining.has(partition)) return;
          if (BigInt(message.offset) < BigInt(ends.get(partition)!)) {
            const headers = stringHeaders(message.headers);
            await this.producer.send({
              topic: retryTopic(topic, group, 1),
              acks: -1,
              messages: [{ key: message.key, value: message.value, headers: { ...headers, [H.attempts]: '0', [H.notBefore]: String(Date.now()), [H.holds]: '0' } }],
            });
            replayed += 1;
          }
          if (BigInt(message.offset) + 1n >= BigInt(ends.get(partition)!)) {
            remaining.delete(partition);
            if (remaining.size === 0) finish();
          }
        },
      });
      const limit = opts.timeoutMs ?? 60_000;
      await Promise.race([
        finished,
        sleep(limit, giveUp.signal).then(() => {
          if (!giveUp.signal.aborted) throw new Error(`replay did not reach the end of ${dlq} within ${limit} ms (${replayed} replayed)`);
        }),
      ]);
    } finally {
      giveUp.abort();
      await consumer.disconnect().catch(() => undefined);
    }
    this.log.info({ topic, group, replayed }, 'dead letters replayed onto the retry ladder');
    return replayed;
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
   * The bus as the last background probe and the consumers see it, at once (never waits on a
   * broker): `down` while the brokers do not answer or a consumer is down after a crash.
   */
  async health(): Promise<BusHealth> {
    if (!this.started || this.stopped) return { status: 'down', detail: 'not started' };
    const crashed = [...this.running].filter((r) => r.crashed);
    if (this.probe && !this.probe.lastOk) {
      const forS = this.probe.since ? Math.round((Date.now() - this.probe.since) / 1000) : 0;
      return { status: 'down', detail: `brokers unreachable for ${forS} s: ${this.probe.lastError ?? 'no answer'}` };
    }
    if (crashed.length > 0) return { status: 'down', detail: `consumer ${crashed[0]!.groupId} is down: ${errorText(crashed[0]!.crashed)}` };
    return { status: 'up' };
  }

  async isHealthy(): Promise<boolean> {
    return (await this.health()).status === 'up';
  }

  /** Leaves every group at once (handlers in progress finish first), then closes the producer and the admin client. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.probe) clearInterval(this.probe.timer);
    const states = [...this.running];
    await Promise.all(states.map((s) => this.closeConsumer(s)));
    this.running.clear();
    const broadcasts = states.filter((s) => s.broadcast).map((s) => s.groupId);
    if (broadcasts.length > 0) await this.admin.deleteGroups(broadcasts).catch(() => undefined);
    await Promise.all([this.producer.disconnect().catch(() => undefined), this.admin.disconnect().catch(() => undefined), this.holds?.close()]);
    this.outage.recovered();
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return wait(ms, undefined, { signal }).catch(() => undefined);
}

function stringHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    const one = Array.isArray(v) ? v[0] : v;
    if (one !== undefined) out[k] = one.toString();
  }
  return out;
}

const CONNECTIVITY = /ECONNREFUSED|NoBrokerAvailable|No broker available|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|Connection|timed? ?out|NumberOfRetriesExceeded|BrokerNotFound|not (?:the )?leader|LeaderNotAvailable|no answer from the brokers|socket/i;

/** Errors a broker outage causes (refused, reset, timed out, retries spent): part of an outage episode, not a line each. */
export function isConnectivityError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return CONNECTIVITY.test(String(err));
  const e = err as { name?: string; message?: string; cause?: unknown; originalError?: unknown };
  return CONNECTIVITY.test(`${e.name ?? ''} ${e.message ?? ''}`) || (e.originalError !== undefined && isConnectivityError(e.originalError)) || (e.cause !== undefined && e.cause !== err && isConnectivityError(e.cause));
}

/**
 * The level a kafkajs log line gets: rebalances and rejoins are normal operations (info); lines an outage
 * causes go into the outage episode (debug, counted); the rest keep kafkajs's level.
 */
export function kafkaLogLevel(level: number, message: string, rest: Record<string, unknown>, outage: { readonly active: boolean; noteLine(): void; failing(err: unknown): void }): 'error' | 'warn' | 'info' | 'debug' {
  const text = `${message} ${String(rest.error ?? '')} ${String((rest as { stack?: string }).stack ?? '')}`;
  // The group protocol's own signals (rebalancing, a member the coordinator dropped, an old generation): kafkajs rejoins.
  if (/rebalanc|not aware of this member|re-?joining the group|group generation id is not valid/i.test(text)) return 'info';
  if (outage.active || isConnectivityError(text)) {
    outage.failing(new Error(`${message}${rest.error ? `: ${String(rest.error)}` : ''}`));
    outage.noteLine();
    return 'debug';
  }
  return level === logLevel.ERROR ? 'error' : 'warn';
}

/**
 * One warning when the brokers stop answering and one when they answer again, with the outage's
 * duration and how many client lines it held back; nothing per retry in between.
 */
export class OutageEpisodes {
  private since?: number;
  private lines = 0;
  private firstError?: string;

  constructor(private readonly log: Logger) {}

  get active(): boolean {
    return this.since !== undefined;
  }

  failing(err: unknown): void {
    if (this.since !== undefined) return;
    this.since = Date.now();
    this.lines = 0;
    this.firstError = errorText(err);
    this.log.warn({ error: this.firstError }, 'kafka unreachable: outbox writes are kept and sent when it is back; one line when it recovers');
  }

  noteLine(): void {
    if (this.since !== undefined) this.lines += 1;
  }

  recovered(): void {
    if (this.since === undefined) return;
    const durationMs = Date.now() - this.since;
    this.log.warn({ duration_ms: durationMs, suppressed_lines: this.lines, first_error: this.firstError }, `kafka reachable again after ${(durationMs / 1000).toFixed(1)} s`);
    this.since = undefined;
  }
}
