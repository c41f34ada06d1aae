import type { NextFunction, Request, Response } from 'express';
import { forbidden, iso, orgPrincipal, serviceRouter, type ServiceRouter, validateBody } from '@assay/http';
import { hasScope } from '@assay/principal';
import type { AuthContext } from '../context.js';
import type { KeyKind, KeyRow } from '../db/database.js';
import { createKey, listKeys, revokeKeyById } from './keys.service.js';


function toSummary(row: KeyRow) {
  const base = {
    id: row.id,
    name: row.name,
    created_at: row.created_at.toISOString(),
    expires_at: iso(row.expires_at),
    last_used: iso(row.last_used),
    usage_count: Number(row.usage_count),
  };
  return row.kind === 'service_key' ? { ...base, environment: row.environment } : { ...base, scopes: row.scopes };
}

/**
 * Key management is an Admin task: members are refused, and scoped API keys
 * need `keys:manage`, enforced here as well as at the gateway.
 */
function requireKeyManager(_req: Request, res: Response, next: NextFunction): void {
  const p = orgPrincipal(res);
  if (p.role === 'member') return next(forbidden('Managing keys requires the admin or owner role'));
  if (!hasScope(p, 'keys:manage')) return next(forbidden('This key lacks the "keys:manage" scope'));
  next();
}

function keyRouter(ctx: AuthContext, kind: KeyKind, path: '/api/service-keys' | '/api/api-keys', createSchema: string): ServiceRouter<'auth'> {
  const router = serviceRouter('auth');
  router.use(path, requireKeyManager);

  router.post(path, validateBody(createSchema), async (req, res) => {
    const { row, secret } = await createKey(ctx.db, orgPrincipal(res), kind, req.body);
    const { usage_count: _usage, ...summary } = toSummary(row);
    res.status(201).json({ ...summary, key: secret });
  });

  router.get(path, async (_req, res) => {
    const rows = await listKeys(ctx.db, orgPrincipal(res).org_id, kind);
    res.json({ keys: rows.map(toSummary) });
  });

  router.delete(`${path}/:id`, async (req, res) => {
    const row = await revokeKeyById(ctx.db, ctx.schema, orgPrincipal(res).org_id, kind, req.params.id as string);
    res.json({ id: row.id, revoked_at: iso(row.revoked_at) });
  });

  return router;
}

export const serviceKeyRoutes = (ctx: AuthContext) => keyRouter(ctx, 'service_key', '/api/service-keys', 'ServiceKeyCreateRequest');
export const apiKeyRoutes = (ctx: AuthContext) => keyRouter(ctx, 'api_key', '/api/api-keys', 'ApiKeyCreateRequest');
