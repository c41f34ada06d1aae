/** How many recent runs of a test count (ReportPortal's flaky-test widget looks at the last 30 launches). */
export const FLAKY_WINDOW = 30;

export type FlakyBand = 'low' | 'medium' | 'high';

export interface Flakiness {
  /** Runs considered (same plan, environment and test-case version), oldest first, at most FLAKY_WINDOW. */
  runs: number;
  passed: number;
  failed: number;
  /** Status changes between consecutive runs. */
  flips: number;
  /** flips / (runs − 1), 0..1. */
  flip_rate: number;
  /** It failed and passed again without any change to the test: two flips or more. */
  flaky: boolean;
  /** Cypress Cloud's bands: low ≤ 10 %, medium ≤ 50 %, high above. */
  band: FlakyBand | null;
}

export const bandOf = (rate: number): FlakyBand => (rate <= 0.1 ? 'low' : rate <= 0.5 ? 'medium' : 'high');

/**
 * The flip rate of a run history. One change (passing, then failing ever
 * since) is a regression, not flakiness: a test is flaky when its status
 * changed at least twice with the same test, plan and environment.
 */
export function flakinessOf(statuses: Array<'passed' | 'failed'>): Flakiness {
  const recent = statuses.slice(-FLAKY_WINDOW);
  let flips = 0;
  for (let i = 1; i < recent.length; i++) if (recent[i] !== recent[i - 1]) flips++;
  const rate = recent.length > 1 ? flips / (recent.length - 1) : 0;
  const flaky = flips >= 2;
  return {
    runs: recent.length,
    passed: recent.filter((s) => s === 'passed').length,
    failed: recent.filter((s) => s === 'failed').length,
    flips,
    flip_rate: Math.round(rate * 1000) / 1000,
    flaky,
    band: flaky ? bandOf(rate) : null,
  };
}
