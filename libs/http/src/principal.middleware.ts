import type { NextFunction, Request, Response } from 'express';
import { PRINCIPAL_HEADER, verifyPrincipal, hasScope, type Principal } from '@assay/principal';
import { AppError, forbidden } from './errors.js';

/**
 * Verifies `x-assay-principal` on every request and stores the principal in
 * `res.locals.principal`. Services trust nothing else about the caller.
 */
export function verifyPrincipalHeader(secret: string) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      res.locals.principal = await verifyPrincipal(secret, req.header(PRINCIPAL_HEADER));
      next();
    } catch {
      next(new AppError('invalid_api_key', 'Missing or invalid internal principal: call through the gateway'));
    }
  };
}

/** The verified principal of a request on a caller-facing route (never a `service` principal). */
export function orgPrincipal(res: Response): Principal & { org_id: string } {
  const p = res.locals.principal as Principal | undefined;
  if (!p) throw new AppError('invalid_api_key', 'No principal on request');
  if (p.kind === 'service' || p.org_id === null) throw forbidden('This route is for organization credentials');
  return p as Principal & { org_id: string };
}

/** Only `/internal` callers: other services with a `service` principal. */
export function requireServicePrincipal(_req: Request, res: Response, next: NextFunction): void {
  const p = res.locals.principal as Principal | undefined;
  if (!p || p.kind !== 'service') return next(forbidden('Internal route: service principals only'));
  next();
}

/** Refuses principals without `scope` (empty scope list = full access). */
export function requireScope(scope: string) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const p = res.locals.principal as Principal | undefined;
    if (!p || !hasScope(p, scope)) return next(forbidden(`This key lacks the "${scope}" scope`));
    next();
  };
}

/** Refuses principals whose role is not in `roles`. */
export function requireRole(...roles: Principal['role'][]) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const p = res.locals.principal as Principal | undefined;
    if (!p || !roles.includes(p.role)) return next(forbidden(`Requires the ${roles.join(' or ')} role`));
    next();
  };
}
