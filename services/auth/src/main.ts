import type { Subscription } from '@assay/bus';
import { runService, startMain } from '@assay/runtime';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import type { AuthDatabase } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { subscribeMetering } from './usage/usage.consumer.js';

startMain(async () => {
  const config = loadConfig(process.env);
  let metering: Subscription[] = [];
  await runService<AuthDatabase>({
    config,
    migrations,
    build: async ({ database, bus, logger, ready }) => {
      // Usage is metered from the services' own events (executions, browser time, pages crawled).
      metering = await subscribeMetering({ bus, db: database.db, schema: config.schema, logger });
      return buildApp({
        db: database.db,
        schema: config.schema,
        logger,
        internalTokenSecret: config.internalTokenSecret,
        session: { secret: config.sessionTokenSecret, ttlSeconds: config.sessionTtlSeconds, accessTtlSeconds: config.accessTokenTtlSeconds },
        ...(config.stripeWebhookSecret ? { stripeWebhookSecret: config.stripeWebhookSecret } : {}),
        ready,
      });
    },
    async stop() {
      for (const s of metering) await s.close().catch(() => undefined);
    },
  });
});
