import type { Page } from 'playwright-core';
import type { EgressProxy } from '@assay/egress';
import { captureFailureEvidence, substitute, type ElementFingerprint, type Step, type StepError, type VisualOutcome } from '@assay/steps';
import { visualBody } from '../execution-events.js';
import { BlockedRequestLog } from './blocked-requests.js';
import { htmlSnapshot, type HtmlSnapshot } from './html-snapshot.js';
import { unlessHalted, type RunControl } from './run-control.js';

/** The failure's HTML snapshot at most (characters); a larger page is fitted to it (html-snapshot.ts). */
const MAX_HTML = 200_000;
/** Entries of each kind a case keeps: a page that logs in a loop cannot grow its result without bound. */
const MAX_ENTRIES = 50;

export interface StepFingerprint {
  step_id: string;
  selector?: string;
  fingerprint: ElementFingerprint;
}

/** The failed step and what the case saw up to it. */
export interface FailureInput {
  steps: Step[];
  failure: { index: number; error: StepError };
  fingerprints: StepFingerprint[];
  /** The page's URL, secrets masked. */
  pageUrl: string;
  visual?: VisualOutcome;
  publicBaseUrl: string;
}

/** The failing step's selector with its variables filled in, when it has one that resolves. */
function stepSelector(step: Step, variables: Record<string, string>): string | undefined {
  try {
    return step.selector === undefined ? undefined : substitute(step.selector, variables);
  } catch {
    return undefined;
  }
}

/**
 * What a case's page shows failure analysis: console and page errors, failed
 * requests (each with the 1-based step it happened in), requests the egress
 * proxy refused, and on failure the page's HTML and every visible candidate
 * element. Listens from the case's first step; reads the expensive parts only
 * when a step failed.
 */
export class PageEvidence {
  private step = 0;
  private readonly consoleErrors: string[] = [];
  private readonly pageErrors: Array<{ message: string; step: number }> = [];
  private readonly failedRequests: Array<{ method: string; url: string; type: string; step: number; status?: number; error?: string }> = [];
  private readonly blocked: BlockedRequestLog;

  constructor(
    private readonly page: Page,
    egress: EgressProxy,
  ) {
    this.blocked = new BlockedRequestLog(page, egress);
    page.on('console', (m) => {
      if (m.type() === 'error' && this.consoleErrors.length < MAX_ENTRIES) this.consoleErrors.push(m.text().slice(0, 1000));
    });
    page.on('pageerror', (e) => {
      if (this.consoleErrors.length < MAX_ENTRIES) this.consoleErrors.push(String(e).slice(0, 1000));
      if (this.pageErrors.length < MAX_ENTRIES) this.pageErrors.push({ message: String(e).slice(0, 1000), step: this.step });
    });
    page.on('requestfailed', (r) => {
      if (this.failedRequests.length < MAX_ENTRIES) this.failedRequests.push({ method: r.method(), url: r.url(), type: r.resourceType(), step: this.step, error: r.failure()?.errorText ?? 'failed' });
    });
    page.on('response', (r) => {
      if (r.status() >= 400 && this.failedRequests.length < MAX_ENTRIES) this.failedRequests.push({ method: r.request().method(), url: r.url(), type: r.request().resourceType(), step: this.step, status: r.status() });
    });
  }

  /** Errors and requests from now on belong to step `position` (1-based). */
  beginStep(position: number): void {
    this.step = position;
  }

  /** Files the egress proxy's refusals since the last call under `stepId`. */
  endStep(stepId: string): void {
    this.blocked.endStep(stepId);
  }

  /**
   * The failure's diagnostics: the page's HTML, its errors and failed requests,
   * the fingerprints the case took, what the failed selector matches and every
   * visible candidate element (the expensive reading, only now). A stopped run
   * reads nothing from the page.
   */
  async failure(ctl: RunControl, f: FailureInput): Promise<Record<string, unknown>> {
    const failedStep = f.steps[f.failure.index]!;
    const none: HtmlSnapshot = { html: '', fitted: [], truncated: false };
    const snapshot = ctl.stopped ? none : await unlessHalted(ctl, htmlSnapshot(this.page, MAX_HTML)).catch(() => none);
    const selector = stepSelector(failedStep, ctl.vars.variables);
    const evidence = ctl.stopped ? undefined : await unlessHalted(ctl, captureFailureEvidence(this.page, selector)).catch(() => undefined);
    return {
      failed_step: { index: f.failure.index + 1, ...failedStep, error_type: f.failure.error.type },
      page_url: f.pageUrl,
      html: snapshot.html,
      html_truncated: snapshot.truncated,
      ...(snapshot.fitted.length ? { html_fitted: snapshot.fitted } : {}),
      console_errors: this.consoleErrors,
      page_errors: this.pageErrors,
      failed_requests: this.failedRequests,
      fingerprints: f.fingerprints,
      ...(evidence?.target ? { selector_state: evidence.target } : {}),
      candidates: evidence?.candidates ?? [],
      // With its images as URLs: failure analysis shows them as evidence.
      ...(f.visual ? { visual: visualBody(f.visual, f.publicBaseUrl) } : {}),
    };
  }

  /** The egress proxy's refusals, filed by step (the last step takes the late ones). */
  blockedRequests(lastStepId: string | undefined) {
    // Refusals reported after the last step ended (a late subresource) belong to it.
    if (lastStepId !== undefined) this.blocked.endStep(lastStepId);
    return this.blocked.entries;
  }
}
