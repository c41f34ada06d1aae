import type { Kysely } from 'kysely';
import type { Pool, PoolClient } from 'pg';
import type { Logger } from '@assay/logger';
import { publishOutboxBatch } from './outbox.publish.js';
import { AT_ONCE, deleteOlder, outboxChannel } from './outbox.tables.js';
import type { Bus } from './types.js';

const DAY_MS = 24 * 3600 * 1000;
/** How often a relay deletes old outbox and inbox rows. */
const PURGE_EVERY_MS = 10 * 60_000;

export interface OutboxRelayOptions {
  db: Kysely<any>;
  /** pg pool for LISTEN; without one the relay only polls. */
  listen?: Pool;
  schema: string;
  bus: Bus;
  logger: Logger;
  /** Poll interval while the relay cannot LISTEN, and the retry interval while publishing fails (default 1000 ms). */
  intervalMs?: number;
  /**
   * Poll interval while the LISTEN connection is up and publishing works (default 10,000 ms): every
   * write notifies, so this poll only finds rows a crashed replica left mid-publish. Polling every
   * second cost each service four statements a second with nothing to send.
   */
  listeningIntervalMs?: number;
  /**
   * How long a notified relay waits for more rows before it publishes (default 0: at once). Events
   * written close together then travel in one batch: one bus job per consumer group instead of one
   * each, which on the pg bus is most of an event's cost; the price is this much latency.
   */
  lingerMs?: number;
  batchSize?: number;
  /** Published rows older than this are deleted (default 7 days). */
  retentionMs?: number;
  /**
   * Inbox rows (ids of events already handled) older than this are deleted
   * (default 14 days): far longer than any redelivery can come late (pg-boss
   * gives up after 25 attempts within hours; a Kafka group replays at most
   * from its last committed offset).
   */
  inboxRetentionMs?: number;
}

export interface OutboxRelay {
  /** Publishes everything pending now; resolves when the outbox is drained. */
  flush(): Promise<void>;
  /** Deletes published outbox rows and inbox rows past their retention (also every 10 minutes by itself); the counts. */
  purge(): Promise<{ outbox: number; inbox: number }>;
  stop(): Promise<void>;
}

/**
 * Publishes outbox rows to the bus in order and marks them sent
 * (`publishOutboxBatch`). Several replicas may run it: one publishes a batch
 * at a time. A publish failure leaves the rows pending for the next round
 * (at-least-once). Writes wake it through LISTEN (after its linger, or at once
 * for a command or a full batch); a poll covers the gaps.
 */
export function startOutboxRelay(opts: OutboxRelayOptions): OutboxRelay {
  const relay = new Relay(opts);
  relay.start();
  return { flush: () => relay.flush(), purge: () => relay.purge(), stop: () => relay.stop() };
}

class Relay {
  // Two pg bus jobs' worth (MESSAGES_PER_JOB each): one round trip moves a large backlog quickly.
  private readonly batchSize: number;
  private stopped = false;
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private lingering: NodeJS.Timeout | undefined;
  private listener: PoolClient | undefined;
  /** The LISTEN connection is up: every write wakes the relay, so it polls only now and then. */
  private listening = false;
  private readonly released = new WeakSet<PoolClient>();
  // One warning when publishing starts failing and one when it works again (with how long it failed),
  // not a line per retry while the bus is down.
  private failingSince: number | undefined;
  private failedTries = 0;
  private purgedAt = Date.now();

  constructor(private readonly opts: OutboxRelayOptions) {
    this.batchSize = opts.batchSize ?? 1000;
  }

  start(): void {
    if (this.opts.listen) this.listen(this.opts.listen);
    this.tick();
  }

  async flush(): Promise<void> {
    await this.kick();
    await this.kick();
  }

  async purge(): Promise<{ outbox: number; inbox: number }> {
    const { db, logger } = this.opts;
    const now = Date.now();
    const outbox = await deleteOlder(db, 'outbox', 'published_at', new Date(now - (this.opts.retentionMs ?? 7 * DAY_MS)));
    const inbox = await deleteOlder(db, 'inbox', 'handled_at', new Date(now - (this.opts.inboxRetentionMs ?? 14 * DAY_MS)));
    if (outbox || inbox) logger.info({ outbox, inbox }, 'purged published outbox rows and old inbox rows');
    return { outbox, inbox };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.lingering) clearTimeout(this.lingering);
    if (this.listener) this.dropListener(this.listener);
    await this.running;
  }

  /** One drain at a time: a kick while one runs makes it go round once more. */
  private kick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async drain(): Promise<void> {
    const { db, bus, schema, logger } = this.opts;
    do {
      this.again = false;
      try {
        while (!this.stopped && (await publishOutboxBatch(db, bus, schema, this.batchSize)) === this.batchSize);
        if (this.failingSince !== undefined) {
          logger.warn({ duration_ms: Date.now() - this.failingSince, failed_tries: this.failedTries }, 'outbox publishing again: the events kept meanwhile are sent');
          this.failingSince = undefined;
          this.failedTries = 0;
        }
      } catch (err) {
        this.failedTries += 1;
        if (this.failingSince === undefined) {
          this.failingSince = Date.now();
          logger.warn({ err }, 'outbox publish failed; events stay in the outbox and are retried every second (one line when it works again)');
        } else logger.debug({ err }, 'outbox publish failed again');
        return;
      }
    } while (this.again && !this.stopped);
  }

  /** A notification: publish after the linger, gathering what is written meanwhile (one wait at a time); a command or a full batch at once. */
  private wake(atOnce: boolean): void {
    const linger = this.opts.lingerMs ?? 0;
    if (linger <= 0 || atOnce) {
      if (this.lingering) clearTimeout(this.lingering);
      this.lingering = undefined;
      return void this.kick();
    }
    if (this.lingering || this.stopped) return;
    this.lingering = setTimeout(() => {
      this.lingering = undefined;
      void this.kick();
    }, linger);
  }

  private readonly tick = (): void => {
    // No poll is pending while this one runs: a lost LISTEN connection does not start a second chain of them.
    this.timer = undefined;
    if (this.stopped) return;
    void this.kick().finally(() => {
      if (Date.now() - this.purgedAt >= PURGE_EVERY_MS) {
        this.purgedAt = Date.now();
        void this.purge().catch((err) => this.opts.logger.warn({ err }, 'outbox purge failed'));
      }
      // Notifications wake the relay while it listens; without them, or while publishing fails, it polls.
      const quiet = this.listening && this.failingSince === undefined;
      if (!this.stopped) this.timer = setTimeout(this.tick, quiet ? (this.opts.listeningIntervalMs ?? 10_000) : (this.opts.intervalMs ?? 1000));
    });
  };

  // LISTEN for instant wake-ups; polling covers the gaps. A lost connection
  // (Postgres restart, failover) must not crash the service: listen again.
  private listen(pool: Pool): void {
    let retried = false;
    const retry = (delayMs: number) => {
      if (retried || this.stopped) return;
      retried = true;
      setTimeout(() => this.listen(pool), delayMs).unref();
    };
    pool
      .connect()
      .then(async (client) => {
        if (this.stopped) return this.dropListener(client);
        this.listener = client;
        client.on('error', (err) => {
          if (this.released.has(client)) return;
          this.opts.logger.warn({ err }, 'outbox LISTEN connection lost; reconnecting');
          if (this.listener === client) this.lostListener();
          this.dropListener(client, err);
          retry(1000);
        });
        client.on('notification', (n) => this.wake(n.payload === AT_ONCE));
        await client.query(`listen ${outboxChannel(this.opts.schema)}`);
        this.listening = this.listener === client;
        // Rows written while nobody listened notified no one: publish them now.
        void this.kick();
      })
      .catch((err) => {
        this.opts.logger.warn({ err }, 'outbox LISTEN unavailable; polling until it is back');
        retry(5000);
      });
  }

  /** Nothing wakes the relay now: the pending poll comes at the short interval, not after the long one (a poll running now schedules the next one at the short interval itself). */
  private lostListener(): void {
    this.listener = undefined;
    this.listening = false;
    if (this.timer && !this.stopped) {
      clearTimeout(this.timer);
      this.timer = setTimeout(this.tick, this.opts.intervalMs ?? 1000);
    }
  }

  /** A LISTENing connection is never returned to the pool: destroy it. */
  private dropListener(client: PoolClient, err?: Error): void {
    if (this.released.has(client)) return;
    this.released.add(client);
    client.release(err ?? true);
  }
}
