// The one step engine: the runner runs test cases with it, the analysis service replays them with it.
export type { Step, StepAction } from '@assay/contracts';
export { required, type ScreenshotStore, type StepContext, type StepKind, type StepOutput, type UploadedFile, type VisualOutcome } from './context.js';
export { elementAction } from './kinds/element-actions.js';
export { captureFailureEvidence, FINGERPRINT, MAX_CANDIDATES, type ElementFingerprint, type SelectorState } from './fingerprint.js';
export { act, attached, checkSelector, fingerprintOf, isInvalidSelector, pattern, readQuietly, visible, waitAndRead } from './elements.js';
export { assertEgressAllowed, navigationError } from './navigation.js';
export { STEP_KINDS, stepKind } from './registry.js';
export { runStep } from './run-step.js';
export { StepError, type StepErrorType } from './step-error.js';
export { firstLine, normalise, resolveUrl, stepName, substitute, waitUntil } from './values.js';
export { baselineKey, compareScreenshots, diffRegions, percent, MAX_REGIONS, type BaselineKey, type Comparison, type ComparisonOptions, type DiffRegion } from './visual.js';
export { scanAccessibility, type AccessibilityViolation } from './kinds/accessibility.js';
export { readStepTimeouts, type StepTimeouts } from './settings.js';
