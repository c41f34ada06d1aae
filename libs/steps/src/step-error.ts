/**
 * What kind of failure a step met, for failure analysis. `unsupported`: the
 * step needs a part its context lacks (an `upload` replayed outside the
 * runner, which has no uploaded files); the runner's context has every part.
 */
export type StepErrorType =
  | 'element_not_found'
  | 'element_not_interactable'
  | 'assertion_failed'
  | 'navigation_failed'
  | 'egress_blocked'
  | 'unknown_variable'
  | 'cancelled'
  | 'unsupported'
  | 'error';

/** A step failure with a readable message and a category for failure analysis. */
export class StepError extends Error {
  constructor(
    message: string,
    readonly type: StepErrorType,
  ) {
    super(message);
    this.name = 'StepError';
  }
}
