import { sql, type Kysely } from 'kysely';
import type { Topic } from '@assay/contracts';
import { startSpanFrom, type DetachedSpan } from '@assay/telemetry';
import { outboxChannel } from './outbox.tables.js';
import type { Bus, BusMessage, EventEnvelope } from './types.js';

/**
 * Publishes the oldest unpublished outbox rows (at most `limit`) to the bus in
 * order and marks them sent, in one transaction; the count. A transaction-scoped
 * advisory lock per schema lets one relay publish a batch at a time, so a key's
 * events reach the bus in the order they were written: a relay that does not
 * get it publishes nothing (0) this round.
 * @throws what the bus throws: the rows stay unpublished, their attempts counted.
 */
export async function publishOutboxBatch(db: Kysely<any>, bus: Bus, schema: string, limit: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const lock = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(hashtext(${outboxChannel(schema)})) as ok`.execute(trx);
    if (!lock.rows[0]?.ok) return 0;
    const rows = await trx
      .selectFrom('outbox')
      .select(['seq', 'topic', 'key', 'envelope', 'traceparent'])
      .where('published_at', 'is', null)
      .orderBy('seq')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (rows.length === 0) return 0;
    const { byTopic, spans } = messagesOf(bus, rows);
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

/** The rows as bus messages by topic, each with a producer span that is a child of the request that wrote it (the message carries the span on). */
function messagesOf(bus: Bus, rows: Array<{ topic: string; key: string; envelope: unknown; traceparent: string | null }>) {
  const byTopic = new Map<string, BusMessage[]>();
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
  return { byTopic, spans };
}
