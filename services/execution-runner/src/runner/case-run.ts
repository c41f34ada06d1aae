import type { Kysely } from 'kysely';
import { isUuid } from '@assay/http';
import type { Logger } from '@assay/logger';
import type { BrowserPool, FreshPage } from '@assay/browser';
import type { Step } from '@assay/steps';
import type { ExecutionDatabase, ExecutionRow, TestResultRow } from '../db/database.js';
import { findUpload, type ArtifactLimits } from '../artifacts/artifacts.repository.js';
import { ArtifactSink } from './artifact-sink.js';
import { PageEvidence } from './page-evidence.js';
import type { PhaseProfile } from './profile.js';
import { ResultWriter } from './result-writer.js';
import { unlessHalted, type RunControl } from './run-control.js';
import { runSteps } from './step-loop.js';
import { TraceSteps } from './trace-steps.js';

/** What running a case needs of its runner. */
export interface CaseDeps {
  db: Kysely<ExecutionDatabase>;
  schema: string;
  workerId: string;
  publicBaseUrl: string;
  logger: Logger;
  browsers: BrowserPool;
  /** Cases this process runs at once: how many contexts the pool may make. */
  concurrency: number;
  stepTimeoutMs: number;
  navigationTimeoutMs: number;
  artifacts: ArtifactLimits;
  profile: PhaseProfile;
}

/**
 * Runs one test case in a browser context of its own (or one recycled from
 * the run's previous case) and stores its result. The parts, in the order the
 * case meets them: the result writer (start, step events, result), the
 * artifact sink (screenshots, baselines, trace), the page's evidence, the
 * step loop, then on failure the evidence read from the page.
 */
export async function runCaseInBrowser(o: CaseDeps, execution: ExecutionRow, result: TestResultRow, ctl: RunControl): Promise<void> {
  const fresh = await takePage(o, ctl);
  if (!fresh) return;
  const { context, page } = fresh;
  const writer = new ResultWriter(o, execution, result);
  const sink = new ArtifactSink(o.db, o.artifacts, execution, result.test_case_id);
  const steps = result.steps_snapshot as Step[];
  let finished = false;
  try {
    const evidence = new PageEvidence(page, fresh.egress);
    const startedAt = new Date();
    if (execution.trace !== 'off') await context.tracing.start({ title: result.name, screenshots: true, snapshots: true });
    writer.started(startedAt);
    const run = await runSteps(
      {
        steps,
        settings: {
          page,
          baseUrl: execution.base_url,
          stepTimeoutMs: o.stepTimeoutMs,
          navigationTimeoutMs: o.navigationTimeoutMs,
          egress: { policy: o.browsers.egress, proxy: fresh.egress },
          readUpload: (id) => (isUuid(id) ? findUpload(o.db, execution.org_id, id) : Promise.resolve(undefined)),
        },
        ctl,
        sink,
        evidence,
        trace: new TraceSteps(context, execution.trace !== 'off', steps.length),
        profile: o.profile,
        onStepFinished: (outcome) => writer.stepFinished(outcome),
      },
      execution.timeout_seconds,
    );
    const completedAt = new Date();
    const { failure, outcomes, fingerprints } = run;
    const pageUrl = ctl.vars.mask.text(page.url());
    let screenshotId: string | undefined;
    let diagnostics: Record<string, unknown> | undefined;
    if (failure) {
      screenshotId = ctl.stopped ? undefined : await o.profile.time('screenshot', () => sink.pageScreenshot(page));
      if (screenshotId) outcomes[failure.index]!.screenshot_artifact_id = screenshotId;
      diagnostics = await evidence.failure(ctl, { steps, failure, fingerprints, pageUrl, visual: outcomes[failure.index]?.visual, publicBaseUrl: o.publicBaseUrl });
    } else if (fingerprints.length) {
      // Kept for passed cases too: failure analysis compares later failures with these.
      diagnostics = { fingerprints };
    }
    if (!failure && !ctl.stopped) await sink.keepFirstBaselines();
    const blocked = evidence.blockedRequests(steps[steps.length - 1]?.step_id);
    if (blocked.length) diagnostics = { ...diagnostics, blocked_requests: blocked };
    if (sink.notStored.length) diagnostics = { ...diagnostics, artifacts_not_stored: sink.notStored };
    // The page's HTML, its errors, request URLs and element texts can all show a secret the steps typed.
    if (diagnostics) diagnostics = ctl.vars.mask.deep(diagnostics);
    const status = failure ? 'failed' : 'passed';
    const traceId = ctl.stopped
      ? undefined
      : await sink.saveTrace(context, status, ctl.vars).catch((err) => {
          o.logger.warn({ err, execution: execution.id }, 'could not save the trace');
          return undefined;
        });
    const browserVersion = await o.browsers.version().catch(() => 'unknown');
    await writer.finished({ outcomes, ...(failure ? { failure } : {}), startedAt, completedAt, screenshotId, traceId, diagnostics, pageUrl, browserVersion });
    finished = true;
  } finally {
    // A case that ended early leaves no stream write running behind it.
    await writer.settled();
    await handBack(o, ctl, fresh, finished);
  }
}

/** A page for the case: the run's idle context reset, or a new one; undefined when the run stopped first. */
async function takePage(o: CaseDeps, ctl: RunControl): Promise<FreshPage | undefined> {
  const recycled = ctl.idle.pop();
  const creating = recycled ? Promise.resolve(recycled) : o.browsers.freshPage(o.concurrency);
  const fresh = await o.profile.time('context wait', () => unlessHalted(ctl, creating)).catch(() => undefined);
  if (!fresh) {
    // Halted first: close the context whenever it arrives.
    void creating.then((f) => f.context.close()).catch(() => undefined);
    return undefined;
  }
  o.profile.add(recycled ? 'context recycle' : 'context create', fresh.createMs);
  // A stop that landed while the context was being made would not have closed it.
  if (ctl.stopped) return void (await fresh.context.close().catch(() => undefined));
  ctl.contexts.add(fresh.context);
  return fresh;
}

/** A case that ran to its end hands its context, reset, to the run's next case; any other closes it. */
async function handBack(o: CaseDeps, ctl: RunControl, fresh: FreshPage, finished: boolean): Promise<void> {
  const next = finished && !ctl.stopped ? await o.browsers.recycle(fresh) : undefined;
  if (next && !ctl.stopped) ctl.idle.push(next);
  else {
    ctl.contexts.delete(fresh.context);
    await o.profile.time('context close', () => fresh.context.close().catch(() => undefined));
  }
}
