import type { Express } from 'express';
import type { Kysely } from 'kysely';
import { createHttpApp, verifyPrincipalHeader, type ReadinessResult } from '@assay/http';
import type { Logger } from '@assay/logger';
import type { TestCaseContext } from './context.js';
import type { TestCaseDatabase } from './db/database.js';
import { ROUTERS } from './routes.js';
import { SecretBox } from './secret-box.js';

export interface TestCaseAppDeps {
  db: Kysely<TestCaseDatabase>;
  schema: string;
  logger: Logger;
  internalTokenSecret: string;
  /** Key material of secret variables (SECRETS_KEY); INTERNAL_TOKEN_SECRET when absent (a key of its own is derived from it). */
  secretsKey?: string | undefined;
  ready?: () => Promise<Record<string, ReadinessResult>>;
}

/** The test-case service's express app; it never listens. */
export function buildApp(deps: TestCaseAppDeps): Express {
  const ctx: TestCaseContext = { db: deps.db, schema: deps.schema, logger: deps.logger, secrets: new SecretBox(deps.secretsKey ?? deps.internalTokenSecret) };
  return createHttpApp({
    name: 'test-case',
    logger: deps.logger,
    // Test cases carry up to 200 steps; a bulk delete up to 1,000 ids.
    bodyLimit: '2mb',
    extraContentTypes: ['multipart/form-data'],
    ...(deps.ready ? { ready: deps.ready } : {}),
    mount(app) {
      app.use(verifyPrincipalHeader(deps.internalTokenSecret));
      for (const router of ROUTERS) app.use(router(ctx));
    },
  });
}
