import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Subscription } from '@assay/bus';
import { runService, startMain } from '@assay/runtime';
import { buildApp } from './app.js';
import { DiscoveryClient } from './clients/discovery.client.js';
import { InternalClient } from '@assay/internal-client';
import { RunnerClient } from './clients/runner.client.js';
import { TestCaseClient } from './clients/test-case.client.js';
import { loadConfig } from './config.js';
import type { AnalysisDatabase } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { subscribeToEvents } from './intake/consumer.js';
import { LlmClient } from './llm/llm.client.js';
import { readRelocationModel, useRelocationModel } from './relocation/index.js';
import { ReportScheduler } from './reports/report-scheduler.js';
import { importVerifier, LazyVerifier } from './verify/lazy-verifier.js';
import { AnalysisWorker } from './worker/worker.js';

startMain(async () => {
  const config = loadConfig(process.env);
  // A model fitted on this installation's own sites, checked before anything starts.
  if (config.relocationModelPath) useRelocationModel(readRelocationModel(config.relocationModelPath));
  let worker: AnalysisWorker | undefined;
  let reportScheduler: ReportScheduler | undefined;
  let subscriptions: Subscription[] = [];
  await runService<AnalysisDatabase>({
    config,
    migrations,
    async build({ database, bus, logger, ready }) {
      const internal = new InternalClient({
        caller: 'analysis',
        urls: { 'execution-runner': config.executionRunnerUrl, 'test-case': config.testCaseUrl, ...(config.discoveryCrawlerUrl ? { 'discovery-crawler': config.discoveryCrawlerUrl } : {}) },
        internalTokenSecret: config.internalTokenSecret,
      });
      const runner = new RunnerClient(internal);
      const testCases = new TestCaseClient(internal);
      if (config.workerEnabled) {
        const verifier = new LazyVerifier(importVerifier({ chromiumPath: config.chromiumPath, stepTimeoutMs: config.stepTimeoutMs, navigationTimeoutMs: config.navigationTimeoutMs, logger, egress: config.egress }));
        worker = new AnalysisWorker({
          db: database.db,
          logger,
          runner,
          verifier,
          closeBrowser: () => verifier.close(),
          rerunEnabled: config.rerunEnabled,
          testCases,
          maxRerunsPerExecution: config.maxRerunsPerExecution,
          ...(config.discoveryCrawlerUrl ? { discovery: new DiscoveryClient(internal) } : {}),
          ...(config.llm ? { llm: new LlmClient(config.llm, logger) } : {}),
          concurrency: config.concurrency,
          leaseSeconds: config.leaseSeconds,
          workerId: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
        });
        worker.start();
        if (!config.discoveryCrawlerUrl) logger.info('DISCOVERY_CRAWLER_URL unset: discovery sessions are not enriched');
        logger.info({ llm: config.llm ? config.llm.model : 'off', relocation_model: config.relocationModelPath ?? 'checked in' }, 'analysis worker started');
      }
      const workDue = () => worker?.kick();
      subscriptions = await subscribeToEvents({ bus, db: database.db, onWork: workDue });
      const ctx = { db: database.db, schema: config.schema, logger, runner, testCases, workDue };
      // Every replica runs one: a due schedule is claimed by exactly one.
      reportScheduler = new ReportScheduler(ctx, { intervalMs: config.reportSchedulerIntervalMs });
      reportScheduler.start();
      return buildApp({ ...ctx, internalTokenSecret: config.internalTokenSecret, ready });
    },
    async stop() {
      // Every consumer leaves its group at once (one after another took seconds each on Kafka).
      await Promise.all(subscriptions.map((s) => s.close()));
      await reportScheduler?.stop();
      await worker?.stop();
    },
  });
});
