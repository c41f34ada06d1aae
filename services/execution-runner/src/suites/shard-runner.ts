import type { Kysely } from 'kysely';
import { enqueueEvents, type Bus, type Subscription } from '@assay/bus';
import { TOPICS, isEvent } from '@assay/contracts';
import { withTransaction } from '@assay/db';
import type { Logger } from '@assay/logger';
import { AppError } from '@assay/http';
import type { ExecutionDatabase, ExecutionRow, SuiteTest } from '../db/database.js';
import { appendStreamEvent, currentStatus, findExecutionById } from '../executions/executions.repository.js';
import { planStartedEvent } from '../execution-events.js';
import type { ArtifactLimits } from '../artifacts/artifacts.repository.js';
import { Semaphore } from '../runner/semaphore.js';
import { unpackArchive } from './archive.js';
import { WRAPPER_CONFIG, wrapperConfig, findConfigFile } from './playwright-config.js';
import { SuiteBox, type BoxOutcome } from './sandbox.js';
import { SuiteResultWriter } from './suite-results.js';
import { claimShard, closeCancelledShards, expiredShards, finishShard, markSuiteRunning, renewShard, requeueShard, suiteResults, takeUnits } from './suite-runs.repository.js';
import { finishSuiteExecution } from './suite-finish.js';
import { claimListing, expiredListings, failListing, finishListing, findVersionArchive, releaseListing } from './suites.repository.js';
import { listRequested, listTests } from './suites.service.js';
import type { SuiteSettings } from './suite-settings.js';

export interface ShardRunnerOptions {
  db: Kysely<ExecutionDatabase>;
  schema: string;
  bus: Bus;
  logger: Logger;
  settings: SuiteSettings;
  publicBaseUrl: string;
  workerId: string;
  leaseSeconds: number;
  artifacts: ArtifactLimits;
  /** Shards this process runs at once (SUITE_SHARDS_PER_RUNNER). */
  concurrency: number;
  /** How often a running shard checks for a cancel (ms). */
  pollMs?: number;
}

/** The error a shard of a cancelled run is closed with. */
const CANCELLED = 'The run was cancelled';

/** A shard's stop: resolves when its execution is cancelled or its lease is lost. */
interface ShardControl {
  stopped: 'cancelled' | 'lost' | null;
  stop: Promise<void>;
}

/**
 * Runs the shards of suite executions: takes `suite.shard.requested`
 * commands (any replica may take any shard), claims the shard under a lease,
 * unpacks the suite's version into a box and runs Playwright Test there,
 * either on units handed out from the run's queue (longest expected first)
 * until it is empty, or on Playwright's own `--shard` slice. The shard that
 * ends last ends the execution.
 */
export class SuiteShardRunner {
  private subscription: Subscription | undefined;
  private readonly slots: Semaphore;
  private reaper: NodeJS.Timeout | undefined;
  private readonly running = new Map<string, Promise<void>>();
  /** The shards this process holds, by `<execution>/<shard>`: what a drain hands back. */
  private readonly held = new Map<string, { executionId: string; shard: number; halt: () => void }>();
  private stopping = false;
  private signalStop: () => void = () => undefined;
  private readonly stopSignal = new Promise<void>((resolve) => (this.signalStop = resolve));

  constructor(private readonly o: ShardRunnerOptions) {
    this.slots = new Semaphore(o.concurrency);
  }

  async start(): Promise<void> {
    this.subscription = await this.o.bus.subscribe({
      topic: TOPICS.executionCommands,
      group: 'execution-runner-suites',
      events: ['suite.shard.requested', 'suite.list.requested'],
      concurrency: this.o.concurrency,
      handler: async (event) => {
        if (isEvent(event, 'suite.shard.requested')) await this.take(event.data.execution_id, event.data.shard);
        if (isEvent(event, 'suite.list.requested')) await this.list(event.data.suite_version_id);
      },
    });
    this.reaper = setInterval(() => void this.reap().catch((err) => this.o.logger.warn({ err }, 'suite reaper failed')), Math.max(1000, (this.o.leaseSeconds * 1000) / 3));
    this.reaper.unref();
  }

  /** Stops taking shards and waits for the running ones (their boxes end with them). */
  async stop(): Promise<void> {
    await this.stopTaking();
    await Promise.allSettled([...this.running.values()]);
  }

  /**
   * The SIGTERM path: takes no new shard (a command waiting for a free slot
   * goes back to the bus for another runner), hands every shard it holds back
   * to the queue at once with a `suite.shard.requested` for another runner
   * (its finished tests are kept, the others start over there; the attempt
   * does not count), then stops their boxes.
   */
  async drain(): Promise<void> {
    await this.stopTaking();
    const { db, logger } = this.o;
    for (const h of [...this.held.values()]) {
      const handed = await withTransaction(db, async (trx) => {
        if (!(await requeueShard(trx, h.executionId, h.shard, this.o.workerId))) return false;
        const execution = (await findExecutionById(trx, h.executionId))!;
        const row = await trx.selectFrom('suite_shards').select('attempts').where('execution_id', '=', h.executionId).where('shard', '=', h.shard).executeTakeFirstOrThrow();
        await enqueueEvents(trx, this.o.schema, [shardRequested(execution, h.shard, row.attempts + 1)]);
        return true;
      }).catch((err) => {
        logger.error({ err, execution: h.executionId, shard: h.shard }, 'could not hand a suite shard back; its lease expiry will');
        return false;
      });
      if (handed) logger.info({ execution: h.executionId, shard: h.shard }, 'draining: suite shard handed back to the queue');
      // Handed back or not, this process is going: the lease is no longer (or soon not) ours, so the box writes nothing more.
      h.halt();
    }
    await Promise.allSettled([...this.running.values()]);
  }

  private async stopTaking(): Promise<void> {
    this.stopping = true;
    this.signalStop();
    if (this.reaper) clearInterval(this.reaper);
    await this.subscription?.close().catch(() => undefined);
  }

  private async take(executionId: string, shard: number): Promise<void> {
    if (this.stopping) throw new Error('runner is stopping');
    const acquiring = this.slots.acquire();
    const release = await Promise.race([acquiring, this.stopSignal.then(() => undefined)]);
    if (!release || this.stopping) {
      // Stopping: the handler fails, so the bus hands the command to another runner.
      void acquiring.then((r) => r());
      throw new Error('runner is stopping');
    }
    const claimed = await claimShard(this.o.db, executionId, shard, this.o.workerId, this.o.leaseSeconds).catch((err) => {
      release();
      throw err;
    });
    if (!claimed) return release();
    const key = `${executionId}/${shard}`;
    const run = this.runShard(executionId, shard)
      .catch((err) => this.o.logger.error({ err, execution: executionId, shard }, 'suite shard crashed'))
      .finally(() => {
        this.running.delete(key);
        release();
      });
    this.running.set(key, run);
  }

  /**
   * Lists the tests of a version stored as `listing` (its upload reached a
   * runner that cannot make the box) in a box here: `ready` with its tests,
   * or `invalid` with Playwright's (or the box's) reason. Held under a lease
   * as long as the listing's own bound; the command is done when the listing is.
   */
  private async list(versionId: string): Promise<void> {
    if (this.stopping) throw new Error('runner is stopping');
    const { db, logger, settings, workerId } = this.o;
    const v = await claimListing(db, versionId, workerId, settings.listTimeoutMs + this.o.leaseSeconds * 1000);
    if (!v) return;
    const key = `list/${versionId}`;
    const work = (async () => {
      let outcome: { tests: SuiteTest[]; fully_parallel: boolean } | { error: string };
      try {
        const files = unpackArchive(v.archive, settings.archive).files;
        const listed = await listTests(logger, settings, `${v.org_id}/${v.project_id}/${v.suite_name}`, files, v.config_file ?? undefined, v.projects);
        outcome = { tests: listed.tests, fully_parallel: listed.fullyParallel };
      } catch (err) {
        // A suite Playwright cannot list (400 at upload where listed there), or no box here (501 there).
        if (!(err instanceof AppError)) logger.warn({ err, version: versionId }, 'listing a suite version failed');
        outcome = { error: err instanceof Error ? err.message : String(err) };
      }
      if (await finishListing(db, versionId, workerId, outcome)) logger.info({ version: versionId, status: 'error' in outcome ? 'invalid' : 'ready' }, 'suite version listed');
    })().finally(() => this.running.delete(key));
    this.running.set(key, work);
    await work;
  }

  /** Watches the execution's status and the shard's lease while it runs. */
  private watch(executionId: string, shard: number): { ctl: ShardControl; end: () => void } {
    let resolve: () => void = () => undefined;
    const ctl: ShardControl = { stopped: null, stop: new Promise<void>((r) => (resolve = r)) };
    const key = `${executionId}/${shard}`;
    this.held.set(key, {
      executionId,
      shard,
      halt: () => {
        ctl.stopped ??= 'lost';
        resolve();
      },
    });
    let lastRenew = Date.now();
    const timer = setInterval(async () => {
      try {
        if ((await currentStatus(this.o.db, executionId)) === 'cancelled') {
          ctl.stopped = 'cancelled';
          return resolve();
        }
        if (Date.now() - lastRenew > (this.o.leaseSeconds * 1000) / 3) {
          lastRenew = Date.now();
          if (!(await renewShard(this.o.db, executionId, shard, this.o.workerId, this.o.leaseSeconds))) {
            ctl.stopped = 'lost';
            resolve();
          }
        }
      } catch (err) {
        this.o.logger.warn({ err }, 'suite shard check failed');
      }
    }, this.o.pollMs ?? 500);
    return {
      ctl,
      end: () => {
        clearInterval(timer);
        this.held.delete(key);
      },
    };
  }

  private async runShard(executionId: string, shard: number): Promise<void> {
    const { db, logger } = this.o;
    // Watched (and held, for a drain) from the claim on.
    const { ctl, end } = this.watch(executionId, shard);
    let box: SuiteBox | undefined;
    let error: string | null = null;
    try {
      const execution = (await findExecutionById(db, executionId))!;
      const options = execution.suite_options!;
      await this.markRunning(execution);
      if (ctl.stopped) return;
      const version = await findVersionArchive(db, execution.suite_version_id!);
      if (!version) throw new Error('the suite version is gone');
      const files = unpackArchive(version.archive, this.o.settings.archive).files;
      box = await SuiteBox.create(this.o.settings.box, this.o.settings.policy, logger, files);
      await box.write(
        WRAPPER_CONFIG,
        wrapperConfig(findConfigFile(files), { baseURL: execution.base_url, chromiumPath: this.o.settings.box.chromiumPath, projects: options.projects, retries: options.retries, workers: this.o.settings.workers, trace: execution.trace === 'off' ? 'off' : execution.trace === 'retain-on-failure' ? 'retain-on-failure' : 'on' }),
      );
      const writer = new SuiteResultWriter(
        { db, schema: this.o.schema, logger, publicBaseUrl: this.o.publicBaseUrl, artifacts: this.o.artifacts, execution, shard, owner: this.o.workerId, boxDir: box.dir, boxUid: box.uid },
        () => suiteResults(db, executionId),
      );
      error = options.split === 'shard' ? await this.runSlice(box, writer, execution, shard, ctl) : await this.runQueue(box, writer, execution, shard, ctl);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
      logger.warn({ err, execution: executionId, shard }, 'suite shard failed');
    } finally {
      end();
      await box?.destroy();
    }
    // A cancelled run's shard is closed (the run's status is the cancel's, so nothing finishes the run); a lost one is another's now.
    if (ctl.stopped === 'cancelled') return void (await finishShard(db, executionId, shard, this.o.workerId, 'done', CANCELLED));
    if (ctl.stopped) return;
    const last = await finishShard(db, executionId, shard, this.o.workerId, error ? 'failed' : 'done', error);
    if (last) await finishSuiteExecution(db, this.o.schema, this.o.publicBaseUrl, executionId);
  }

  /** The first shard to start moves the run to `running` and sends `test.plan.started`. */
  private async markRunning(execution: ExecutionRow): Promise<void> {
    const startedAt = new Date();
    await withTransaction(this.o.db, async (trx) => {
      const row = await markSuiteRunning(trx, execution.id, startedAt);
      if (!row) return;
      const results = await suiteResults(trx, execution.id);
      await appendStreamEvent(trx, row.id, 'status', { status: 'running', started_at: startedAt.toISOString(), total: results.length });
      await enqueueEvents(trx, this.o.schema, [planStartedEvent(row, results, startedAt)]);
    });
  }

  private remainingMs(execution: ExecutionRow): number {
    const started = execution.started_at?.getTime() ?? Date.now();
    return Math.max(1000, started + execution.timeout_seconds * 1000 - Date.now());
  }

  /** Runs in the box and writes its events in order; the box's problem when it ran no test. */
  private async runBox(box: SuiteBox, writer: SuiteResultWriter, execution: ExecutionRow, args: string[], ctl: ShardControl): Promise<string | null> {
    let chain = Promise.resolve();
    const errors: string[] = [];
    const before = writer.finished;
    const outcome: BoxOutcome = await box.run({
      args: ['--config', WRAPPER_CONFIG, ...args],
      timeoutMs: this.remainingMs((await findExecutionById(this.o.db, execution.id)) ?? execution),
      stop: ctl.stop,
      onEvent: (e) => {
        if (e.type === 'error') errors.push(String(e.message));
        chain = chain.then(() => writer.handle(e)).catch((err) => this.o.logger.warn({ err, execution: execution.id }, 'could not write a suite result'));
      },
    });
    await chain;
    if (outcome.timedOut) return `Timed out after ${execution.timeout_seconds} s`;
    if (errors.length && writer.finished === before) return errors.join('\n').slice(0, 4000);
    if (outcome.exitCode !== 0 && outcome.exitCode !== 1 && writer.finished === before && !ctl.stopped) return `Playwright Test exited with ${outcome.exitCode}: ${outcome.output.trim().split('\n').slice(-10).join('\n').slice(0, 4000)}`;
    return null;
  }

  private async runQueue(box: SuiteBox, writer: SuiteResultWriter, execution: ExecutionRow, shard: number, ctl: ShardControl): Promise<string | null> {
    for (let batch = 1; !ctl.stopped; batch++) {
      const units = await takeUnits(this.o.db, execution.id, shard, this.o.workerId, execution.suite_options!.shards, this.o.settings.batchMinMs);
      if (units.length === 0) return null;
      const list = await box.write(`.assay-tests-${batch}.txt`, `${units.flatMap((u) => u.lines).join('\n')}\n`);
      const error = await this.runBox(box, writer, execution, ['--test-list', list], ctl);
      if (error) return error;
    }
    return null;
  }

  private async runSlice(box: SuiteBox, writer: SuiteResultWriter, execution: ExecutionRow, shard: number, ctl: ShardControl): Promise<string | null> {
    const o = execution.suite_options!;
    return this.runBox(box, writer, execution, [`--shard=${shard + 1}/${o.shards}`, ...(o.grep ? ['--grep', o.grep] : [])], ctl);
  }

  /** Shards whose worker died: back to the queue once (their unfinished units with them), then failed; listings likewise. */
  async reap(): Promise<void> {
    const { db } = this.o;
    // Shards of a cancelled run that no live worker holds: closed, never handed out again.
    await closeCancelledShards(db, CANCELLED);
    for (const v of await expiredListings(db)) {
      if (v.attempts < 2) {
        const suite = await db.selectFrom('suites').select('project_id').where('id', '=', v.suite_id).executeTakeFirst();
        if (!suite) continue;
        await withTransaction(db, async (trx) => {
          if (!(await releaseListing(trx, v.id))) return;
          await enqueueEvents(trx, this.o.schema, [listRequested(v.org_id, suite.project_id, v.id, v.attempts + 1)]);
        });
      } else {
        await failListing(db, v.id, 'The worker listing this version stopped twice (lease expired)');
      }
    }
    for (const s of await expiredShards(db)) {
      if (s.attempts < 2) {
        const execution = await findExecutionById(db, s.execution_id);
        if (!execution) continue;
        await withTransaction(db, async (trx) => {
          if (!(await requeueShard(trx, s.execution_id, s.shard))) return;
          await enqueueEvents(trx, this.o.schema, [shardRequested(execution, s.shard, s.attempts + 1)]);
        });
      } else {
        await db.updateTable('suite_shards').set({ lease_owner: this.o.workerId }).where('execution_id', '=', s.execution_id).where('shard', '=', s.shard).where('status', '=', 'running').execute();
        const last = await finishShard(db, s.execution_id, s.shard, this.o.workerId, 'failed', 'The worker running this shard stopped twice (lease expired)');
        if (last) await finishSuiteExecution(db, this.o.schema, this.o.publicBaseUrl, s.execution_id);
      }
    }
  }
}

function shardRequested(execution: ExecutionRow, shard: number, attempt: number) {
  return { event: 'suite.shard.requested' as const, organization_id: execution.org_id, project_id: execution.project_id, key: execution.id, data: { execution_id: execution.id, shard, attempt } };
}
