import type { Express } from 'express';
import type { Kysely } from 'kysely';
import { createHttpApp, verifyPrincipalHeader, type ReadinessResult } from '@assay/http';
import type { Logger } from '@assay/logger';
import type { AuthDatabase } from './db/database.js';
import type { AuthContext } from './context.js';
import { ROUTERS } from './routes.js';

export interface AuthAppDeps {
  db: Kysely<AuthDatabase>;
  schema: string;
  logger: Logger;
  internalTokenSecret: string;
  session: { secret: string; ttlSeconds: number; accessTtlSeconds?: number };
  stripeWebhookSecret?: string;
  ready?: () => Promise<Record<string, ReadinessResult>>;
}

/** The auth service's express app; it never listens. */
export function buildApp(deps: AuthAppDeps): Express {
  const ctx: AuthContext = {
    db: deps.db,
    schema: deps.schema,
    session: deps.session,
    logger: deps.logger,
    ...(deps.stripeWebhookSecret ? { stripeWebhookSecret: deps.stripeWebhookSecret } : {}),
  };
  return createHttpApp({
    name: 'auth',
    logger: deps.logger,
    // Stripe's invoice events can carry many lines; its signature covers the raw body.
    bodyLimit: '1mb',
    keepRawBody: true,
    ...(deps.ready ? { ready: deps.ready } : {}),
    mount(app) {
      app.use(verifyPrincipalHeader(deps.internalTokenSecret));
      for (const router of ROUTERS) app.use(router(ctx));
    },
  });
}
