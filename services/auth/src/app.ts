import type { Express } from 'express';
import type { Kysely } from 'kysely';
import { createServiceApp, type ReadinessResult } from '@assay/http';
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
  const serviceDeps = { ...ctx, internalTokenSecret: deps.internalTokenSecret, ...(deps.ready ? { ready: deps.ready } : {}) };
  return createServiceApp<AuthContext>(serviceDeps, {
    name: 'auth',
    // Stripe's invoice events can carry many lines; its signature covers the raw body.
    bodyLimit: '1mb',
    keepRawBody: true,
    routers: ROUTERS,
  });
}
