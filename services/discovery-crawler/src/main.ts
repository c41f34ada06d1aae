import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { BrowserPool } from '@assay/browser';
import { PgNotifier } from '@assay/db';
import { EgressPolicy } from '@assay/egress';
import { runService, startMain } from '@assay/runtime';
import { buildApp } from './app.js';
import { TestCaseClient } from './clients/test-case.client.js';
import { loadConfig } from './config.js';
import { Crawler } from './crawler/crawler.js';
import type { DiscoveryDatabase } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { DISCOVERY_CHANNEL, SESSIONS_READY } from './sessions/sessions.repository.js';

startMain(async () => {
  const config = loadConfig(process.env);
  const egress = new EgressPolicy(config.egress);
  let crawler: Crawler | undefined;
  let notifier: PgNotifier | undefined;
  await runService<DiscoveryDatabase>({
    config,
    migrations,
    async build({ database, logger, ready }) {
      notifier = new PgNotifier(database.pool, DISCOVERY_CHANNEL, (err) => logger.warn({ err }, 'discovery LISTEN connection lost; reconnecting'));
      await notifier.start();
      if (config.crawlerEnabled) {
        crawler = new Crawler({
          db: database.db,
          schema: config.schema,
          logger,
          browsers: new BrowserPool(config.chromiumPath, logger, egress),
          sessions: config.sessions,
          pagesInParallel: config.pagesInParallel,
          navigationTimeoutMs: config.navigationTimeoutMs,
          leaseSeconds: config.leaseSeconds,
          exploreBudgetMs: config.exploreBudgetMs,
          settleMs: config.settleMs,
          workerId: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
          // A session started or resumed (by this process or another) is taken at once, not at the next poll.
          onSessionsReady: (wake) => notifier!.on(SESSIONS_READY, wake),
        });
        crawler.start();
      }
      return buildApp({
        db: database.db,
        schema: config.schema,
        logger,
        testCases: new TestCaseClient(config.testCaseUrl, config.internalTokenSecret),
        notifier,
        egress,
        pagesInParallel: config.pagesInParallel,
        internalTokenSecret: config.internalTokenSecret,
        ready,
      });
    },
    async stop() {
      await crawler?.stop();
      await notifier?.stop();
    },
  });
});
