import { orgPrincipal, parsePagination, serviceRouter, type ServiceRouter, validateBody } from '@assay/http';
import type { AuthContext } from '../context.js';
import { deleteOrganization, getOrganization, listMemberPage, toOrganizationBody, transferOwnership } from './organizations.service.js';

export function organizationRoutes(ctx: AuthContext): ServiceRouter<'auth'> {
  const router = serviceRouter('auth');

  router.get('/api/organizations/current', async (_req, res) => {
    res.json(toOrganizationBody(await getOrganization(ctx.db, orgPrincipal(res).org_id)));
  });

  router.get('/api/organizations/current/members', async (req, res) => {
    const { limit, offset } = parsePagination(req.query as Record<string, unknown>, { defaultLimit: 50, maxLimit: 500 });
    const { rows, total } = await listMemberPage(ctx.db, orgPrincipal(res).org_id, limit, offset);
    res.json({
      data: rows.map((r) => ({ ...r, created_at: r.created_at.toISOString() })),
      pagination: { limit, offset, total },
    });
  });

  router.post('/api/organizations/current/transfer-ownership', validateBody('TransferOwnershipRequest'), async (req, res) => {
    const org = await transferOwnership(ctx.db, orgPrincipal(res), req.body.user_id);
    res.json(toOrganizationBody(org));
  });

  router.delete('/api/organizations/current', async (_req, res) => {
    res.json(toOrganizationBody(await deleteOrganization(ctx.db, ctx.schema, orgPrincipal(res))));
  });

  return router;
}
