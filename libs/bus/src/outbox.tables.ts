import { sql, type Kysely, type Migration } from 'kysely';

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

/**
 * The outbox notification's payload when the rows written should not wait for the relay's linger:
 * they hold a command, or they are a batch already (as many events as one pg bus job carries).
 */
export const AT_ONCE = 'now';

/** Notification channel the relays of a schema listen on. */
export function outboxChannel(schema: string): string {
  return `assay_outbox_${schema}`;
}

const PURGE_BATCH = 5000;

/** Deletes the rows of `table` whose `column` is older than `cutoff`, in batches so a large backlog never holds one long transaction; the count. */
export async function deleteOlder(db: Kysely<any>, table: 'outbox' | 'inbox', column: 'published_at' | 'handled_at', cutoff: Date): Promise<number> {
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
