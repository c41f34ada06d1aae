import type { Kysely } from 'kysely';
import { enqueueEvents, type NewEvent } from '@assay/bus';
import { PLAN_NAMES, type PlanName } from '@assay/contracts';
import { withTransaction } from '@assay/db';
import { conflict, notFound } from '@assay/http';
import type { AuthDatabase, OrganizationRow } from '../db/database.js';
import { findOrganizationById, findOrganizationByStripeCustomer, lockOrganization, updateOrganizationBilling } from '../organizations/organizations.repository.js';

type Db = Kysely<AuthDatabase>;

/**
 * Sets an organization's plan inside the caller's transaction; when it
 * changes, emits `billing.subscription.updated` (old and new plan) and tells
 * gateways to drop the organization's cached answers, so the new limits
 * apply to its next call. Returns the organization as it is now.
 */
export async function changePlan(
  trx: Db,
  schema: string,
  org: OrganizationRow,
  plan: PlanName,
  source: 'operator' | 'stripe',
  extra: { stripe_subscription_id?: string } = {},
): Promise<{ org: OrganizationRow; events: NewEvent[] }> {
  if (org.plan === plan) return { org, events: [] };
  const updated = (await updateOrganizationBilling(trx, org.id, { plan }))!;
  const events: NewEvent[] = [
    {
      event: 'billing.subscription.updated',
      organization_id: org.id,
      data: { old_plan: org.plan, new_plan: plan, source, changed_at: new Date().toISOString(), ...extra },
    },
    { event: 'auth.organization.access_changed', organization_id: org.id, data: { reason: 'plan_changed' } },
  ];
  await enqueueEvents(trx, schema, events);
  return { org: updated, events };
}

export const isPlanName = (v: unknown): v is PlanName => typeof v === 'string' && (PLAN_NAMES as readonly string[]).includes(v);

/**
 * The operator route: change the plan and/or link a Stripe customer.
 * @throws AppError 404 for an unknown organization, 409 for a customer linked to another one.
 */
export async function updateBilling(db: Db, schema: string, orgId: string, input: { plan?: PlanName; stripe_customer_id?: string | null }) {
  return withTransaction(db, async (trx) => {
    await lockOrganization(trx, orgId);
    let org = await findOrganizationById(trx, orgId);
    if (!org) throw notFound('Organization');
    if (input.stripe_customer_id !== undefined && input.stripe_customer_id !== org.stripe_customer_id) {
      const taken = input.stripe_customer_id
        ? await findOrganizationByStripeCustomer(trx, input.stripe_customer_id)
        : undefined;
      if (taken) throw conflict('This Stripe customer is linked to another organization', { stripe_customer_id: input.stripe_customer_id });
      org = (await updateOrganizationBilling(trx, orgId, { stripe_customer_id: input.stripe_customer_id }))!;
    }
    if (input.plan) org = (await changePlan(trx, schema, org, input.plan, 'operator')).org;
    return org;
  });
}
