import { isUuid, notFound, requireServicePrincipal, serviceRouter, type ServiceRouter, validateBody } from '@assay/http';
import type { AuthContext } from '../context.js';
import { recordKeyUsage } from '../keys/keys.service.js';
import {
  changeOrganizationStatus,
  createOrganizationWithOwner,
  findOrganizationOr404,
  organizationAdministrators,
  toOrganizationBody,
} from '../organizations/organizations.service.js';
import { authenticate } from './authenticate.service.js';
import { bootstrapDeployment } from './bootstrap.service.js';
import { updateBilling } from '../billing/billing.service.js';
import { exceededQuotas } from '../usage/usage.service.js';
import { planLimits } from '@assay/contracts';


/** Routes for other services and operators; only `service` principals reach them. */
export function internalRoutes(ctx: AuthContext): ServiceRouter<'auth'> {
  const router = serviceRouter('auth');
  router.use('/internal', requireServicePrincipal);

  // The gateway resolves a credential; it caches the answer until `valid_until` or a revocation event.
  router.post('/internal/authenticate', validateBody('AuthenticateRequest'), async (req, res) => {
    res.json(await authenticate(ctx.db, ctx.session, req.body.credential));
  });

  // Gateways count calls per key and report them in batches.
  router.post('/internal/usage', validateBody('UsageReport'), async (req, res) => {
    await recordKeyUsage(ctx.db, req.body.usage);
    res.status(204).end();
  });

  router.post('/internal/organizations', validateBody('InternalOrganizationCreateRequest'), async (req, res) => {
    const { org, user } = await createOrganizationWithOwner(ctx.db, ctx.schema, req.body);
    res.status(201).json({ organization: toOrganizationBody(org), owner: { id: user.id, email: user.email, name: user.name } });
  });

  router.post('/internal/organizations/:id/status', validateBody('OrganizationStatusRequest'), async (req, res) => {
    const id = req.params.id as string;
    if (!isUuid(id)) return void res.status(404).json({ error: 'not_found', message: 'Organization not found' });
    res.json(toOrganizationBody(await changeOrganizationStatus(ctx.db, ctx.schema, id, req.body.status)));
  });

  // The operator's plan route: change the plan (billing.subscription.updated) and/or link a Stripe customer.
  router.patch('/internal/organizations/:id/billing', validateBody('OrganizationBillingRequest'), async (req, res) => {
    const id = req.params.id as string;
    if (!isUuid(id)) throw notFound('Organization');
    const org = await updateBilling(ctx.db, ctx.schema, id, req.body);
    res.json({ ...toOrganizationBody(org), stripe_customer_id: org.stripe_customer_id });
  });

  // What an organization may start now: its plan's API access and the quotas it used up (the scheduler asks before each run).
  router.get('/internal/organizations/:id/entitlements', async (req, res) => {
    const org = await findOrganizationOr404(ctx.db, req.params.id);
    res.json({
      organization_id: org.id,
      plan: org.plan,
      status: org.status,
      api_access: planLimits(org.plan).apiAccess,
      quotas_exceeded: await exceededQuotas(ctx.db, org.id, org.plan),
    });
  });

  // Who to tell about an organization's problems (the webhook-dispatcher e-mails them when it disables a webhook).
  router.get('/internal/organizations/:id/administrators', async (req, res) => {
    res.json({ data: await organizationAdministrators(ctx.db, req.params.id) });
  });

  // First start of a deployment: one organization, its owner and a dev service key. Idempotent.
  router.post('/internal/bootstrap', validateBody('BootstrapRequest'), async (req, res) => {
    const result = await bootstrapDeployment(ctx.db, ctx.schema, req.body);
    res.status(result.created ? 201 : 200).json(result);
  });

  return router;
}
