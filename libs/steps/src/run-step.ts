import type { Step } from '@assay/contracts';
import type { StepContext, StepOutput } from './context.js';
import { stepKind } from './registry.js';
import { StepError } from './step-error.js';
import { substitute } from './values.js';

/**
 * Runs one step: substitutes `{{variables}}` in its selector and value, then
 * runs it with the kind its action names (`STEP_KINDS`).
 * @throws StepError with a message a person can act on and a category for
 * failure analysis (`Unknown action` for an action no kind runs).
 */
export async function runStep(ctx: StepContext, step: Step): Promise<StepOutput> {
  const resolved: Step = { ...step };
  if (step.selector !== undefined) resolved.selector = substitute(step.selector, ctx.variables);
  if (step.value !== undefined) resolved.value = substitute(step.value, ctx.variables);
  const kind = stepKind(step.action);
  if (!kind) throw new StepError(`Unknown action "${step.action}"`, 'error');
  return kind.run(ctx, resolved);
}
