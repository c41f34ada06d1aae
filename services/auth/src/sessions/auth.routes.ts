import { Router } from 'express';
import { orgPrincipal, validateBody } from '@assay/http';
import type { AuthContext } from '../context.js';
import { getOrganization, toOrganizationBody } from '../organizations/organizations.service.js';
import { login } from './sessions.service.js';

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

  return router;
}
