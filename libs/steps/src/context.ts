import type { Page } from 'playwright-core';
import type { Step } from '@assay/contracts';
import type { EgressPolicy, EgressProxy } from '@assay/egress';
import type { ElementFingerprint } from './fingerprint.js';
import { StepError } from './step-error.js';

/**
 * What a step runs with. `page`, the base URL, the variables and the two
 * timeouts are always there; every other part is optional, and a step that
 * finds its part missing does without it (no screenshot stored, no
 * fingerprint cache, no egress check, no profile) or, for an `upload` without
 * `readUpload`, fails as `unsupported`.
 */
export interface StepContext {
  page: Page;
  baseUrl: string;
  variables: Record<string, string>;
  /** How long element lookups and assertions wait (ms). */
  stepTimeoutMs: number;
  navigationTimeoutMs: number;
  /** Stores a `screenshot` step's PNG and answers its artifact id; without it the step only checks the element is visible. */
  saveScreenshot?(png: Buffer): Promise<string>;
  /**
   * Fingerprints already taken in this execution, by page URL and selector:
   * within one run of the target app the element a selector matches on a page
   * is the same one, so it is read once (every case that logs in shares them).
   */
  fingerprints?: Map<string, ElementFingerprint>;
  /** The egress policy (checked before a navigation), and the proxy of this page's context (what it refused). */
  egress?: { policy: EgressPolicy; proxy: EgressProxy };
  /** A file uploaded for `upload` steps, read only when it belongs to the run's organization. */
  readUpload?(id: string): Promise<UploadedFile | undefined>;
  /** Per-phase timings (fingerprint reads, screenshots), when profiling. */
  profile?: { add(phase: string, ms: number): void };
}

export interface UploadedFile {
  filename: string;
  content_type: string;
  data: Buffer;
}

/** What a step leaves behind: the element it acted on, the screenshot it stored. */
export interface StepOutput {
  fingerprint?: ElementFingerprint;
  screenshotArtifactId?: string;
}

/**
 * One step kind: how one action runs. `step` comes with its `{{variables}}`
 * already substituted in `selector` and `value`.
 * @throws StepError with a message a person can act on.
 */
export interface StepKind {
  run(ctx: StepContext, step: Step): Promise<StepOutput>;
}

/**
 * The step's selector or value, or a StepError saying the step has none.
 * @throws StepError (`error`).
 */
export function required(step: Step, what: 'selector' | 'value'): string {
  const v = step[what];
  if (v === undefined) throw new StepError(`Step "${step.action}" has no ${what}`, 'error');
  return v;
}
