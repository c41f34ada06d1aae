import { randomUUID } from 'node:crypto';
import { STEP_ACTIONS, hasPlaceholder, stepActionSpec, type FieldError, type StepAction } from '@assay/contracts';

// The action table (parameters, value formats) is the contracts' one list.
export { STEP_ACTIONS, type StepAction };

export interface Step {
  step_id: string;
  action: StepAction;
  description?: string;
  selector?: string;
  value?: string;
  /** Milliseconds; `wait` only. */
  timeout?: number;
}

/** Bounds we chose where the spec is silent (documented in the README). */
export const STEP_LIMITS = {
  maxSteps: 200,
  selectorLength: 2000,
  valueLength: 10_000,
  descriptionLength: 1000,
  minTimeoutMs: 1,
  maxTimeoutMs: 300_000,
} as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a steps array against the action table; every problem names the step
 * index and field (`steps[2].selector`). `field` prefixes the paths.
 */
export function validateSteps(steps: unknown, field = 'steps'): FieldError[] {
  if (!Array.isArray(steps)) return [{ field, message: 'must be an array of steps' }];
  if (steps.length === 0) return [{ field, message: 'must contain at least 1 step' }];
  if (steps.length > STEP_LIMITS.maxSteps) return [{ field, message: `must contain at most ${STEP_LIMITS.maxSteps} steps` }];
  const errors: FieldError[] = [];
  steps.forEach((step, i) => {
    const at = `${field}[${i}]`;
    if (!isObject(step)) return void errors.push({ field: at, message: 'must be an object' });
    const action = step.action;
    if (typeof action !== 'string' || !Object.hasOwn(STEP_ACTIONS, action)) {
      return void errors.push({ field: `${at}.action`, message: `must be one of ${Object.keys(STEP_ACTIONS).join(', ')}` });
    }
    const rule = stepActionSpec(action)!;
    for (const key of Object.keys(step)) {
      if (!['step_id', 'action', 'description', 'selector', 'value', 'timeout'].includes(key)) {
        errors.push({ field: `${at}.${key}`, message: 'is not a known step field' });
      }
    }
    const text = (name: 'selector' | 'value' | 'description', max: number, need: 'required' | 'optional' | 'no') => {
      const v = step[name];
      if (v === undefined || v === null) {
        if (need === 'required') errors.push({ field: `${at}.${name}`, message: `is required for action "${action}"` });
        return;
      }
      if (typeof v !== 'string') return void errors.push({ field: `${at}.${name}`, message: 'must be a string' });
      if (need === 'no' && name !== 'description') return void errors.push({ field: `${at}.${name}`, message: `is not used by action "${action}"` });
      if (v.length > max) return void errors.push({ field: `${at}.${name}`, message: `must be at most ${max} characters` });
      // Empty is refused unless it means something (an empty field): an empty selector or key means nothing.
      if (need === 'required' && v.trim() === '' && !(name === 'value' && rule.emptyValue)) {
        return void errors.push({ field: `${at}.${name}`, message: `must not be empty for action "${action}"` });
      }
      // A value with a {{placeholder}} is checked once the run has substituted it.
      const problem = name === 'value' && !hasPlaceholder(v) ? rule.checkValue?.(v) : undefined;
      if (problem) errors.push({ field: `${at}.${name}`, message: problem });
    };
    text('selector', STEP_LIMITS.selectorLength, rule.selector);
    text('value', STEP_LIMITS.valueLength, rule.value);
    text('description', STEP_LIMITS.descriptionLength, 'optional');
    if (action === 'wait') {
      const t = step.timeout;
      if (t === undefined || t === null) errors.push({ field: `${at}.timeout`, message: 'is required for action "wait" (milliseconds)' });
      else if (typeof t !== 'number' || !Number.isInteger(t) || t < STEP_LIMITS.minTimeoutMs || t > STEP_LIMITS.maxTimeoutMs) {
        errors.push({ field: `${at}.timeout`, message: `must be an integer number of milliseconds from ${STEP_LIMITS.minTimeoutMs} to ${STEP_LIMITS.maxTimeoutMs}` });
      }
    } else if (step.timeout !== undefined && step.timeout !== null) {
      errors.push({ field: `${at}.timeout`, message: `is not used by action "${action}"` });
    }
    if (step.step_id !== undefined && (typeof step.step_id !== 'string' || step.step_id.length > 64)) {
      errors.push({ field: `${at}.step_id`, message: 'must be a string of at most 64 characters' });
    }
  });
  return errors;
}

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
    return step;
  });
}
