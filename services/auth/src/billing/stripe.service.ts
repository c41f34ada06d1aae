import type { Kysely } from 'kysely';
import Stripe from 'stripe';
import { enqueueEvents } from '@assay/bus';
import { withTransaction } from '@assay/db';
import { validationError } from '@assay/http';
import type { AuthDatabase } from '../db/database.js';
import { findOrganizationByStripeCustomer, lockOrganization } from '../organizations/organizations.repository.js';
import { finishStripeEvent, recordStripeEvent } from './billing.repository.js';
import { changePlan, isPlanName } from './billing.service.js';

type Db = Kysely<AuthDatabase>;
// Stripe's objects differ between API versions: read the few fields used, defensively.
type StripeObject = Record<string, any>;

/** Seconds a signature's timestamp may be old (Stripe's own default). */
const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * Verifies a webhook call with the `stripe` package's signature check and
 * returns the event.
 * @throws AppError 400 for a missing or bad signature (nothing is changed).
 */
export function verifyStripeEvent(rawBody: Buffer | undefined, signature: string | undefined, secret: string): StripeObject {
  if (!signature) throw validationError([{ field: 'stripe-signature', message: 'header is required' }], 'The Stripe-Signature header is missing');
  if (!rawBody?.length) throw validationError([{ field: 'body', message: 'a JSON body is required' }]);
  try {
    return Stripe.webhooks.constructEvent(rawBody, signature, secret, SIGNATURE_TOLERANCE_SECONDS) as unknown as StripeObject;
  } catch {
    throw validationError([{ field: 'stripe-signature', message: 'does not match the payload' }], 'Stripe signature verification failed');
  }
}

const idOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof (v as StripeObject | null)?.id === 'string' ? (v as StripeObject).id : undefined);
const isoOf = (seconds: unknown): string | null => (typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString() : null);

/**
 * The Assay plan a subscription is for: `metadata.assay_plan` on the
 * subscription, else on its first price, else the price's `lookup_key`
 * (`growth` or `assay_growth`).
 */
export function planOfSubscription(sub: StripeObject): string | undefined {
  const price = sub.items?.data?.[0]?.price as StripeObject | undefined;
  const candidates = [sub.metadata?.assay_plan, price?.metadata?.assay_plan, price?.lookup_key, typeof price?.lookup_key === 'string' ? price.lookup_key.replace(/^assay_/, '') : undefined];
  return candidates.find(isPlanName);
}

function invoiceBody(inv: StripeObject) {
  const line = inv.lines?.data?.[0]?.period as StripeObject | undefined;
  return {
    id: String(inv.id),
    number: typeof inv.number === 'string' ? inv.number : null,
    customer: idOf(inv.customer) ?? '',
    subscription: idOf(inv.subscription) ?? idOf(inv.parent?.subscription_details?.subscription) ?? null,
    currency: String(inv.currency ?? ''),
    amount_due: Number.isInteger(inv.amount_due) ? inv.amount_due : 0,
    amount_paid: Number.isInteger(inv.amount_paid) ? inv.amount_paid : 0,
    period_start: isoOf(inv.period_start ?? line?.start),
    period_end: isoOf(inv.period_end ?? line?.end),
    hosted_invoice_url: typeof inv.hosted_invoice_url === 'string' ? inv.hosted_invoice_url : null,
  };
}

/** Why an invoice payment failed, from whichever field the API version fills. */
export function failureReason(inv: StripeObject): string {
  const reasons = [inv.last_finalization_error?.message, inv.payment_intent?.last_payment_error?.message, inv.charge?.failure_message, inv.last_payment_error?.message];
  const found = reasons.find((r) => typeof r === 'string' && r.length > 0);
  return found ?? `The payment of invoice ${inv.number ?? inv.id} failed (attempt ${inv.attempt_count ?? 1}); Stripe gave no reason`;
}

export interface StripeOutcome {
  received: true;
  event_id: string;
  duplicate?: true;
  ignored?: string;
}

/**
 * Applies a verified Stripe event once per id: the `stripe_events` row, the
 * plan change and the outbox events commit together.
 */
export async function handleStripeEvent(db: Db, schema: string, event: StripeObject): Promise<StripeOutcome> {
  const eventId = String(event.id ?? '');
  const type = String(event.type ?? '');
  const object = (event.data?.object ?? {}) as StripeObject;
  if (!eventId) throw validationError([{ field: 'id', message: 'is required' }]);
  return withTransaction(db, async (trx) => {
    const fresh = await recordStripeEvent(trx, eventId, type);
    if (!fresh) return { received: true, event_id: eventId, duplicate: true };
    const finish = async (orgId: string | null, outcome: string, ignored?: string): Promise<StripeOutcome> => {
      await finishStripeEvent(trx, eventId, orgId, outcome);
      return { received: true, event_id: eventId, ...(ignored ? { ignored } : {}) };
    };

    const handled = ['customer.subscription.updated', 'customer.subscription.deleted', 'invoice.payment_succeeded', 'invoice.payment_failed'];
    if (!handled.includes(type)) return finish(null, 'ignored', `event type ${type} is not used`);
    const customer = idOf(object.customer);
    const found = customer ? await findOrganizationByStripeCustomer(trx, customer) : undefined;
    if (!found) return finish(null, 'unknown_customer', `no organization is linked to Stripe customer ${customer ?? '(none)'}`);
    await lockOrganization(trx, found.id);
    const org = (await findOrganizationByStripeCustomer(trx, customer!))!;

    switch (type) {
      case 'customer.subscription.updated': {
        const plan = planOfSubscription(object);
        if (!plan || !isPlanName(plan)) return finish(org.id, 'unknown_plan', 'the subscription names no Assay plan (metadata.assay_plan or the price lookup_key)');
        const { events } = await changePlan(trx, schema, org, plan, 'stripe', { stripe_subscription_id: String(object.id) });
        return finish(org.id, events.length ? `plan ${org.plan} -> ${plan}` : 'plan unchanged');
      }
      case 'customer.subscription.deleted': {
        await changePlan(trx, schema, org, 'free', 'stripe', { stripe_subscription_id: String(object.id) });
        await enqueueEvents(trx, schema, [
          {
            event: 'billing.subscription.cancelled',
            organization_id: org.id,
            data: {
              cancelled_at: isoOf(object.canceled_at) ?? isoOf(object.ended_at) ?? isoOf(event.created) ?? new Date().toISOString(),
              old_plan: org.plan,
              new_plan: 'free',
              stripe_subscription_id: String(object.id),
              reason: typeof object.cancellation_details?.reason === 'string' ? object.cancellation_details.reason : null,
            },
          },
        ]);
        return finish(org.id, `cancelled (plan ${org.plan} -> free)`);
      }
      case 'invoice.payment_succeeded':
        await enqueueEvents(trx, schema, [
          { event: 'billing.payment.succeeded', organization_id: org.id, data: { invoice: invoiceBody(object), paid_at: isoOf(object.status_transitions?.paid_at) } },
        ]);
        return finish(org.id, 'payment succeeded');
      default:
        await enqueueEvents(trx, schema, [
          {
            event: 'billing.payment.failed',
            organization_id: org.id,
            data: {
              invoice: invoiceBody(object),
              failure_reason: failureReason(object),
              attempt_count: Number.isInteger(object.attempt_count) ? object.attempt_count : 1,
              next_payment_attempt: isoOf(object.next_payment_attempt),
            },
          },
        ]);
        return finish(org.id, 'payment failed');
    }
  });
}
