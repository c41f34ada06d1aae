import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Migration, type RawBuilder } from 'kysely';
import type { Pool, PoolClient } from 'pg';
import { COMMAND_TOPICS, contractValidator, eventTopic, type Topic } from '@assay/contracts';
import type { Logger } from '@assay/logger';
import { activeTraceparent, startSpanFrom, type DetachedSpan } from '@assay/telemetry';
import { MESSAGES_PER_JOB } from './pg.transport.js';
import type { Bus, BusMessage, EventEnvelope } from './types.js';

/**
 * Tables of the transactional outbox and the consumer inbox, created in the
 * service's schema by the service's own migrations (add this migration to
 * the service's list).
 */
export const outboxMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('outbox')
      .addColumn('seq', 'bigserial', (c) => c.primaryKey())
      .addColumn('id', 'uuid', (c) => c.notNull().unique())
      .addColumn('topic', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('envelope', 'jsonb', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('published_at', 'timestamptz')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_error', 'text')
      .execute();
    await sql`create index outbox_unpublished on outbox (seq) where published_at is null`.execute(db);
    await db.schema
      .createTable('inbox')
      .addColumn('consumer', 'text', (c) => c.notNull())
      .addColumn('event_id', 'uuid', (c) => c.notNull())
      .addColumn('handled_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addPrimaryKeyConstraint('inbox_pk', ['consumer', 'event_id'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('inbox').execute();
    await db.schema.dropTable('outbox').execute();
  },
};

/**
 * Adds `outbox.traceparent`: the W3C trace context of the request (or message)
 * that wrote the row, so the trace continues when the relay publishes it.
 * Nullable: rows written without tracing, or before this migration, have none.
 */
export const outboxTraceparentMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('outbox').addColumn('traceparent', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('outbox').dropColumn('traceparent').execute();
  },
};

export interface OutboxTables {
  outbox: {
    seq: unknown;
    id: string;
    topic: string;
    key: string;
    envelope: unknown;
    created_at: unknown;
    published_at: unknown;
    attempts: unknown;
    last_error: string | null;
    traceparent: string | null;
  };
  inbox: { consumer: string; event_id: string; handled_at: unknown };
}

export interface NewEvent {
  event: string;
  organization_id: string;
  project_id?: string;
  /** Aggregate id; defaults to the organization id. */
  key?: string;
  data: Record<string, unknown>;
}

const DAY_MS = 24 * 3600 * 1000;
const PURGE_BATCH = 5000;
/** How often a relay deletes old outbox and inbox rows. */
const PURGE_EVERY_MS = 10 * 60_000;

/**
 * The outbox notification's payload when the rows written should not wait for the relay's linger:
 * they hold a command, or they are a batch already (as many events as one pg bus job carries).
 */
const AT_ONCE = 'now';

/** Notification channel the relays of a schema listen on. */
export function outboxChannel(schema: string): string {
  return `assay_outbox_${schema}`;
}

/**
 * Writes an event into the outbox inside the caller's transaction, so the
 * event exists exactly when the state change commits.
 * @throws Error when the event type is unknown or its data breaks the catalog schema.
 */
export async function enqueueEvent(trx: Kysely<any>, schema: string, event: NewEvent): Promise<EventEnvelope> {
  const [envelope] = await enqueueEvents(trx, schema, [event]);
  return envelope!;
}

/** Outbox rows per insert statement (5 parameters each, under Postgres's 65,535). */
const OUTBOX_ROWS_PER_INSERT = 5000;

/** Events made ready for an outbox: checked against their contracts, enveloped, and laid out as its rows. */
export interface OutboxBatch {
  readonly envelopes: EventEnvelope[];
  readonly rows: Array<{ id: string; topic: string; key: string; envelope: string; traceparent: string | null }>;
  /** The relay publishes these at once instead of lingering: a command (a service asked to act), or a full batch by itself (an import's events). */
  readonly atOnce: boolean;
}

/**
 * `events` as outbox rows, for `enqueueEvents` or a statement of the caller's own (`outboxCte`).
 * @throws Error when an event type is unknown or its data breaks the catalog schema.
 */
export function outboxBatch(events: NewEvent[]): OutboxBatch {
  const validator = contractValidator();
  const traceparent = activeTraceparent() ?? null;
  const envelopes: EventEnvelope[] = [];
  const rows = events.map((event) => {
    const topic = eventTopic(event.event);
    const problems = validator.validateEventData(event.event, event.data);
    if (problems.length) throw new Error(`Event ${event.event} breaks its contract: ${JSON.stringify(problems)}`);
    const envelope: EventEnvelope = {
      id: randomUUID(),
      event: event.event,
      timestamp: new Date().toISOString(),
      organization_id: event.organization_id,
      ...(event.project_id ? { project_id: event.project_id } : {}),
      data: event.data,
    };
    envelopes.push(envelope);
    return { id: envelope.id, topic, key: event.key ?? event.organization_id, envelope: JSON.stringify(envelope), traceparent };
  });
  return { envelopes, rows, atOnce: rows.length >= MESSAGES_PER_JOB || rows.some((r) => COMMAND_TOPICS.has(r.topic)) };
}

/** The relay's wake-up: with AT_ONCE it publishes without its linger. */
const wakeRelay = (schema: string, batch: OutboxBatch) => sql`pg_notify(${outboxChannel(schema)}, ${batch.atOnce ? AT_ONCE : ''})`;

/** `enqueueEvent` for many events in one insert (imports, bulk operations), which also wakes the relay: one round trip for up to 5,000 events. */
export async function enqueueEvents(trx: Kysely<any>, schema: string, events: NewEvent[]): Promise<EventEnvelope[]> {
  if (events.length === 0) return [];
  const batch = outboxBatch(events);
  // Postgres takes at most 65,535 parameters per statement: 5 per row.
  for (let i = 0; i < batch.rows.length; i += OUTBOX_ROWS_PER_INSERT) {
    const insert = trx.insertInto('outbox').values(batch.rows.slice(i, i + OUTBOX_ROWS_PER_INSERT));
    if (i + OUTBOX_ROWS_PER_INSERT < batch.rows.length) await insert.execute();
    // The last insert wakes the relay (at commit) in the same round trip.
    else await trx.with('added', () => insert).selectNoFrom(wakeRelay(schema, batch).as('notified')).execute();
  }
  return batch.envelopes;
}

/**
 * A batch written by a statement of the caller's own, so that a state change,
 * its events and the relay's wake-up take one round trip (a hot path's
 * transaction of several statements, each a round trip, becomes one
 * statement). `cte` inserts the rows (one parameter, however many) only if
 * the statement's CTE named `guard` returned a row: add it to the statement
 * as the CTE named `name`. `wake` notifies the relay when rows went in: select
 * it in the statement's main query.
 */
export function outboxCte(schema: string, batch: OutboxBatch, names: { guard: string; name: string }): { cte: RawBuilder<{ added: number }>; wake: RawBuilder<unknown> } {
  const rows = batch.rows.map((r, i) => ({ ...r, envelope: batch.envelopes[i] }));
  return {
    // In parentheses: a raw CTE body is written as it is.
    cte: sql<{ added: number }>`(insert into outbox (id, topic, key, envelope, traceparent)
      select r.id, r.topic, r.key, r.envelope, r.traceparent
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id uuid, topic text, key text, envelope jsonb, traceparent text)
      where exists (select 1 from ${sql.table(names.guard)})
      returning 1 as added)`,
    wake: sql`(select ${wakeRelay(schema, batch)} from ${sql.table(names.name)} limit 1)`,
  };
}

/**
 * Runs `fn` once per (consumer, event id): the inbox row and `fn`'s writes
 * commit together, so a redelivered event is skipped. Returns false when the
 * event was handled before.
 */
export async function handleOnce(
  db: Kysely<any>,
  consumer: string,
  eventId: string,
  fn: (trx: Kysely<any>) => Promise<void>,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('inbox')
      .values({ consumer, event_id: eventId })
      .onConflict((oc) => oc.doNothing())
      .returning('event_id')
      .executeTakeFirst();
    if (!inserted) return false;
    await fn(trx);
    return true;
  });
}

/**
 * `handleOnce` for a batch of events: one transaction inserts the inbox rows
 * and runs `fn` with the ids not handled before (none: `fn` is not called).
 * Returns those ids.
 */
export async function handleManyOnce(
  db: Kysely<any>,
  consumer: string,
  eventIds: string[],
  fn: (trx: Kysely<any>, fresh: Set<string>) => Promise<void>,
): Promise<Set<string>> {
  const unique = [...new Set(eventIds)];
  if (unique.length === 0) return new Set();
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('inbox')
      .values(unique.map((event_id) => ({ consumer, event_id })))
      .onConflict((oc) => oc.doNothing())
      .returning('event_id')
      .execute();
    const fresh = new Set(inserted.map((r: { event_id: string }) => r.event_id));
    if (fresh.size > 0) await fn(trx, fresh);
    return fresh;
  });
}

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
 * Publishes outbox rows to the bus in order and marks them sent. Several
 * replicas may run it: a transaction-scoped advisory lock per schema lets one
 * relay publish a batch at a time, so a key's events reach the bus in the
 * order they were written. A publish failure leaves the rows pending for the
 * next round (at-least-once).
 */
export function startOutboxRelay(opts: OutboxRelayOptions): OutboxRelay {
  const { db, bus, logger } = opts;
  // Two pg bus jobs' worth (MESSAGES_PER_JOB each): one round trip moves a large backlog quickly.
  const batchSize = opts.batchSize ?? 1000;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let lingering: NodeJS.Timeout | undefined;
  let listener: PoolClient | undefined;
  /** The LISTEN connection is up: every write wakes the relay, so it polls only now and then. */
  let listening = false;
  const released = new WeakSet<PoolClient>();
  // A LISTENing connection is never returned to the pool: destroy it.
  const dropListener = (client: PoolClient, err?: Error) => {
    if (released.has(client)) return;
    released.add(client);
    client.release(err ?? true);
  };

  async function publishBatch(): Promise<number> {
    return db.transaction().execute(async (trx) => {
      // One relay of the service publishes at a time (per-key order across replicas); the others skip this round.
      const lock = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(hashtext(${outboxChannel(opts.schema)})) as ok`.execute(trx);
      if (!lock.rows[0]?.ok) return 0;
      const rows = await trx
        .selectFrom('outbox')
        .select(['seq', 'topic', 'key', 'envelope', 'traceparent'])
        .where('published_at', 'is', null)
        .orderBy('seq')
        .limit(batchSize)
        .forUpdate()
        .skipLocked()
        .execute();
      if (rows.length === 0) return 0;
      const byTopic = new Map<string, BusMessage[]>();
      // One producer span per row, a child of the request that wrote it; the message carries the span on.
      const spans: DetachedSpan[] = [];
      for (const r of rows) {
        const list = byTopic.get(r.topic) ?? [];
        const value = r.envelope as EventEnvelope;
        const span = startSpanFrom(r.traceparent, `${r.topic} publish`, 'producer', {
          'messaging.system': bus.kind === 'kafka' ? 'kafka' : 'assay-pg',
          'messaging.operation.type': 'publish',
          'messaging.destination.name': r.topic,
          'messaging.message.id': value.id,
          'assay.event': value.event,
        });
        spans.push(span);
        list.push({ key: r.key, value, ...(span.traceparent ? { traceparent: span.traceparent } : {}) });
        byTopic.set(r.topic, list);
      }
      const seqs = rows.map((r) => r.seq);
      try {
        for (const [topic, messages] of byTopic) await bus.publish(topic as Topic, messages);
        for (const span of spans) span.end();
      } catch (err) {
        for (const span of spans) span.end(err);
        await trx
          .updateTable('outbox')
          .set({ attempts: sql`attempts + 1`, last_error: String(err).slice(0, 1000) })
          .where('seq', 'in', seqs)
          .execute();
        throw err;
      }
      await trx.updateTable('outbox').set({ published_at: sql`now()` }).where('seq', 'in', seqs).execute();
      return rows.length;
    });
  }

  // One warning when publishing starts failing and one when it works again (with how long it failed),
  // not a line per retry while the bus is down.
  let failingSince: number | undefined;
  let failedTries = 0;
  async function drain(): Promise<void> {
    do {
      again = false;
      try {
        while (!stopped && (await publishBatch()) === batchSize);
        if (failingSince !== undefined) {
          logger.warn({ duration_ms: Date.now() - failingSince, failed_tries: failedTries }, 'outbox publishing again: the events kept meanwhile are sent');
          failingSince = undefined;
          failedTries = 0;
        }
      } catch (err) {
        failedTries += 1;
        if (failingSince === undefined) {
          failingSince = Date.now();
          logger.warn({ err }, 'outbox publish failed; events stay in the outbox and are retried every second (one line when it works again)');
        } else logger.debug({ err }, 'outbox publish failed again');
        return;
      }
    } while (again && !stopped);
  }

  function kick(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = drain().finally(() => {
      running = undefined;
    });
    return running;
  }

  /** Deletes in batches, so a large backlog never holds one long transaction. */
  async function deleteOlder(table: 'outbox' | 'inbox', column: 'published_at' | 'handled_at', cutoff: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const r = await sql<{ n: number }>`
        with gone as (
          delete from ${sql.table(table)} where ctid = any(array(select ctid from ${sql.table(table)} where ${sql.ref(column)} < ${cutoff} limit ${PURGE_BATCH}))
          returning 1
        ) select count(*)::int as n from gone`.execute(db);
      const n = r.rows[0]?.n ?? 0;
      total += n;
      if (n < PURGE_BATCH) return total;
    }
  }

  async function purge(): Promise<{ outbox: number; inbox: number }> {
    const now = Date.now();
    const outbox = await deleteOlder('outbox', 'published_at', new Date(now - (opts.retentionMs ?? 7 * DAY_MS)));
    const inbox = await deleteOlder('inbox', 'handled_at', new Date(now - (opts.inboxRetentionMs ?? 14 * DAY_MS)));
    if (outbox || inbox) logger.info({ outbox, inbox }, 'purged published outbox rows and old inbox rows');
    return { outbox, inbox };
  }

  /** A notification: publish after the linger, gathering what is written meanwhile (one wait at a time); a command or a full batch at once. */
  const wake = (atOnce: boolean) => {
    const linger = opts.lingerMs ?? 0;
    if (linger <= 0 || atOnce) {
      if (lingering) clearTimeout(lingering);
      lingering = undefined;
      return void kick();
    }
    if (lingering || stopped) return;
    lingering = setTimeout(() => {
      lingering = undefined;
      void kick();
    }, linger);
  };

  let purgedAt = Date.now();
  const tick = () => {
    // No poll is pending while this one runs: a lost LISTEN connection does not start a second chain of them.
    timer = undefined;
    if (stopped) return;
    void kick().finally(() => {
      if (Date.now() - purgedAt >= PURGE_EVERY_MS) {
        purgedAt = Date.now();
        void purge().catch((err) => logger.warn({ err }, 'outbox purge failed'));
      }
      // Notifications wake the relay while it listens; without them, or while publishing fails, it polls.
      const quiet = listening && failingSince === undefined;
      if (!stopped) timer = setTimeout(tick, quiet ? (opts.listeningIntervalMs ?? 10_000) : (opts.intervalMs ?? 1000));
    });
  };

  // LISTEN for instant wake-ups; polling covers the gaps. A lost connection
  // (Postgres restart, failover) must not crash the service: listen again.
  const listen = (pool: Pool) => {
    let retried = false;
    const retry = (delayMs: number) => {
      if (retried || stopped) return;
      retried = true;
      setTimeout(() => listen(pool), delayMs).unref();
    };
    pool
      .connect()
      .then(async (client) => {
        if (stopped) return dropListener(client);
        listener = client;
        client.on('error', (err) => {
          if (released.has(client)) return;
          logger.warn({ err }, 'outbox LISTEN connection lost; reconnecting');
          if (listener === client) {
            listener = undefined;
            listening = false;
            // Nothing wakes the relay now: the pending poll comes at the short interval, not after the long one
            // (a poll running now schedules the next one at the short interval itself).
            if (timer && !stopped) {
              clearTimeout(timer);
              timer = setTimeout(tick, opts.intervalMs ?? 1000);
            }
          }
          dropListener(client, err);
          retry(1000);
        });
        client.on('notification', (n) => wake(n.payload === AT_ONCE));
        await client.query(`listen ${outboxChannel(opts.schema)}`);
        listening = listener === client;
        // Rows written while nobody listened notified no one: publish them now.
        void kick();
      })
      .catch((err) => {
        logger.warn({ err }, 'outbox LISTEN unavailable; polling until it is back');
        retry(5000);
      });
  };
  if (opts.listen) listen(opts.listen);
  tick();

  return {
    flush: async () => {
      await kick();
      await kick();
    },
    purge,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (lingering) clearTimeout(lingering);
      if (listener) dropListener(listener);
      await running;
    },
  };
}
