import type { Kysely } from 'kysely';

/**
 * `deliveries.traceparent`: the trace context of the event (or request) that
 * made the delivery, so its sends join that trace. Nullable: deliveries made
 * without tracing, or before this migration, have none.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('deliveries').addColumn('traceparent', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('deliveries').dropColumn('traceparent').execute();
}
