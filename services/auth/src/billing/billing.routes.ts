import type { Request } from 'express';
import { notImplemented, serviceRouter, type ServiceRouter } from '@assay/http';
import type { AuthContext } from '../context.js';
import { handleStripeEvent, verifyStripeEvent } from './stripe.service.js';

/**
 * Stripe's webhook endpoint. It needs no Assay credential (the gateway lets
 * it through); the signature over the raw body, checked with the endpoint
 * secret, is the credential.
 */
export function billingRoutes(ctx: AuthContext): ServiceRouter<'auth'> {
  const router = serviceRouter('auth');
  router.post('/api/billing/stripe/webhook', async (req, res) => {
    if (!ctx.stripeWebhookSecret) throw notImplemented('Billing is not configured on this deployment (STRIPE_WEBHOOK_SECRET is not set)');
    const event = verifyStripeEvent((req as Request & { rawBody?: Buffer }).rawBody, req.header('stripe-signature'), ctx.stripeWebhookSecret);
    res.json(await handleStripeEvent(ctx.db, ctx.schema, event));
  });
  return router;
}
