import type { Subscription } from '@assay/bus';
import { EgressPolicy } from '@assay/egress';
import { runService, startMain } from '@assay/runtime';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import type { WebhookDatabase } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { subscribeToEvents } from './dispatch/consumer.js';
import { Dispatcher } from './dispatch/dispatcher.js';
import { SYSTEM_CLOCK } from './shared/clock.js';
import { AdminMailer } from './notify/mailer.js';
import { SecretBox } from './webhooks/secrets.js';

startMain(async () => {
  const config = loadConfig(process.env);
  const secrets = new SecretBox(config.secretKey);
  const egress = new EgressPolicy(config.egress);
  let dispatcher: Dispatcher | undefined;
  let subscriptions: Subscription[] = [];
  let mailer: AdminMailer | undefined;
  await runService<WebhookDatabase>({
    config,
    migrations,
    async build({ database, bus, logger, ready }) {
      if (config.dispatcherEnabled) {
        mailer = config.smtp && new AdminMailer({ smtpUrl: config.smtp.url, from: config.smtp.from, authUrl: config.smtp.authUrl, internalTokenSecret: config.internalTokenSecret, logger });
        if (!mailer) logger.info('SMTP_URL unset: a disabled webhook is a notification row and a log line, no e-mail');
        const m = mailer;
        dispatcher = new Dispatcher({
          db: database.db,
          secrets,
          logger,
          concurrency: config.concurrency,
          batchSeconds: config.batchSeconds,
          rateLimitsEnabled: config.rateLimitsEnabled,
          egress,
          ...(m ? { onWebhookDisabled: (w) => m.webhookDisabled(w) } : {}),
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
        egress,
        deliveriesDue,
        internalTokenSecret: config.internalTokenSecret,
        ready,
      });
    },
    async stop() {
      // Every consumer leaves its group at once (one after another took seconds each on Kafka).
      await Promise.all(subscriptions.map((s) => s.close()));
      await dispatcher?.stop();
      mailer?.close();
    },
  });
});
