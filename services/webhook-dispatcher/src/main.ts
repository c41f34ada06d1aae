import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Subscription } from '@assay/bus';
import { runService, startMain } from '@assay/runtime';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import type { WebhookDatabase } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { subscribeToEvents } from './dispatch/consumer.js';
import { Dispatcher } from './dispatch/dispatcher.js';
import { SYSTEM_CLOCK } from './shared/clock.js';
import { SecretBox } from './webhooks/secrets.js';

startMain(async () => {
  const config = loadConfig(process.env);
  const secrets = new SecretBox(config.secretKey);
  let dispatcher: Dispatcher | undefined;
  let subscriptions: Subscription[] = [];
  await runService<WebhookDatabase>({
    config,
    migrations,
    async build({ database, bus, logger, ready }) {
      if (config.dispatcherEnabled) {
        dispatcher = new Dispatcher({
          db: database.db,
          secrets,
          logger,
          workerId: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
          concurrency: config.concurrency,
          leaseSeconds: config.leaseSeconds,
          rateLimitsEnabled: config.rateLimitsEnabled,
        });
        dispatcher.start();
      }
      const deliveriesDue = () => dispatcher?.kick();
      subscriptions = await subscribeToEvents({ bus, db: database.db, clock: SYSTEM_CLOCK, logger, onDeliveries: deliveriesDue });
      return buildApp({
        db: database.db,
        logger,
        secrets,
        clock: SYSTEM_CLOCK,
        allowLocalHttp: config.allowLocalHttp,
        deliveriesDue,
        internalTokenSecret: config.internalTokenSecret,
        ready,
      });
    },
    async stop() {
      for (const s of subscriptions) await s.close();
      await dispatcher?.stop();
    },
  });
});
