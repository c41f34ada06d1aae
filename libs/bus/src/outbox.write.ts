import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { ASSAY_VERSION, COMMAND_TOPICS, contractValidator, eventTopic } from '@assay/contracts';
import { activeTraceparent } from '@assay/telemetry';
import { AT_ONCE, outboxChannel } from './outbox.tables.js';
import { MESSAGES_PER_JOB } from './pg.transport.js';
import type { EventEnvelope } from './types.js';

export interface NewEvent {
  event: string;
  organization_id: string;
  project_id?: string;
  /** Aggregate id; defaults to the organization id. */
  key?: string;
  data: Record<string, unknown>;
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
      version: ASSAY_VERSION,
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
