import { orgPrincipal, serviceRouter, type ServiceRouter, validateBody } from '@assay/http';
import type { AuthContext } from '../context.js';
import { getOrganization, toOrganizationBody } from '../organizations/organizations.service.js';
import { assertSameOriginRefresh, clearRefreshCookie, refreshTokenOf, sessionBody, setRefreshCookie } from './cookie.js';
import { changePassword, listSessionOrganizations, login, refreshSession, signOut, switchOrganization } from './sessions.service.js';

export function authRoutes(ctx: AuthContext): ServiceRouter<'auth'> {
  const router = serviceRouter('auth');

  // The access token in the body (API clients and the console's memory), the refresh token in the cookie only.
  router.post('/api/auth/login', validateBody('LoginRequest'), async (req, res) => {
    const issued = await login(ctx.db, ctx.session, req.body);
    setRefreshCookie(res, issued.refresh);
    res.json(sessionBody(issued));
  });

  // No Assay credential: the refresh cookie is one (the gateway passes that cookie, and only to this route).
  router.post('/api/auth/refresh', async (req, res) => {
    assertSameOriginRefresh(req);
    try {
      const issued = await refreshSession(ctx.db, ctx.schema, ctx.session, refreshTokenOf(req));
      setRefreshCookie(res, issued.refresh);
      res.json(sessionBody(issued));
    } catch (err) {
      // A cookie that no longer signs in is dropped, so the browser stops sending it.
      if (refreshTokenOf(req) !== undefined) clearRefreshCookie(res);
      throw err;
    }
  });

  router.post('/api/auth/logout', validateBody('LogoutRequest'), async (req, res) => {
    const ended = await signOut(ctx.db, ctx.schema, orgPrincipal(res), req.body?.everywhere === true);
    clearRefreshCookie(res);
    res.json(ended);
  });

  router.post('/api/auth/password', validateBody('PasswordChangeRequest'), async (req, res) => {
    const issued = await changePassword(ctx.db, ctx.schema, ctx.session, orgPrincipal(res), req.body);
    setRefreshCookie(res, issued.refresh);
    res.json(sessionBody(issued));
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
