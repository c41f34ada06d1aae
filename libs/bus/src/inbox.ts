import type { Kysely } from 'kysely';

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
