import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { Kysely } from 'kysely';
import { enqueueEvents, outboxBatch, type Bus, type Subscription } from '@assay/bus';
import { TOPICS, isEvent } from '@assay/contracts';
import { withTransaction } from '@assay/db';
import { isUuid } from '@assay/http';
import type { Logger } from '@assay/logger';
import type { ExecutionDatabase, ExecutionRow, StepOutcome, TestResultRow } from '../db/database.js';
import {
  appendStreamEvent,
  finishCaseIfHeld,
  startCaseIfHeld,
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
import { VIEWPORT, type BrowserPool, type FreshPage } from '@assay/browser';
import { ArtifactRefusedError, findUpload, storeArtifact, type ArtifactLimits } from '../artifacts/artifacts.repository.js';
import { BlockedRequestLog } from './blocked-requests.js';
import { artifactUrl, visualBody, caseFinishedEvents, caseStartedEvent, planCompletedEvents, planStartedEvent } from '../execution-events.js';
import { InOrder } from './in-order.js';
import { PhaseProfile } from './profile.js';
import { TraceSteps } from './trace-steps.js';
import { Semaphore } from './semaphore.js';
import { captureFailureEvidence, runStep, StepError, stepName, substitute, type ElementFingerprint, type ScreenshotStore, type Step, type VisualOutcome } from '@assay/steps';
import { findBaselineImage, insertFirstBaseline } from '../screenshots/baselines.repository.js';
import type { TestCaseClient } from '../clients/test-case.client.js';
import { maskTrace, resolveRunVariables, type RunVariables } from './run-variables.js';

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

const MAX_HTML = 200_000;

interface RunControl {
  stopped: 'cancelled' | 'timeout' | 'lost' | null;
  contexts: Set<BrowserContext>;
  /** Rejects when the execution stops: browser calls race it, so none can outlive a stop. */
  halt: Promise<never>;
  /** Element fingerprints taken in this execution, shared by its cases (see StepContext). */
  fingerprints: Map<string, ElementFingerprint>;
  /** Stops the execution: halts its browser calls and closes its contexts. */
  end: (why: 'cancelled' | 'timeout' | 'lost') => void;
  /** Contexts of this execution's finished cases, reset for its next ones (BrowserPool.recycle); never another run's. */
  idle: FreshPage[];
  /** The run's variables with the project's and its secrets; the masker of those secrets. */
  vars: RunVariables;
}

/** The failing step's selector with its variables filled in, when it has one that resolves. */
function stepSelector(step: Step, variables: Record<string, string>): string | undefined {
  try {
    return step.selector === undefined ? undefined : substitute(step.selector, variables);
  } catch {
    return undefined;
  }
}

/** Diagnostics as events carry them: the candidates (hundreds of fingerprints) stay in the stored result. */
function eventDiagnostics(diagnostics: Record<string, unknown>): Record<string, unknown> {
  const { candidates, ...rest } = diagnostics;
  return Array.isArray(candidates) ? { ...rest, candidates_captured: candidates.length } : rest;
}

/** `p`, unless the execution stops first. */
const unlessHalted = <T>(ctl: RunControl, p: Promise<T>): Promise<T> => Promise.race([p, ctl.halt]);

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

  constructor(private readonly o: RunnerOptions) {
    this.profile = o.profile ?? new PhaseProfile(undefined);
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
      await this.runCaseInBrowser(execution, result, ctl);
      this.o.logger.debug({ execution: execution.id, test: result.name }, 'case done');
    } finally {
      release();
    }
  }

  private async runCaseInBrowser(execution: ExecutionRow, result: TestResultRow, ctl: RunControl): Promise<void> {
    const { db, publicBaseUrl } = this.o;
    this.o.logger.debug({ execution: execution.id, test: result.name }, 'case starting');
    const prof = this.profile;
    const recycled = ctl.idle.pop();
    const creating = recycled ? Promise.resolve(recycled) : this.o.browsers.freshPage(this.o.concurrency);
    const fresh = await prof.time('context wait', () => unlessHalted(ctl, creating)).catch(() => undefined);
    if (!fresh) {
      // Halted first: close the context whenever it arrives.
      void creating.then((f) => f.context.close()).catch(() => undefined);
      return;
    }
    const { context } = fresh;
    prof.add(recycled ? 'context recycle' : 'context create', fresh.createMs);
    // A stop that landed while the context was being made would not have closed it.
    if (ctl.stopped) return void (await context.close().catch(() => undefined));
    ctl.contexts.add(context);
    const consoleErrors: string[] = [];
    // For failure analysis: which step (1-based) each error and failed request happened in.
    let currentStep = 0;
    const pageErrors: Array<{ message: string; step: number }> = [];
    const failedRequests: Array<{ method: string; url: string; type: string; step: number; status?: number; error?: string }> = [];
    const page: Page = fresh.page;
    const blocked = new BlockedRequestLog(page, fresh.egress);
    const startedAt = new Date();
    let finished = false;
    // The case's live-stream writes (its start, each step's end) go out in order behind its steps: the lane never waits on them.
    const stream = new InOrder();
    try {
      page.on('console', (m) => {
        if (m.type() === 'error' && consoleErrors.length < 50) consoleErrors.push(m.text().slice(0, 1000));
      });
      page.on('pageerror', (e) => {
        if (consoleErrors.length < 50) consoleErrors.push(String(e).slice(0, 1000));
        if (pageErrors.length < 50) pageErrors.push({ message: String(e).slice(0, 1000), step: currentStep });
      });
      page.on('requestfailed', (r) => {
        if (failedRequests.length < 50) failedRequests.push({ method: r.method(), url: r.url(), type: r.resourceType(), step: currentStep, error: r.failure()?.errorText ?? 'failed' });
      });
      page.on('response', (r) => {
        if (r.status() >= 400 && failedRequests.length < 50) failedRequests.push({ method: r.request().method(), url: r.url(), type: r.request().resourceType(), step: currentStep, status: r.status() });
      });

      if (execution.trace !== 'off') await context.tracing.start({ title: result.name, screenshots: true, snapshots: true });

      stream.push(() =>
        prof.time('db case started', () =>
          startCaseIfHeld(db, execution.id, this.o.workerId, result.id, startedAt, {
            stream: { type: 'test_started', data: { test_id: result.test_case_id, name: result.name, position: result.position } },
            outbox: { schema: this.o.schema, batch: outboxBatch([caseStartedEvent(execution, result, startedAt, publicBaseUrl)]) },
          }),
        ),
      );

      const steps = result.steps_snapshot as Step[];
      const outcomes: StepOutcome[] = [];
      const fingerprints: Array<{ step_id: string; selector?: string; fingerprint: ElementFingerprint }> = [];
      let failure: { index: number; error: StepError } | undefined;
      // Artifacts a cap refused: the run goes on, and its result says what is missing and why.
      const notStored: string[] = [];
      const store = (kind: 'screenshot' | 'trace', content_type: string, data: Buffer) =>
        storeArtifact(db, this.o.artifacts, { org_id: execution.org_id, execution_id: execution.id, kind, content_type, data, keep_days: execution.history_days });
      const saveScreenshot = (png: Buffer) => store('screenshot', 'image/png', png);
      // assert_screenshot's baselines for this case: first captures are stored only if the case passes.
      const firstBaselines: Array<{ stepId: string; browser: string; viewport: string; name?: string; png: Buffer }> = [];
      const baselines: ScreenshotStore = {
        baseline: (k) => findBaselineImage(db, { org_id: execution.org_id, test_case_id: result.test_case_id, step_id: k.stepId, browser: k.browser, viewport: k.viewport }),
        keepAsBaseline: async (k, png) => void firstBaselines.push({ ...k, png }),
        saveMismatch: async ({ actual, expected, diff }) => {
          // A refused image leaves its id out; the comparison still fails with its numbers.
          const keep = (png: Buffer) => saveScreenshot(png).catch(refused);
          const [a, e, d] = [await keep(actual), await keep(expected), await keep(diff)];
          return { ...(a ? { actual_artifact_id: a } : {}), ...(e ? { expected_artifact_id: e } : {}), ...(d ? { diff_artifact_id: d } : {}) };
        },
      };
      const refused = (err: unknown) => {
        if (!(err instanceof ArtifactRefusedError)) throw err;
        notStored.push(err.message);
        return undefined;
      };

      const traceSteps = new TraceSteps(context, execution.trace !== 'off', steps.length);
      for (const [index, step] of steps.entries()) {
        if (failure) {
          outcomes.push({ step_id: step.step_id, name: stepName(step), status: 'skipped', duration_ms: 0 });
          if (!ctl.stopped) await traceSteps.skipped(index, stepName(step));
          continue;
        }
        const t0 = Date.now();
        currentStep = index + 1;
        await traceSteps.begin(index, stepName(step));
        try {
          if (ctl.stopped) throw new StepError('stopped', 'cancelled');
          const out = await unlessHalted(ctl, runStep(
            {
              page,
              baseUrl: execution.base_url,
              variables: ctl.vars.variables,
              stepTimeoutMs: this.o.stepTimeoutMs,
              navigationTimeoutMs: this.o.navigationTimeoutMs,
              saveScreenshot: (png) =>
                saveScreenshot(png).catch((err: unknown) => {
                  throw err instanceof ArtifactRefusedError ? new StepError(`Screenshot not stored: ${err.message}`, 'error') : err;
                }),
              fingerprints: ctl.fingerprints,
              egress: { policy: this.o.browsers.egress, proxy: fresh.egress },
              readUpload: (id) => (isUuid(id) ? findUpload(db, execution.org_id, id) : Promise.resolve(undefined)),
              screenshots: baselines,
              ...(prof.enabled ? { profile: prof } : {}),
            },
            step,
          ));
          prof.add(`step ${step.action}`, Date.now() - t0);
          if (out.fingerprint) fingerprints.push({ step_id: step.step_id, ...(step.selector ? { selector: step.selector } : {}), fingerprint: out.fingerprint });
          outcomes.push({
            step_id: step.step_id,
            name: stepName(step),
            status: 'passed',
            duration_ms: Date.now() - t0,
            ...(out.screenshotArtifactId ? { screenshot_artifact_id: out.screenshotArtifactId } : {}),
            ...(out.visual ? { visual: out.visual } : {}),
          });
        } catch (err) {
          const error = ctl.stopped
            ? new StepError(ctl.stopped === 'timeout' ? `Execution timed out after ${execution.timeout_seconds} s` : 'Execution was cancelled', 'cancelled')
            : err instanceof StepError
              ? err
              : new StepError((err as Error).message?.split('\n')[0] ?? String(err), 'error');
          // A secret may be in a message (an expected value, a URL): none leaves the runner in clear.
          failure = { index, error: ctl.vars.mask.active ? new StepError(ctl.vars.mask.text(error.message), error.type) : error };
          const visual = failure.error.details?.visual as VisualOutcome | undefined;
          const accessibility = failure.error.details?.accessibility as StepOutcome['accessibility'];
          outcomes.push({
            step_id: step.step_id,
            name: stepName(step),
            status: 'failed',
            duration_ms: Date.now() - t0,
            error: failure.error.message,
            ...(visual ? { visual } : {}),
            ...(accessibility ? { accessibility: ctl.vars.mask.deep(accessibility) } : {}),
          });
        }
        if (!ctl.stopped) await traceSteps.end(failure?.index === index ? failure.error.message : undefined);
        blocked.endStep(step.step_id);
        // Copied now: a failed step's outcome gains its screenshot later, which its step_finished never carried.
        const finishedStep = { test_id: result.test_case_id, ...outcomes[outcomes.length - 1]! };
        stream.push(() => prof.time('db step_finished', () => appendStreamEvent(db, execution.id, 'step_finished', finishedStep)));
      }

      const completedAt = new Date();
      const status = failure ? 'failed' : 'passed';
      let screenshotId: string | undefined;
      let diagnostics: Record<string, unknown> | undefined;
      const pageUrl = ctl.vars.mask.text(page.url());
      if (failure) {
        screenshotId = ctl.stopped
          ? undefined
          : await prof.time('screenshot', () =>
              page
                .screenshot({ type: 'png', timeout: 5000 })
                .then((png) => saveScreenshot(png).catch(refused))
                .catch(() => undefined),
            );
        if (screenshotId) outcomes[failure.index]!.screenshot_artifact_id = screenshotId;
        const html = ctl.stopped ? '' : await unlessHalted(ctl, page.content()).catch(() => '');
        // Only now, on failure, the expensive reading: every visible candidate and what the selector matches.
        const failedSelector = stepSelector(steps[failure.index]!, ctl.vars.variables);
        const evidence = ctl.stopped ? undefined : await unlessHalted(ctl, captureFailureEvidence(page, failedSelector)).catch(() => undefined);
        diagnostics = {
          failed_step: { index: failure.index + 1, ...steps[failure.index], error_type: failure.error.type },
          page_url: pageUrl,
          html: html.slice(0, MAX_HTML),
          html_truncated: html.length > MAX_HTML,
          console_errors: consoleErrors,
          page_errors: pageErrors,
          failed_requests: failedRequests,
          fingerprints,
          ...(evidence?.target ? { selector_state: evidence.target } : {}),
          candidates: evidence?.candidates ?? [],
          // With its images as URLs: failure analysis shows them as evidence.
          ...(outcomes[failure.index]?.visual ? { visual: visualBody(outcomes[failure.index]!.visual!, publicBaseUrl) } : {}),
        };
      } else if (fingerprints.length) {
        // Kept for passed cases too: failure analysis compares later failures with these.
        diagnostics = { fingerprints };
      }
      // The first passing run stores the baselines it captured (a concurrent run that stored one first wins).
      if (!failure && !ctl.stopped) {
        for (const b of firstBaselines) {
          await insertFirstBaseline(db, this.o.artifacts, {
            org_id: execution.org_id,
            project_id: execution.project_id,
            test_case_id: result.test_case_id,
            step_id: b.stepId,
            name: b.name ?? null,
            browser: b.browser,
            viewport: b.viewport,
            png: b.png,
            origin: 'first_run',
            source_execution_id: execution.id,
          }).catch(refused);
        }
      }
      // Refusals reported after the last step ended (a late subresource) belong to it.
      if (steps.length) blocked.endStep(steps[steps.length - 1]!.step_id);
      if (blocked.entries.length) diagnostics = { ...diagnostics, blocked_requests: blocked.entries };
      if (notStored.length) diagnostics = { ...diagnostics, artifacts_not_stored: notStored };
      // The page's HTML, its errors, request URLs and element texts can all show a secret the steps typed.
      if (diagnostics) diagnostics = ctl.vars.mask.deep(diagnostics);
      const traceId = ctl.stopped ? undefined : await this.saveTrace(context, execution, status, (data) => store('trace', 'application/zip', maskTrace(data, ctl.vars.mask)).catch(refused)).catch((err) => {
        this.o.logger.warn({ err, execution: execution.id }, 'could not save the trace');
        return undefined;
      });
      const durationMs = completedAt.getTime() - startedAt.getTime();
      // A screenshot comparison's actual and diff images come with the failure's screenshots.
      const screenshots = outcomes.flatMap((o) =>
        [o.screenshot_artifact_id, o.visual?.actual_artifact_id, o.visual?.diff_artifact_id].flatMap((id) => (id ? [artifactUrl(publicBaseUrl, id)] : [])),
      );
      const browserVersion = await this.o.browsers.version().catch(() => 'unknown');
      // The case's start and step events are stored before its result (a failed write fails the case as it did inline).
      await prof.time('db stream drain', () => stream.drain());
      const finishedEvents = caseFinishedEvents(
        execution,
        { ...result, status, error: failure?.error.message ?? null },
        {
          status,
          durationMs,
          startedAt,
          completedAt,
          ...(failure
            ? { error: { message: failure.error.message, type: failure.error.type, step: failure.index + 1, step_description: stepName(steps[failure.index]!) } }
            : {}),
          screenshots,
          ...(traceId ? { trace: artifactUrl(publicBaseUrl, traceId) } : {}),
          pageUrl,
          browser: `chromium ${browserVersion}`,
          viewport: `${VIEWPORT.width}x${VIEWPORT.height}`,
          ...(diagnostics ? { diagnostics: eventDiagnostics(diagnostics) } : {}),
        },
        publicBaseUrl,
      );
      // A worker that lost its lease must not overwrite the retry's results: then nothing is written.
      await prof.time('db case finished', () =>
        finishCaseIfHeld(
          db,
          execution.id,
          this.o.workerId,
          result.id,
          status,
          {
            duration_ms: durationMs,
            error: failure?.error.message ?? null,
            error_step: failure ? failure.index + 1 : null,
            screenshot_artifact_id: screenshotId ?? null,
            trace_artifact_id: traceId ?? null,
            steps: JSON.stringify(outcomes),
            diagnostics: diagnostics ? JSON.stringify(diagnostics) : null,
            completed_at: completedAt,
          },
          {
            stream: {
              type: 'test_finished',
              data: {
                test_id: result.test_case_id,
                name: result.name,
                status,
                duration_ms: durationMs,
                ...(failure ? { error: failure.error.message } : {}),
                ...(screenshotId ? { screenshot: artifactUrl(publicBaseUrl, screenshotId) } : {}),
                ...(traceId ? { trace: artifactUrl(publicBaseUrl, traceId) } : {}),
              },
            },
            outbox: { schema: this.o.schema, batch: outboxBatch(finishedEvents) },
          },
        ),
      );
      finished = true;
    } finally {
      // A case that ended early leaves no stream write running behind it.
      await stream.settled();
      // A case that ran to its end hands its context, reset, to the run's next case; any other closes it.
      const next = finished && !ctl.stopped ? await this.o.browsers.recycle(fresh) : undefined;
      if (next && !ctl.stopped) ctl.idle.push(next);
      else {
        ctl.contexts.delete(context);
        await prof.time('context close', () => context.close().catch(() => undefined));
      }
    }
  }

  /** Stores the case's Playwright trace when the run's `trace` mode keeps it; the artifact id. */
  private async saveTrace(context: BrowserContext, execution: ExecutionRow, status: 'passed' | 'failed', save: (zip: Buffer) => Promise<string | undefined>): Promise<string | undefined> {
    if (execution.trace === 'off') return undefined;
    if (execution.trace === 'retain-on-failure' && status === 'passed') {
      await context.tracing.stop();
      return undefined;
    }
    // Playwright writes traces only to a file.
    const file = path.join(tmpdir(), `assay-trace-${randomUUID()}.zip`);
    try {
      await context.tracing.stop({ path: file });
      const data = await readFile(file);
      return await save(data);
    } finally {
      await rm(file, { force: true });
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
      if (timedOut) {
        events.unshift({
          event: 'test.execution.timeout',
          organization_id: row.org_id,
          project_id: row.project_id,
          key: row.id,
          data: {
            execution_id: row.id,
            test_plan_id: row.test_plan_id,
            environment: row.environment,
            timeout_seconds: row.timeout_seconds,
            partial_results: {
              total: results.length,
              passed: row.passed_tests,
              failed: row.failed_tests,
              skipped,
              test_results: results.map((r) => ({ test_id: r.test_case_id, name: r.name, status: r.status, error: r.error })),
            },
          },
        });
      }
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
