import { Router } from 'express';
import { orgPrincipal, validateBody } from '@assay/http';
import type { AuthContext } from '../context.js';
import { getOrganization, toOrganizationBody } from '../organizations/organizations.service.js';
import { listSessionOrganizations, login, switchOrganization } from './sessions.service.js';

export function authRoutes(ctx: AuthContext): Router {
  const router = Router();

  router.post('/api/auth/login', validateBody('LoginRequest'), async (req, res) => {
    res.json(await login(ctx.db, ctx.session, req.body));
  });

  router.get('/api/auth/me', async (_req, res) => {
    const p = orgPrincipal(res);
    const org = await getOrganization(ctx.db, p.org_id);
    res.json({ organization: toOrganizationBody(org), principal: { kind: p.kind, sub: p.sub, role: p.role, scopes: p.scopes } });
  });

  router.get('/api/auth/organizations', async (_req, res) => {
    res.json(await listSessionOrganizations(ctx.db, orgPrincipal(res)));
  });

  router.post('/api/auth/switch-organization', validateBody('SwitchOrganizationRequest'), async (req, res) => {
    res.json(await switchOrganization(ctx.db, ctx.session, orgPrincipal(res), req.body.organization_id));
  });

  return router;
}
