import type { ConfigReader } from '@assay/config';

/** How long steps wait, the same wherever they run (the runner, and the analysis verifier's re-runs). */
export interface StepTimeouts {
  /** STEP_TIMEOUT_MS (5000, 100–300000): element lookups and assertions. */
  stepTimeoutMs: number;
  /** NAVIGATION_TIMEOUT_MS (15000, 1000–300000): navigations, reloads and history steps. */
  navigationTimeoutMs: number;
}

/** Reads STEP_TIMEOUT_MS and NAVIGATION_TIMEOUT_MS; out of range or malformed is a config problem. */
export function readStepTimeouts(r: ConfigReader): StepTimeouts {
  return {
    stepTimeoutMs: r.int('STEP_TIMEOUT_MS', { default: 5000, min: 100, max: 300_000 }),
    navigationTimeoutMs: r.int('NAVIGATION_TIMEOUT_MS', { default: 15_000, min: 1000, max: 300_000 }),
  };
}
