import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { contractValidator } from '@assay/contracts';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import { TEST_INTERNAL_SECRET, useHarness } from '@assay/testing';
import { STRIPE_SECRET, startAuth } from './harness.js';

// Stripe is an edge we do not own: its calls are built here as Stripe sends them, signed with
// the stripe package's own test-header helper. No network.
const auth = useHarness(() => startAuth());

const customerId = () => `cus_${randomUUID().replace(/-/g, '').slice(0, 14)}`;

function stripeEvent(type: string, object: Record<string, unknown>, id = `evt_${randomUUID().replace(/-/g, '')}`) {
  return { id, object: 'event', api_version: '2025-01-27.acacia', created: Math.floor(Date.now() / 1000), type, livemode: false, data: { object } };
}

async function send(event: unknown, opts: { secret?: string; signature?: string | null; raw?: string } = {}) {
  const payload = opts.raw ?? JSON.stringify(event);
  const signature = opts.signature === undefined ? Stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? STRIPE_SECRET }) : opts.signature;
  // The gateway forwards this public route with its own principal; the body bytes pass untouched.
  const res = await fetch(`${auth.server.url}/api/billing/stripe/webhook`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, servicePrincipal('gateway')),
      ...(signature !== null ? { 'stripe-signature': signature } : {}),
    },
    body: payload,
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function linkedOrganization(plan: 'starter' | 'growth' | 'pro' = 'starter') {
  const org = await auth.newOrganization(plan);
  const customer = customerId();
  const linked = await auth.call('PATCH', `/internal/organizations/${org.orgId}/billing`, { body: { stripe_customer_id: customer } });
  expect(linked.body).toMatchObject({ stripe_customer_id: customer, plan });
  return { ...org, customer };
}

const subscription = (customer: string, lookupKey: string, extra: Record<string, unknown> = {}) => ({
  id: `sub_${randomUUID().slice(0, 8)}`,
  object: 'subscription',
  customer,
  status: 'active',
  metadata: {},
  items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_1', lookup_key: lookupKey, metadata: {} } }] },
  ...extra,
});

const invoice = (customer: string, extra: Record<string, unknown> = {}) => ({
  id: `in_${randomUUID().slice(0, 8)}`,
  object: 'invoice',
  number: 'A1B2-0001',
  customer,
  subscription: 'sub_1',
  currency: 'usd',
  amount_due: 4900,
  amount_paid: 4900,
  period_start: 1_790_000_000,
  period_end: 1_792_592_000,
  hosted_invoice_url: 'https://invoice.stripe.test/i/1',
  status_transitions: { paid_at: 1_790_000_100 },
  attempt_count: 1,
  ...extra,
});

describe('Stripe webhooks', () => {
  it('changes the plan on customer.subscription.updated and emits billing.subscription.updated', async () => {
    const org = await linkedOrganization('starter');
    const key = await auth.call('POST', '/api/service-keys', { principal: org.owner, body: { name: 'ci', environment: 'prod' } });
    const sub = subscription(org.customer, 'assay_growth');
    const r = await send(stripeEvent('customer.subscription.updated', sub));
    expect(r).toEqual({ status: 200, body: { received: true, event_id: expect.stringMatching(/^evt_/) } });
    expect(contractValidator().validate('StripeWebhookReceived', r.body)).toEqual([]);
    expect((await auth.authenticate(key.body.key)).body.principal.plan).toBe('growth');
    const events = await auth.events('billing.subscription.updated', org.orgId);
    expect(events.map((e) => e.data)).toEqual([{ old_plan: 'starter', new_plan: 'growth', source: 'stripe', stripe_subscription_id: sub.id, changed_at: expect.any(String) }]);
    // metadata.assay_plan wins over the lookup key.
    await send(stripeEvent('customer.subscription.updated', subscription(org.customer, 'assay_growth', { metadata: { assay_plan: 'pro' } })));
    expect((await auth.call('GET', '/api/organizations/current', { principal: org.owner })).body.plan).toBe('pro');
  });

  it('handles each event id once', async () => {
    const org = await linkedOrganization('starter');
    const event = stripeEvent('customer.subscription.updated', subscription(org.customer, 'growth'));
    const first = await send(event);
    const again = await send(event);
    expect(first.body.duplicate).toBeUndefined();
    expect(again).toEqual({ status: 200, body: { received: true, event_id: event.id, duplicate: true } });
    expect(await auth.events('billing.subscription.updated', org.orgId)).toHaveLength(1);
    const row = await auth.database.db.selectFrom('stripe_events').selectAll().where('id', '=', event.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ type: 'customer.subscription.updated', org_id: org.orgId, outcome: 'plan starter -> growth' });
  });

  it('drops the organization to the free plan on customer.subscription.deleted with the cancellation date', async () => {
    const org = await linkedOrganization('growth');
    const canceledAt = 1_790_100_000;
    await send(stripeEvent('customer.subscription.deleted', subscription(org.customer, 'growth', { status: 'canceled', canceled_at: canceledAt, cancellation_details: { reason: 'cancellation_requested' } })));
    const cancelled = await auth.events('billing.subscription.cancelled', org.orgId);
    expect(cancelled.map((e) => e.data)).toEqual([
      { cancelled_at: new Date(canceledAt * 1000).toISOString(), old_plan: 'growth', new_plan: 'free', stripe_subscription_id: expect.any(String), reason: 'cancellation_requested' },
    ]);
    expect((await auth.events('billing.subscription.updated', org.orgId)).map((e) => e.data.new_plan)).toEqual(['free']);
    expect((await auth.call('GET', '/api/organizations/current', { principal: org.owner })).body.plan).toBe('free');
  });

  it('emits billing.payment.succeeded with the invoice and billing.payment.failed with the reason', async () => {
    const org = await linkedOrganization('pro');
    const paid = invoice(org.customer);
    await send(stripeEvent('invoice.payment_succeeded', paid));
    const failed = invoice(org.customer, { amount_paid: 0, attempt_count: 2, next_payment_attempt: 1_790_200_000, last_finalization_error: { message: 'Your card was declined.' } });
    await send(stripeEvent('invoice.payment_failed', failed));
    const succeeded = await auth.events('billing.payment.succeeded', org.orgId);
    expect(succeeded.map((e) => e.data)).toEqual([
      {
        invoice: {
          id: paid.id,
          number: 'A1B2-0001',
          customer: org.customer,
          subscription: 'sub_1',
          currency: 'usd',
          amount_due: 4900,
          amount_paid: 4900,
          period_start: new Date(1_790_000_000_000).toISOString(),
          period_end: new Date(1_792_592_000_000).toISOString(),
          hosted_invoice_url: 'https://invoice.stripe.test/i/1',
        },
        paid_at: new Date(1_790_000_100_000).toISOString(),
      },
    ]);
    const failures = await auth.events('billing.payment.failed', org.orgId);
    expect(failures.map((e) => e.data)).toEqual([
      { invoice: expect.objectContaining({ id: failed.id, amount_paid: 0 }), failure_reason: 'Your card was declined.', attempt_count: 2, next_payment_attempt: new Date(1_790_200_000_000).toISOString() },
    ]);
    // The plan is untouched by payments.
    expect((await auth.call('GET', '/api/organizations/current', { principal: org.owner })).body.plan).toBe('pro');
  });

  it('answers 400 to a bad or missing signature and changes nothing', async () => {
    const org = await linkedOrganization('starter');
    const event = stripeEvent('customer.subscription.updated', subscription(org.customer, 'pro'));
    const payload = JSON.stringify(event);
    const tampered = JSON.stringify({ ...event, data: { object: subscription(org.customer, 'pro', { id: 'sub_other' }) } });
    const cases = [
      { signature: null },
      { secret: 'whsec_another_secret_entirely_0000000000' },
      { signature: 'garbage' },
      { raw: tampered, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET }) },
      { signature: Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET, timestamp: Math.floor(Date.now() / 1000) - 3600 }) },
    ];
    for (const c of cases) {
      const r = await send(event, c);
      expect({ status: r.status, error: r.body.error }).toEqual({ status: 400, error: 'validation_error' });
    }
    expect((await auth.call('GET', '/api/organizations/current', { principal: org.owner })).body.plan).toBe('starter');
    expect(await auth.database.db.selectFrom('stripe_events').select('id').where('id', '=', event.id).execute()).toEqual([]);
    expect(await auth.events('billing.subscription.updated', org.orgId)).toEqual([]);
    // The same event, properly signed, still works afterwards.
    expect((await send(event)).body.duplicate).toBeUndefined();
  });

  it('accepts but ignores unknown customers, unknown plans and other event types', async () => {
    const org = await linkedOrganization('starter');
    expect((await send(stripeEvent('customer.subscription.updated', subscription(customerId(), 'pro')))).body.ignored).toMatch(/no organization is linked/);
    expect((await send(stripeEvent('customer.subscription.updated', subscription(org.customer, 'enterprise_gold')))).body.ignored).toMatch(/names no Assay plan/);
    expect((await send(stripeEvent('charge.refunded', { id: 'ch_1', customer: org.customer }))).body.ignored).toMatch(/not used/);
    expect((await auth.call('GET', '/api/organizations/current', { principal: org.owner })).body.plan).toBe('starter');
  });

  it('refuses to link one Stripe customer to two organizations', async () => {
    const a = await linkedOrganization();
    const b = await auth.newOrganization();
    const r = await auth.call('PATCH', `/internal/organizations/${b.orgId}/billing`, { body: { stripe_customer_id: a.customer } });
    expect(r).toMatchObject({ status: 409, body: { error: 'conflict' } });
  });

  it('answers 501 when billing is not configured', async () => {
    const bare = await startAuth({ stripeWebhookSecret: '' });
    try {
      const r = await fetch(`${bare.server.url}/api/billing/stripe/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, servicePrincipal('gateway')) },
        body: '{}',
      });
      expect(r.status).toBe(501);
      expect(((await r.json()) as { error: string }).error).toBe('not_implemented');
    } finally {
      await bare.close();
    }
  });
});
