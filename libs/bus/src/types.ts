import type { Topic } from '@assay/contracts';

/** Every event on the bus (DESIGN.md, Events). */
export interface EventEnvelope<T = Record<string, unknown>> {
  id: string;
  event: string;
  /**
   * The release that wrote it (ASSAY_VERSION); absent from events of releases before 0.2.0. During a
   * rolling upgrade both releases read each other's events: a consumer never requires a field the
   * previous release does not write (docs/upgrading.md; deploy/upgrade's contract test).
   */
  version?: string;
  timestamp: string;
  organization_id: string;
  project_id?: string;
  data: T;
}

/**
 * Attempts of a failing handler before the message is given up and moved to
 * the dead-letter queue (pg) or topic (kafka) of its consumer group.
 */
export const MAX_ATTEMPTS = 25;

export interface BusMessage {
  /** Aggregate id: Kafka's message key, so one aggregate's events stay in order there. */
  key: string;
  value: EventEnvelope;
  /** W3C trace context the message continues (a message header); the consumer's span is its child. */
  traceparent?: string;
}

export type MessageHandler = (envelope: EventEnvelope, meta: { topic: Topic; key: string }) => Promise<void>;

export interface SubscribeOptions {
  topic: Topic;
  /**
   * Consumer group: every group gets each message once; the processes of one
   * group share the messages. Name it after the service (`webhook-dispatcher`).
   */
  group: string;
  handler: MessageHandler;
  /** Messages handled at once by this process (default 1). */
  concurrency?: number;
  /**
   * The event types the handler acts on (default: every event of the topic).
   * Others never reach it: the pg bus does not even make jobs of them for the
   * group (a consumer that ignored most of a busy topic's events paid a fetch and
   * a completion for each); Kafka skips them before the handler.
   */
  events?: readonly string[];
  /**
   * Every process of the group gets every message published while it is
   * subscribed, with no replay of older ones: for cache eviction.
   */
  broadcast?: boolean;
}

/** The bus as `/readyz` reports it: `down` with a reason while the transport cannot be reached. */
export interface BusHealth {
  status: 'up' | 'down';
  detail?: string;
}

export interface Subscription {
  close(): Promise<void>;
}

/**
 * The one bus interface; services never see the transport. Delivery is
 * at-least-once: a handler that throws gets the message again, so handlers
 * must be idempotent (see `handleOnce`).
 */
export interface Bus {
  readonly kind: 'pg' | 'kafka';
  start(): Promise<void>;
  publish(topic: Topic, messages: BusMessage[]): Promise<void>;
  subscribe(opts: SubscribeOptions): Promise<Subscription>;
  /** True when the transport answers. */
  isHealthy(): Promise<boolean>;
  /** Status with a reason, answered at once from what the transport last saw (never waits on a hung broker); for `/readyz`. */
  health(): Promise<BusHealth>;
  /**
   * Hands the (topic, group)'s dead letters back to that group (no other group sees them again).
   * @returns how many were replayed.
   */
  replayDeadLetters(topic: Topic, group: string): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The event types a subscription hands its handler (undefined: every one).
 * @throws Error for an empty list, which would hand it nothing: a mistake, never meant.
 */
export function wantedEvents(opts: Pick<SubscribeOptions, 'group' | 'topic' | 'events'>): ReadonlySet<string> | undefined {
  if (!opts.events) return undefined;
  if (opts.events.length === 0) throw new Error(`Consumer group "${opts.group}" names no event types: leave \`events\` out to take every event of ${opts.topic}`);
  return new Set(opts.events);
}
