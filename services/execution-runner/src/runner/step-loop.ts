import { runStep, StepError, stepName, type Step, type StepContext, type VisualOutcome } from '@assay/steps';
import type { StepOutcome } from '../db/database.js';
import { ArtifactRefusedError } from '../artifacts/artifacts.repository.js';
import type { ArtifactSink } from './artifact-sink.js';
import type { PageEvidence, StepFingerprint } from './page-evidence.js';
import type { PhaseProfile } from './profile.js';
import { unlessHalted, type RunControl } from './run-control.js';
import type { TraceSteps } from './trace-steps.js';

/** What the loop runs the steps with: the step engine's context less what the loop fills in itself. */
export type StepSettings = Omit<StepContext, 'saveScreenshot' | 'screenshots' | 'fingerprints' | 'variables' | 'profile'>;

export interface StepLoopInput {
  steps: Step[];
  settings: StepSettings;
  ctl: RunControl;
  sink: ArtifactSink;
  evidence: PageEvidence;
  trace: TraceSteps;
  profile: PhaseProfile;
  /** Each step's outcome as it ends (the live stream). */
  onStepFinished: (outcome: StepOutcome) => void;
}

export interface StepLoopOutcome {
  outcomes: StepOutcome[];
  /** The elements the passed steps acted on: failure analysis compares later failures with these. */
  fingerprints: StepFingerprint[];
  /** The first step that failed (its error's secrets masked); the steps after it are skipped. */
  failure?: { index: number; error: StepError };
}

/** A stop, a step's own error, or anything else thrown, as the step error the result reports. */
function stepError(ctl: RunControl, timeoutSeconds: number, err: unknown): StepError {
  const error = ctl.stopped
    ? new StepError(ctl.stopped === 'timeout' ? `Execution timed out after ${timeoutSeconds} s` : 'Execution was cancelled', 'cancelled')
    : err instanceof StepError
      ? err
      : new StepError((err as Error).message?.split('\n')[0] ?? String(err), 'error');
  // A secret may be in a message (an expected value, a URL): none leaves the runner in clear.
  return ctl.vars.mask.active ? new StepError(ctl.vars.mask.text(error.message), error.type) : error;
}

/**
 * Runs a case's steps in order until one fails, then reports the rest as
 * skipped. Each step is a group of the case's trace and ends with its outcome
 * on the live stream; a stop of the execution fails the step running.
 */
export async function runSteps(input: StepLoopInput, timeoutSeconds: number): Promise<StepLoopOutcome> {
  const { steps, ctl, sink, evidence, trace, profile } = input;
  const context: StepContext = {
    ...input.settings,
    variables: ctl.vars.variables,
    saveScreenshot: (png) =>
      sink.saveScreenshot(png).catch((err: unknown) => {
        throw err instanceof ArtifactRefusedError ? new StepError(`Screenshot not stored: ${err.message}`, 'error') : err;
      }),
    fingerprints: ctl.fingerprints,
    screenshots: sink.baselines,
    ...(profile.enabled ? { profile } : {}),
  };
  const outcomes: StepOutcome[] = [];
  const fingerprints: StepFingerprint[] = [];
  let failure: StepLoopOutcome['failure'];
  for (const [index, step] of steps.entries()) {
    if (failure) {
      outcomes.push({ step_id: step.step_id, name: stepName(step), status: 'skipped', duration_ms: 0 });
      if (!ctl.stopped) await trace.skipped(index, stepName(step));
      continue;
    }
    const t0 = Date.now();
    evidence.beginStep(index + 1);
    await trace.begin(index, stepName(step));
    try {
      if (ctl.stopped) throw new StepError('stopped', 'cancelled');
      const out = await unlessHalted(ctl, runStep(context, step));
      profile.add(`step ${step.action}`, Date.now() - t0);
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
      failure = { index, error: stepError(ctl, timeoutSeconds, err) };
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
    if (!ctl.stopped) await trace.end(failure?.index === index ? failure.error.message : undefined);
    evidence.endStep(step.step_id);
    input.onStepFinished(outcomes[outcomes.length - 1]!);
  }
  return { outcomes, fingerprints, ...(failure ? { failure } : {}) };
}
