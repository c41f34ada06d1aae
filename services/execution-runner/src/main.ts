import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { runService, startMain } from '@assay/runtime';
import { buildApp } from './app.js';
import { TestCaseClient } from './clients/test-case.client.js';
import { DiscoveryClient } from './clients/discovery.client.js';
import { loadConfig } from './config.js';
import type { ExecutionDatabase } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { ExecutionNotifier } from './executions/notifier.js';
import { BrowserPool } from '@assay/browser';
import { EgressPolicy } from '@assay/egress';
import { PhaseProfile } from './runner/profile.js';
import { Runner } from './runner/worker.js';
import { startArtifactJanitor, type ArtifactJanitor } from './artifacts/janitor.js';
import { AuthClient } from './clients/auth.client.js';
import { Scheduler } from './schedules/scheduler.js';
import { RecordingManager } from './recordings/recordings.service.js';
import { SuiteShardRunner } from './suites/shard-runner.js';

startMain(async () => {
  const config = loadConfig(process.env);
  let runner: Runner | undefined;
  let notifier: ExecutionNotifier | undefined;
  let janitor: ArtifactJanitor | undefined;
  let scheduler: Scheduler | undefined;
  let recordings: RecordingManager | undefined;
  let suites: SuiteShardRunner | undefined;
  await runService<ExecutionDatabase>({
    config,
    migrations,
    async build({ database, bus, logger, ready }) {
      notifier = new ExecutionNotifier(database.pool, logger);
      await notifier.start();
      janitor = startArtifactJanitor(database.db, logger);
      const testCases = new TestCaseClient(config.testCaseUrl, config.internalTokenSecret);
      const suiteSettings = { ...config.suites, policy: new EgressPolicy(config.egress) };
      if (config.runnerEnabled) {
        // One Chromium per process: runs and recordings share it (each in contexts of its own).
        const browsers = new BrowserPool(config.chromiumPath, logger, new EgressPolicy(config.egress), config.contextMaxCases > 1 ? { maxCases: config.contextMaxCases } : undefined);
        recordings = new RecordingManager({ browsers, testCases, logger, limits: config.recorder, navigationTimeoutMs: config.navigationTimeoutMs });
        runner = new Runner({
          testCases,
          db: database.db,
          schema: config.schema,
          bus,
          logger,
          browsers,
          concurrency: config.concurrency,
          stepTimeoutMs: config.stepTimeoutMs,
          navigationTimeoutMs: config.navigationTimeoutMs,
          leaseSeconds: config.leaseSeconds,
          publicBaseUrl: config.publicBaseUrl,
          workerId: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
          artifacts: config.artifacts,
          profile: new PhaseProfile(config.profileFile),
        });
        await runner.start();
      }
      if (config.suiteShardsEnabled) {
        suites = new SuiteShardRunner({
          db: database.db,
          schema: config.schema,
          bus,
          logger,
          settings: suiteSettings,
          publicBaseUrl: config.publicBaseUrl,
          workerId: `${hostname()}-${process.pid}-suites`,
          leaseSeconds: config.leaseSeconds,
          artifacts: config.artifacts,
          concurrency: config.suiteShardsPerRunner,
        });
        await suites.start();
      }
      if (config.schedulerEnabled) {
        scheduler = new Scheduler({
          db: database.db,
          schema: config.schema,
          testCases,
          ...(config.authUrl ? { auth: new AuthClient(config.authUrl, config.internalTokenSecret) } : {}),
          logger,
          intervalMs: config.schedulerIntervalMs,
        });
        scheduler.start();
      }
      return buildApp({
        db: database.db,
        schema: config.schema,
        logger,
        testCases,
        ...(config.discoveryUrl ? { discovery: new DiscoveryClient(config.discoveryUrl, config.internalTokenSecret) } : {}),
        notifier,
        publicBaseUrl: config.publicBaseUrl,
        concurrency: config.concurrency,
        artifacts: config.artifacts,
        ...(recordings ? { recordings } : {}),
        suites: suiteSettings,
        internalTokenSecret: config.internalTokenSecret,
        ready,
      });
    },
    // Room for the drain, then for closing the bus and the pool.
    shutdownTimeoutMs: (config.shutdownGraceSeconds + 20) * 1000,
    async stop() {
      await scheduler?.stop();
      await recordings?.closeAll();
      // Suite shards go back to the queue at once (their finished tests kept) for another runner.
      await suites?.drain();
      // Drains: no new work, running executions finish (or go back to the queue after SHUTDOWN_GRACE_SECONDS).
      await runner?.drain(config.shutdownGraceSeconds * 1000);
      janitor?.stop();
      await notifier?.stop();
    },
  });
});
