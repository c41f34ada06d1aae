import { orgPrincipal, serviceRouter, type ServiceRouter, validateBody } from '@assay/http';
import type { AuthContext } from '../context.js';
import { getOrganization } from '../organizations/organizations.service.js';
import { quotaStates } from '../usage/usage.service.js';
import { periodResetsAt, usagePeriod } from '@assay/contracts';
import { setRefreshCookie, sessionBody } from '../sessions/cookie.js';
import { acceptInvitation, addMember, changeMemberRole, removeMember } from './members.service.js';

/** Members and invitations, and the organization's usage. */
export function memberRoutes(ctx: AuthContext): ServiceRouter<'auth'> {
  const router = serviceRouter('auth');

  router.post('/api/organizations/current/members', validateBody('MemberAddRequest'), async (req, res) => {
    res.status(201).json(await addMember(ctx.db, ctx.schema, orgPrincipal(res), req.body));
  });

  router.patch('/api/organizations/current/members/:userId', validateBody('MemberUpdateRequest'), async (req, res) => {
    res.json(await changeMemberRole(ctx.db, ctx.schema, orgPrincipal(res), req.params.userId as string, req.body.role));
  });

  router.delete('/api/organizations/current/members/:userId', async (req, res) => {
    res.json(await removeMember(ctx.db, ctx.schema, orgPrincipal(res), req.params.userId as string));
  });

  // No Assay credential: the invitation token is one (the gateway lets the call through).
  router.post('/api/auth/accept-invitation', validateBody('AcceptInvitationRequest'), async (req, res) => {
    const issued = await acceptInvitation(ctx.db, ctx.session, req.body);
    setRefreshCookie(res, issued.refresh);
    res.json(sessionBody(issued));
  });

  router.get('/api/organizations/current/usage', async (_req, res) => {
    const org = await getOrganization(ctx.db, orgPrincipal(res).org_id);
    const now = new Date();
    const period = usagePeriod(now);
    res.json({
      organization_id: org.id,
      plan: org.plan,
      period,
      period_start: new Date(`${period}-01T00:00:00.000Z`).toISOString(),
      resets_at: periodResetsAt(now).toISOString(),
      quotas: await quotaStates(ctx.db, org.id, org.plan, now),
    });
  });

  return router;
}
