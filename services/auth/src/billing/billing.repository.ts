import type { Kysely } from 'kysely';
import type { AuthDatabase } from '../db/database.js';

type Db = Kysely<AuthDatabase>;

/** Records a Stripe event once: false when it was received before (a redelivery). */
export async function recordStripeEvent(db: Db, eventId: string, type: string): Promise<boolean> {
  const fresh = await db
    .insertInto('stripe_events')
    .values({ id: eventId, type, org_id: null, outcome: 'received' })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return fresh !== undefined;
}

/** What handling the event did, and for which organization. */
export async function finishStripeEvent(db: Db, eventId: string, orgId: string | null, outcome: string): Promise<void> {
  await db.updateTable('stripe_events').set({ org_id: orgId, outcome }).where('id', '=', eventId).execute();
}
