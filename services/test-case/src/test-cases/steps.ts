import { randomUUID } from 'node:crypto';
import { STEP_ACTIONS, STEP_LIMITS, validateSteps, type Step, type StepAction } from '@assay/contracts';

// The action table, the step validation and its limits are the contracts' (exploratory runs validate steps the same way).
export { STEP_ACTIONS, STEP_LIMITS, validateSteps, type Step, type StepAction };

/**
 * Normalises validated steps and assigns step ids: a step keeps a `step_id`
 * it carries only when that id is one of `keepIds` (the case's current steps),
 * so edits keep result history linked and callers cannot invent ids.
 */
export function normaliseSteps(steps: Array<Record<string, unknown>>, keepIds: ReadonlySet<string> = new Set()): Step[] {
  return steps.map((s) => {
    const id = typeof s.step_id === 'string' && keepIds.has(s.step_id) ? s.step_id : randomUUID();
    const step: Step = { step_id: id, action: s.action as StepAction };
    if (typeof s.description === 'string' && s.description !== '') step.description = s.description;
    if (typeof s.selector === 'string') step.selector = s.selector;
    if (typeof s.value === 'string') step.value = s.value;
    if (typeof s.timeout === 'number') step.timeout = s.timeout;
    if (s.action === 'request') {
      const r = s.request as Record<string, unknown>;
      step.request = { method: String(r.method).toUpperCase(), url: String(r.url) };
      if (r.headers !== undefined) step.request.headers = r.headers as Record<string, string>;
      if (r.body !== undefined) step.request.body = r.body;
      if (Array.isArray(s.expect)) step.expect = s.expect as string[];
      if (s.save_as !== undefined) step.save_as = s.save_as as Record<string, string>;
    }
    return step;
  });
}
