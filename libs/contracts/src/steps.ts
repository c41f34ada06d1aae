import { RE2 } from 're2-wasm';
import type { FieldError } from './field-error.js';
import { validateRequestStep, type StepRequest } from './request-step.js';
import { STEP_ACTIONS, STEP_FIELDS, type StepAction, type StepActionInfo, type StepField } from './step-actions.js';

export { SPEC_STEP_ACTIONS, STEP_ACTIONS, STEP_FIELDS, type StepAction, type StepActionInfo, type StepField, type StepParam } from './step-actions.js';

/** An action's table entry with the check of its value's format. */
export interface StepActionSpec extends StepActionInfo {
  /** The value's format: the problem with `value`, or undefined. Not applied to values holding a `{{placeholder}}`. */
  checkValue?: (value: string) => string | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Most elements `assert_count` can expect. */
export const MAX_EXPECTED_COUNT = 100_000;

/** The format checks of the actions whose value has one. */
const VALUE_CHECKS: { [A in StepAction]?: (value: string) => string | undefined } = {
  assert_text: checkPatternValue,
  press: checkKeyChord,
  assert_count: checkCount,
  assert_attribute: (v) => {
    const parsed = parseAttributeCheck(v);
    return 'error' in parsed ? parsed.error : undefined;
  },
  assert_url: checkPatternValue,
  upload: (v) => (UUID.test(v) ? undefined : 'must be the id of an artifact uploaded with POST /api/v1/artifacts'),
  assert_accessible: (v) => {
    const parsed = parseAccessibilityCheck(v);
    return 'error' in parsed ? parsed.error : undefined;
  },
  assert_screenshot: checkScreenshotName,
};

const SPECS = new Map<string, StepActionSpec>(
  Object.entries(STEP_ACTIONS as Record<StepAction, StepActionInfo>).map(([action, info]) => {
    const checkValue = VALUE_CHECKS[action as StepAction];
    return [action, checkValue ? { ...info, checkValue } : info];
  }),
);

/** The action's table entry, or undefined for an unknown action. */
export function stepActionSpec(action: string): StepActionSpec | undefined {
  return SPECS.get(action);
}

const PLACEHOLDER = /\{\{\s*[A-Za-z_][A-Za-z0-9_.-]*\s*\}\}/;

/** True when the text holds a `{{name}}` placeholder: its format can only be checked after substitution, at run time. */
export function hasPlaceholder(text: string): boolean {
  return PLACEHOLDER.test(text);
}

// ---------------------------------------------------------------- patterns

/** The regular expression inside a value written `/…/` (at least one character between the slashes), or undefined for a plain value. */
export function patternSource(value: string): string | undefined {
  return value.length >= 3 && value.startsWith('/') && value.endsWith('/') ? value.slice(1, -1) : undefined;
}

/** A compiled regular expression; `dispose` frees it. */
export interface CompiledPattern {
  readonly source: string;
  test(text: string): boolean;
  dispose(): void;
}

/** Thrown by compilePattern for a pattern RE2 cannot compile. */
export class PatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatternError';
  }
}

/**
 * Compiles a regular expression written by a user with RE2 (through
 * WebAssembly): matching takes time linear in the text, so no pattern can
 * stall the process that runs it. JavaScript syntax without lookaround and
 * backreferences. Call `dispose` when done: the compiled form lives in
 * WebAssembly memory, which the garbage collector does not see.
 * @throws PatternError with a readable reason.
 */
export function compilePattern(source: string): CompiledPattern {
  let re: RE2;
  try {
    re = new RE2(source, 'u');
  } catch (err) {
    const reason = (err instanceof Error ? err.message : String(err)).replace(/^Invalid regular expression: \/.*\/u: /s, '');
    const hint = /perl operator|escape sequence/.test(reason) ? ' (lookaround and backreferences are not supported)' : '';
    throw new PatternError(`is not a valid regular expression: ${reason}${hint}`);
  }
  // re2-wasm keeps the compiled expression in an Emscripten object reachable only through this field.
  const wrapper = (re as unknown as { wrapper?: { delete?: () => void } }).wrapper;
  let disposed = false;
  return {
    source,
    test: (text) => {
      re.lastIndex = 0;
      return re.test(text);
    },
    dispose: () => {
      if (disposed) return;
      disposed = true;
      wrapper?.delete?.();
    },
  };
}

/** The problem with a value that may be a `/regex/`, or undefined. */
export function checkPatternValue(value: string): string | undefined {
  const source = patternSource(value);
  if (source === undefined) return undefined;
  try {
    compilePattern(source).dispose();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

// ---------------------------------------------------------------- assert_count

function checkCount(value: string): string | undefined {
  const v = value.trim();
  return /^[0-9]{1,6}$/.test(v) && Number(v) <= MAX_EXPECTED_COUNT ? undefined : `must be a whole number of elements from 0 to ${MAX_EXPECTED_COUNT}`;
}

/** The expected count of an `assert_count` value, or undefined when it is not one. */
export function parseExpectedCount(value: string): number | undefined {
  return checkCount(value) === undefined ? Number(value.trim()) : undefined;
}

// ---------------------------------------------------------------- assert_attribute

export type AttributeCheck =
  | { name: string; op: 'present' }
  | { name: string; op: 'equals'; expected: string }
  | { name: string; op: 'pattern'; source: string }
  | { name: string; op: 'token'; token: string };

const ATTRIBUTE_NAME = /^[^\s"'<>/=~]+$/;

/**
 * Parses an `assert_attribute` value: `name=expected`, `name=/regex/`,
 * `name~=token` or `name`. The name is matched case-insensitively by the
 * browser (HTML attribute names are).
 */
export function parseAttributeCheck(value: string): AttributeCheck | { error: string } {
  const form = 'must be name=expected, name=/regex/, name~=word or a bare attribute name (e.g. class~=selected)';
  const eq = value.indexOf('=');
  const rawName = eq === -1 ? value : value.slice(0, value[eq - 1] === '~' ? eq - 1 : eq);
  const name = rawName.trim();
  if (!ATTRIBUTE_NAME.test(name)) return { error: form };
  if (eq === -1) return { name, op: 'present' };
  const expected = value.slice(eq + 1);
  if (value[eq - 1] === '~') {
    const token = expected.trim();
    if (token === '' || /\s/.test(token)) return { error: `${form}; after ~= comes one word` };
    return { name, op: 'token', token };
  }
  const source = patternSource(expected);
  if (source !== undefined) {
    const problem = checkPatternValue(expected);
    return problem ? { error: problem } : { name, op: 'pattern', source };
  }
  return { name, op: 'equals', expected };
}

// ---------------------------------------------------------------- assert_accessible

export const ACCESSIBILITY_STANDARDS = {
  wcag2a: ['wcag2a'],
  wcag2aa: ['wcag2a', 'wcag2aa'],
  wcag21aa: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'],
  'best-practice': ['best-practice'],
} as const;
export const IMPACTS = ['minor', 'moderate', 'serious', 'critical'] as const;
export type Impact = (typeof IMPACTS)[number];

/** An `assert_accessible` value: `[standard] [impact]`, both optional (`wcag2aa`, `minor`). */
export function parseAccessibilityCheck(value: string | undefined): { standard: keyof typeof ACCESSIBILITY_STANDARDS; tags: readonly string[]; minImpact: Impact } | { error: string } {
  const words = (value ?? '').trim().split(/\s+/).filter(Boolean);
  let standard: keyof typeof ACCESSIBILITY_STANDARDS = 'wcag2aa';
  let minImpact: Impact = 'minor';
  const form = `must be a standard (${Object.keys(ACCESSIBILITY_STANDARDS).join(', ')}) optionally followed by the lowest impact that fails (${IMPACTS.join(', ')}), e.g. "wcag2aa serious"`;
  if (words.length > 2) return { error: form };
  for (const w of words) {
    if (Object.hasOwn(ACCESSIBILITY_STANDARDS, w) && w === words[0]) standard = w as typeof standard;
    else if ((IMPACTS as readonly string[]).includes(w) && (w === words[1] || words.length === 1)) minImpact = w as Impact;
    else return { error: form };
  }
  return { standard, tags: ACCESSIBILITY_STANDARDS[standard], minImpact };
}

// ---------------------------------------------------------------- assert_screenshot

/** Bounds of `assert_screenshot`'s options. */
export const SCREENSHOT_LIMITS = { nameLength: 100, maxMasks: 20, defaultThreshold: 0.1, defaultMaxDiffRatio: 0 } as const;

function checkScreenshotName(value: string): string | undefined {
  // Empty: no name (the console sends an empty optional field).
  return value === '' || /^[A-Za-z0-9][A-Za-z0-9 _.-]*$/.test(value) && value.length <= SCREENSHOT_LIMITS.nameLength
    ? undefined
    : `must be a name of at most ${SCREENSHOT_LIMITS.nameLength} letters, digits, spaces, dots, dashes or underscores (e.g. "hero banner")`;
}

function validateScreenshotOptions(step: Record<string, unknown>, at: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of ['threshold', 'max_diff_ratio'] as const) {
    const v = step[key];
    if (v !== undefined && v !== null && (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1)) {
      errors.push({ field: `${at}.${key}`, message: 'must be a number from 0 to 1' });
    }
  }
  const mask = step.mask;
  if (mask !== undefined && mask !== null) {
    if (!Array.isArray(mask) || mask.length > SCREENSHOT_LIMITS.maxMasks) {
      errors.push({ field: `${at}.mask`, message: `must be an array of at most ${SCREENSHOT_LIMITS.maxMasks} selectors` });
    } else {
      mask.forEach((m, j) => {
        if (typeof m !== 'string' || m.trim() === '' || m.length > STEP_LIMITS.selectorLength) {
          errors.push({ field: `${at}.mask[${j}]`, message: `must be a selector (a non-empty string of at most ${STEP_LIMITS.selectorLength} characters)` });
        }
      });
    }
  }
  return errors;
}

// ---------------------------------------------------------------- press

/** Key names Playwright's keyboard knows besides single characters (its US layout's codes and the modifiers). */
const KEY_NAMES = new Set(
  (
    'Escape F1 F2 F3 F4 F5 F6 F7 F8 F9 F10 F11 F12 Backquote Minus Equal Backslash Backspace Tab BracketLeft BracketRight CapsLock ' +
    'Semicolon Quote Enter ShiftLeft ShiftRight ControlLeft ControlRight MetaLeft MetaRight AltLeft AltRight AltGraph Comma Period Slash Space ' +
    'ContextMenu PrintScreen ScrollLock Pause PageUp PageDown Insert Delete Home End ArrowLeft ArrowUp ArrowRight ArrowDown ' +
    'AudioVolumeMute AudioVolumeDown AudioVolumeUp MediaTrackNext MediaTrackPrevious MediaPlayPause NumLock NumpadDivide NumpadMultiply ' +
    'NumpadSubtract NumpadAdd NumpadDecimal NumpadEnter Shift Control Alt Meta ControlOrMeta'
  )
    .split(' ')
    .concat(Array.from({ length: 10 }, (_, i) => [`Digit${i}`, `Numpad${i}`]).flat())
    .concat(Array.from({ length: 26 }, (_, i) => `Key${String.fromCharCode(65 + i)}`)),
);
const MODIFIERS = new Set(['Shift', 'Control', 'Alt', 'Meta', 'ControlOrMeta']);

/** The problem with a `press` value (`Enter`, `Control+A`, `a`), or undefined. */
export function checkKeyChord(value: string): string | undefined {
  // "+" alone, or as the last key of a chord ("Shift++"), is the plus key.
  const parts = value === '+' ? ['+'] : value.endsWith('++') ? [...value.slice(0, -2).split('+'), '+'] : value.split('+');
  const key = parts[parts.length - 1]!;
  const isKey = (k: string) => KEY_NAMES.has(k) || [...k].length === 1;
  if (key === '' || !isKey(key)) {
    return `"${key}" is not a key: use a key name (Enter, Escape, Tab, Backspace, ArrowDown, F2, ...) or a single character, with modifiers as in Control+A`;
  }
  const bad = parts.slice(0, -1).find((m) => !MODIFIERS.has(m));
  if (bad !== undefined) return `"${bad}" is not a modifier: chords are modifiers (Shift, Control, Alt, Meta, ControlOrMeta) joined with + to one key, as in Control+A`;
  return undefined;
}

// Step validation, shared by test cases and exploratory test runs.

export interface Step {
  step_id: string;
  action: StepAction;
  description?: string;
  selector?: string;
  value?: string;
  /** Milliseconds; `wait` only. */
  timeout?: number;
  /** `request` only: the HTTP call. */
  request?: StepRequest;
  /** `request` only: assertions on the response (`status=201`, `$.id exists`). */
  expect?: string[];
  /** `request` only: variable name to JSON path of the response (`{"order_id": "$.id"}`). */
  save_as?: Record<string, string>;
  /** `assert_screenshot` only: per-pixel colour distance (0–1) below which pixels count as equal. */
  threshold?: number;
  /** `assert_screenshot` only: the share of pixels (0–1) that may differ and still pass. */
  max_diff_ratio?: number;
  /** `assert_screenshot` only: selectors painted over in both images (dates, avatars). */
  mask?: string[];
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
      // Every action takes these; a timeout is checked below with its value.
      if (['step_id', 'action', 'description', 'selector', 'value', 'timeout'].includes(key)) continue;
      if (!(STEP_FIELDS as readonly string[]).includes(key)) errors.push({ field: `${at}.${key}`, message: 'is not a known step field' });
      else if (!rule.fields?.[key as StepField]) errors.push({ field: `${at}.${key}`, message: `is not used by action "${action}"` });
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
    if (action === 'request') errors.push(...validateRequestStep(step, at));
    if (action === 'assert_screenshot') errors.push(...validateScreenshotOptions(step, at));
    if (rule.fields?.timeout) {
      const t = step.timeout;
      if (t === undefined || t === null) errors.push({ field: `${at}.timeout`, message: `is required for action "${action}" (milliseconds)` });
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

