import type { Kysely } from 'kysely';
import { outboxBatch } from '@assay/bus';
import { VIEWPORT } from '@assay/browser';
import type { StepError } from '@assay/steps';
import type { ExecutionDatabase, ExecutionRow, StepOutcome, TestResultRow } from '../db/database.js';
import { appendStreamEvent, finishCaseIfHeld, startCaseIfHeld } from '../executions/executions.repository.js';
import { artifactUrl, caseFinishedEvents, caseStartedEvent } from '../execution-events.js';
import { InOrder } from './in-order.js';
import type { PhaseProfile } from './profile.js';

export interface ResultWriterDeps {
  db: Kysely<ExecutionDatabase>;
  schema: string;
  workerId: string;
  publicBaseUrl: string;
  profile: PhaseProfile;
}

/** How a case ended, as its result, its stream event and its events say. */
export interface CaseEnd {
  outcomes: StepOutcome[];
  failure?: { index: number; error: StepError };
  startedAt: Date;
  completedAt: Date;
  screenshotId?: string;
  traceId?: string;
  diagnostics?: Record<string, unknown>;
  /** The page's URL, secrets masked. */
  pageUrl: string;
  browserVersion: string;
}

/**
 * Everything one case writes about itself: its start, each step's end on the
 * live stream, and its result with its events. The start and the step events
 * go out in order behind the steps (the lane never waits on them); the result
 * waits for all of them. Each write checks the worker still holds the
 * execution's lease: a worker that lost it writes nothing more.
 */
export class ResultWriter {
  private readonly stream = new InOrder();

  constructor(
    private readonly o: ResultWriterDeps,
    private readonly execution: ExecutionRow,
    private readonly result: TestResultRow,
  ) {}

  /** The case's start: its result row running, `test_started` and `test.execution.started`. */
  started(startedAt: Date): void {
    const { execution: e, result: r, o } = this;
    this.stream.push(() =>
      o.profile.time('db case started', () =>
        startCaseIfHeld(o.db, e.id, o.workerId, r.id, startedAt, {
          stream: { type: 'test_started', data: { test_id: r.test_case_id, name: r.name, position: r.position } },
          outbox: { schema: o.schema, batch: outboxBatch([caseStartedEvent(e, r, startedAt, o.publicBaseUrl)]) },
        }),
      ),
    );
  }

  /** A step's `step_finished` on the live stream; `outcome` is copied now (a failed step gains its screenshot later). */
  stepFinished(outcome: StepOutcome): void {
    const finished = { test_id: this.result.test_case_id, ...outcome };
    this.stream.push(() => this.o.profile.time('db step_finished', () => appendStreamEvent(this.o.db, this.execution.id, 'step_finished', finished)));
  }

  /** Waits for the stream writes, then stores the result with `test_finished` and the case's events in one statement. */
  async finished(end: CaseEnd): Promise<void> {
    const { execution: e, result: r, o } = this;
    const { failure } = end;
    const status = failure ? 'failed' : 'passed';
    const durationMs = end.completedAt.getTime() - end.startedAt.getTime();
    const url = (id: string) => artifactUrl(o.publicBaseUrl, id);
    // A screenshot comparison's actual and diff images come with the failure's screenshots.
    const screenshots = end.outcomes.flatMap((s) => [s.screenshot_artifact_id, s.visual?.actual_artifact_id, s.visual?.diff_artifact_id].flatMap((id) => (id ? [url(id)] : [])));
    // The case's start and step events are stored before its result (a failed write fails the case).
    await o.profile.time('db stream drain', () => this.stream.drain());
    const events = caseFinishedEvents(
      e,
      { ...r, status, error: failure?.error.message ?? null },
      {
        status,
        durationMs,
        startedAt: end.startedAt,
        completedAt: end.completedAt,
        ...(failure ? { error: { message: failure.error.message, type: failure.error.type, step: failure.index + 1, step_description: end.outcomes[failure.index]!.name } } : {}),
        screenshots,
        ...(end.traceId ? { trace: url(end.traceId) } : {}),
        pageUrl: end.pageUrl,
        browser: `chromium ${end.browserVersion}`,
        viewport: `${VIEWPORT.width}x${VIEWPORT.height}`,
        ...(end.diagnostics ? { diagnostics: end.diagnostics } : {}),
      },
      o.publicBaseUrl,
    );
    const patch = {
      duration_ms: durationMs,
      error: failure?.error.message ?? null,
      error_step: failure ? failure.index + 1 : null,
      screenshot_artifact_id: end.screenshotId ?? null,
      trace_artifact_id: end.traceId ?? null,
      steps: JSON.stringify(end.outcomes),
      diagnostics: end.diagnostics ? JSON.stringify(end.diagnostics) : null,
      completed_at: end.completedAt,
    };
    const testFinished = {
      test_id: r.test_case_id,
      name: r.name,
      status,
      duration_ms: durationMs,
      ...(failure ? { error: failure.error.message } : {}),
      ...(end.screenshotId ? { screenshot: url(end.screenshotId) } : {}),
      ...(end.traceId ? { trace: url(end.traceId) } : {}),
    };
    await o.profile.time('db case finished', () =>
      finishCaseIfHeld(o.db, e.id, o.workerId, r.id, status, patch, {
        stream: { type: 'test_finished', data: testFinished },
        outbox: { schema: o.schema, batch: outboxBatch(events) },
      }),
    );
  }

  /** Waits for the stream writes, whatever their outcome (a case that ended early leaves none running). */
  settled(): Promise<void> {
    return this.stream.settled();
  }
}
