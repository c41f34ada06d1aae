import type { Kysely } from 'kysely';
import { enqueueEvents, type Bus, type Subscription } from '@assay/bus';
import { TOPICS, isEvent } from '@assay/contracts';
import { withTransaction } from '@assay/db';
import type { Logger } from '@assay/logger';
import type { BrowserPool } from '@assay/browser';
import { StepError } from '@assay/steps';
import type { ExecutionDatabase, ExecutionRow, TestResultRow } from '../db/database.js';
import {
  appendStreamEvent,
  claimExecution,
  currentStatus,
  expiredLeases,
  failAbandoned,
  findResults,
  renewLease,
  requeueAbandoned,
  requeueHeld,
  skipResults,
  updateHeld,
} from '../executions/executions.repository.js';
import type { ArtifactLimits } from '../artifacts/artifacts.repository.js';
import { executionTimeoutEvent, planCompletedEvents, planStartedEvent } from '../execution-events.js';
import { runCaseInBrowser, type CaseDeps } from './case-run.js';
import { PhaseProfile } from './profile.js';
import type { RunControl } from './run-control.js';
import { Semaphore } from './semaphore.js';
import type { TestCaseClient } from '../clients/test-case.client.js';
import { resolveRunVariables } from './run-variables.js';

export interface RunnerOptions {
  db: Kysely<ExecutionDatabase>;
  schema: string;
  bus: Bus;
  logger: Logger;
  browsers: BrowserPool;
  /** Test cases run at once by this process (RUNNER_CONCURRENCY). */
  concurrency: number;
  stepTimeoutMs: number;
  navigationTimeoutMs: number;
  leaseSeconds: number;
  publicBaseUrl: string;
  workerId: string;
  /** How often the status of a running execution is checked for a cancel (ms). */
  cancelPollMs?: number;
  /** Size caps of screenshots and traces. */
  artifacts: ArtifactLimits;
  /** Per-phase timings (RUNNER_PROFILE_FILE); off by default. */
  profile?: PhaseProfile;
  /** Where a run's project variables and secrets come from; absent: runs have their own variables only. */
  testCases?: TestCaseClient;
}

/**
 * A runner worker: takes `execution.requested` commands from the bus, claims
 * the execution under a lease (so several processes never run one twice),
 * and runs its test cases in fresh browser contexts. A reaper puts executions
 * whose worker died back in the queue once, then fails them.
 */
export class Runner {
  private readonly caseSlots: Semaphore;
  private readonly executionSlots: Semaphore;
  private subscription: Subscription | undefined;
  private reaper: NodeJS.Timeout | undefined;
  private readonly active = new Map<string, RunControl>();
  /** The background run of each active execution, so a drain can wait for it. */
  private readonly running = new Map<string, Promise<void>>();
  private stopping = false;
  /** Resolves when a stop begins: messages still waiting for a slot give up and go back to the bus. */
  private stopSignal!: Promise<void>;
  private signalStop: () => void = () => undefined;
  private readonly profile: PhaseProfile;
  /** What each case is run with (see runCaseInBrowser). */
  private readonly caseDeps: CaseDeps;

  constructor(private readonly o: RunnerOptions) {
    this.profile = o.profile ?? new PhaseProfile(undefined);
    this.caseDeps = { ...o, profile: this.profile };
    this.caseSlots = new Semaphore(o.concurrency);
    this.executionSlots = new Semaphore(o.concurrency);
    this.stopSignal = new Promise<void>((resolve) => (this.signalStop = resolve));
  }

  async start(): Promise<void> {
    this.subscription = await this.o.bus.subscribe({
      topic: TOPICS.executionCommands,
      group: 'execution-runner',
      handler: async (event) => {
        if (isEvent(event, 'execution.requested')) await this.take(event.data.execution_id);
      },
    });
    // Launch Chromium now, so the first execution does not wait for it.
    void this.o.browsers.get().catch((err) => this.o.logger.warn({ err }, 'chromium did not start; the first test retries'));
    this.reaper = setInterval(() => void this.reap().catch((err) => this.o.logger.warn({ err }, 'reaper failed')), Math.max(1000, (this.o.leaseSeconds * 1000) / 3));
    this.reaper.unref();
  }

  /** Waits for a free slot, claims the execution, and runs it in the background. */
  private async take(id: string): Promise<void> {
    if (this.stopping) throw new Error('runner is stopping');
    const acquiring = this.executionSlots.acquire();
    const release = await Promise.race([acquiring, this.stopSignal.then(() => undefined)]);
    if (!release || this.stopping) {
      // Stopping: the handler fails, so the bus redelivers the message to another worker.
      void acquiring.then((r) => r());
      throw new Error('runner is stopping');
    }
    let row: ExecutionRow | undefined;
    try {
      row = await claimExecution(this.o.db, id, this.o.workerId, this.o.leaseSeconds);
    } catch (err) {
      release();
      throw err;
    }
    if (!row) return release();
    const running = this.run(row)
      .catch((err) => this.o.logger.error({ err, execution: id }, 'execution crashed'))
      .finally(() => {
        this.running.delete(id);
        release();
      });
    this.running.set(id, running);
  }

  private async run(claimed: ExecutionRow): Promise<void> {
    const { db, logger } = this.o;
    let halt: (err: Error) => void = () => undefined;
    const vars = await resolveRunVariables(claimed, this.o.testCases, logger);
    const ctl: RunControl = { stopped: null, contexts: new Set(), halt: new Promise<never>((_, reject) => (halt = reject)), fingerprints: new Map(), end: (why) => stop(why), idle: [], vars };
    ctl.halt.catch(() => undefined);
    this.active.set(claimed.id, ctl);
    const stop = (why: NonNullable<RunControl['stopped']>) => {
      if (ctl.stopped) return;
      ctl.stopped = why;
      halt(new StepError(why === 'timeout' ? `Execution timed out after ${claimed.timeout_seconds} s` : 'Execution was stopped', 'cancelled'));
      // Closing a context while Playwright creates a page in it can leave that call pending forever: hence `halt`.
      for (const c of ctl.contexts) void c.close().catch(() => undefined);
    };
    const timeout = setTimeout(() => stop('timeout'), claimed.timeout_seconds * 1000);
    let lastRenew = Date.now();
    const watch = setInterval(async () => {
      try {
        if (Date.now() - lastRenew > (this.o.leaseSeconds * 1000) / 3) {
          lastRenew = Date.now();
          const status = await renewLease(db, claimed.id, this.o.workerId, this.o.leaseSeconds);
          if (!status) stop((await currentStatus(db, claimed.id)) === 'cancelled' ? 'cancelled' : 'lost');
        } else if ((await currentStatus(db, claimed.id)) === 'cancelled') stop('cancelled');
      } catch (err) {
        logger.warn({ err }, 'lease check failed');
      }
    }, this.o.cancelPollMs ?? 500);

    try {
      const startedAt = new Date();
      const results = await findResults(db, claimed.id);
      const execution = await withTransaction(db, async (trx) => {
        const row = await updateHeld(trx, claimed.id, this.o.workerId, { status: 'running', started_at: startedAt });
        if (!row) return undefined;
        await appendStreamEvent(trx, row.id, 'status', { status: 'running', started_at: startedAt.toISOString(), total: results.length });
        await enqueueEvents(trx, this.o.schema, [planStartedEvent(row, results, startedAt)]);
        return row;
      });
      if (!execution) return;

      await Promise.all(results.map((r) => this.runCase(execution, r, ctl)));
      logger.debug({ execution: execution.id, stopped: ctl.stopped }, 'all cases done');
      await this.finish(execution, ctl);
      logger.debug({ execution: execution.id }, 'execution finished');
      await this.profile.flush().catch((err) => logger.warn({ err }, 'could not write the profile'));
    } finally {
      clearTimeout(timeout);
      clearInterval(watch);
      this.active.delete(claimed.id);
      for (const c of ctl.contexts) await c.close().catch(() => undefined);
    }
  }

  private async runCase(execution: ExecutionRow, result: TestResultRow, ctl: RunControl): Promise<void> {
    const release = await this.caseSlots.acquire();
    try {
      if (ctl.stopped) return;
      await runCaseInBrowser(this.caseDeps, execution, result, ctl);
      this.o.logger.debug({ execution: execution.id, test: result.name }, 'case done');
    } finally {
      release();
    }
  }

  /** Marks unrun cases skipped and ends the execution: completed, or failed on timeout. */
  private async finish(execution: ExecutionRow, ctl: RunControl): Promise<void> {
    const { db } = this.o;
    if (ctl.stopped === 'cancelled' || ctl.stopped === 'lost') return;
    await withTransaction(db, async (trx) => {
      await skipResults(trx, execution.id, ['pending', 'running']);
      const results = await findResults(trx, execution.id);
      const skipped = results.filter((r) => r.status === 'skipped').length;
      const timedOut = ctl.stopped === 'timeout';
      const row = await updateHeld(trx, execution.id, this.o.workerId, {
        status: timedOut ? 'failed' : 'completed',
        skipped_tests: skipped,
        completed_at: new Date(),
        lease_owner: null,
        lease_expires_at: null,
        ...(timedOut ? { error: `Timed out after ${execution.timeout_seconds} s` } : {}),
      });
      if (!row) return;
      const events = planCompletedEvents(row, results, this.o.publicBaseUrl);
      if (timedOut) events.unshift(executionTimeoutEvent(row, results, skipped));
      await enqueueEvents(trx, this.o.schema, events);
      await appendStreamEvent(trx, row.id, 'completed', {
        status: row.status,
        passed_tests: row.passed_tests,
        failed_tests: row.failed_tests,
        skipped_tests: skipped,
        total_tests: row.total_tests,
        ...(row.error ? { error: row.error } : {}),
      });
    });
  }

  /** Executions whose worker stopped renewing: back to the queue once, then failed. */
  async reap(): Promise<void> {
    const { db } = this.o;
    for (const row of await expiredLeases(db)) {
      await withTransaction(db, async (trx) => {
        if (row.attempts < 2) {
          const requeued = await requeueAbandoned(trx, row.id);
          if (!requeued) return;
          await appendStreamEvent(trx, row.id, 'status', { status: 'queued', reason: 'the worker running it stopped; retrying once' });
          await enqueueEvents(trx, this.o.schema, [
            { event: 'execution.requested', organization_id: row.org_id, project_id: row.project_id, key: row.id, data: { execution_id: row.id, attempt: row.attempts + 1 } },
          ]);
        } else {
          const failed = await failAbandoned(trx, row.id, 'The worker running this execution stopped twice (lease expired)');
          if (!failed) return;
          await appendStreamEvent(trx, row.id, 'completed', { status: 'failed', error: failed.error });
          await enqueueEvents(trx, this.o.schema, planCompletedEvents(failed, await findResults(trx, row.id), this.o.publicBaseUrl));
        }
      });
    }
  }

  /**
   * Stops on SIGTERM without losing work: takes no new execution (messages
   * waiting for a slot go back to the bus), lets the running ones finish for up
   * to `graceMs`, then puts those still running back in the queue (they start
   * over on another worker; the attempt does not count as a crash) and closes
   * the browser.
   */
  async drain(graceMs: number): Promise<void> {
    await this.stopTaking();
    const ids = [...this.running.keys()];
    if (ids.length > 0) {
      this.o.logger.info({ executions: ids, grace_seconds: graceMs / 1000 }, 'draining: waiting for running executions');
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), graceMs)));
      const outcome = await Promise.race([Promise.allSettled([...this.running.values()]).then(() => 'drained' as const), graceOver]);
      clearTimeout(timer);
      if (outcome === 'timeout') await this.requeueRunning();
      else this.o.logger.info({ executions: ids }, 'drained: every running execution finished');
    }
    await this.o.browsers.close();
  }

  /** Stops at once, as a killed process would: executions still running are left to their leases (another worker retries them). */
  async stop(): Promise<void> {
    await this.stopTaking();
    for (const ctl of this.active.values()) ctl.end('lost');
    await this.o.browsers.close();
  }

  private async stopTaking(): Promise<void> {
    this.stopping = true;
    this.signalStop();
    if (this.reaper) clearInterval(this.reaper);
    await this.subscription?.close().catch((err) => this.o.logger.warn({ err }, 'could not close the execution subscription'));
  }

  /** Past the grace period: each execution still running goes back to the queue, then its run is halted. */
  private async requeueRunning(): Promise<void> {
    const { db, logger } = this.o;
    for (const [id, ctl] of this.active) {
      const row = await withTransaction(db, async (trx) => {
        const requeued = await requeueHeld(trx, id, this.o.workerId);
        if (!requeued) return undefined;
        await appendStreamEvent(trx, id, 'status', { status: 'queued', reason: 'the worker running it shut down; requeued' });
        await enqueueEvents(trx, this.o.schema, [
          { event: 'execution.requested', organization_id: requeued.org_id, project_id: requeued.project_id, key: id, data: { execution_id: id, attempt: requeued.attempts + 1 } },
        ]);
        return requeued;
      }).catch((err) => {
        logger.error({ err, execution: id }, 'could not requeue; its lease expiry will');
        return undefined;
      });
      if (row) logger.warn({ execution: id }, 'shutdown grace period over: execution requeued');
      // The lease is no longer ours, so the halted run writes nothing more.
      ctl.end('lost');
    }
    await Promise.allSettled([...this.running.values()]);
  }
}
