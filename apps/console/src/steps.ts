import { STEP_ACTIONS, type StepAction, type StepActionInfo, type StepParam } from '@assay/contracts/catalogues';

/**
 * The step actions and which fields each takes, for the editor's form, read
 * from the contracts' step table (`@assay/contracts/catalogues`): an action
 * added there shows up here with its fields. The server stays the authority:
 * it validates every save, and its field errors are shown next to the field.
 */
export type Need = StepParam;

export interface ActionForm {
  selector: Need;
  value: Need;
  /** Takes a timeout (`wait`). */
  timeout: boolean;
  /** Takes an HTTP call: request, expect, save_as (`request`). */
  call: boolean;
  /** Takes the visual comparison's mask, threshold and max_diff_ratio (`assert_screenshot`). */
  visual: boolean;
  hint: string;
}

/** Shorter words than the table's `meaning` where the form has little room; an action without one shows its meaning. */
const HINTS: { [A in StepAction]?: string } = {
  navigate: 'A path joined to the base URL, or an absolute URL',
  click: 'Click the element',
  fill: 'Set the input’s value (empty clears it)',
  type: 'Type the text key by key',
  select: 'Option value or label',
  check: 'Check a checkbox or radio',
  uncheck: 'Uncheck a checkbox',
  hover: 'Move the mouse over the element',
  screenshot: 'PNG of the element or the page',
  wait: 'Wait for the element to be visible',
  assert_visible: 'The element is visible',
  assert_text: 'Text contains the value; /regex/ matches',
  assert_value: 'The input’s value is exactly the value',
  dblclick: 'Double-click the element',
  press: 'A key or chord: Enter, Control+A',
  assert_hidden: 'No matching element is visible',
  assert_count: 'Exactly that many elements match',
  assert_attribute: 'name=expected, name=/re/, name~=token or name',
  assert_url: 'The URL contains the value; /regex/ matches',
  go_back: 'Back in history',
  go_forward: 'Forward in history',
  reload: 'Reload the page',
  upload: 'The id of an uploaded artifact',
  drag: 'Drop on the element the value selects',
  assert_accessible: 'axe scan: wcag2a, wcag2aa (default), wcag21aa or best-practice, then an impact floor',
  assert_screenshot: 'Compare with the baseline (element, else the viewport); value: an optional name',
  request: 'HTTP call: {"request": {...}, "expect": ["status=201"], "save_as": {"id": "$.id"}}',
};

function formOf(action: StepAction, info: StepActionInfo): ActionForm {
  const fields = info.fields ?? {};
  return { selector: info.selector, value: info.value, timeout: 'timeout' in fields, call: 'request' in fields, visual: 'mask' in fields, hint: HINTS[action] ?? info.meaning };
}

/** Every action of the contracts' table, in its order, with its form. */
export const ACTIONS = Object.fromEntries(Object.entries(STEP_ACTIONS).map(([action, info]) => [action, formOf(action as StepAction, info)])) as Record<StepAction, ActionForm>;

/** The form of an action, or undefined for one the table does not name. */
export function actionForm(action: string): ActionForm | undefined {
  return Object.hasOwn(ACTIONS, action) ? ACTIONS[action as StepAction] : undefined;
}

/** A request step's call as the editor shows it: one JSON object with request, expect and save_as. */
export const REQUEST_TEMPLATE = JSON.stringify({ request: { method: 'GET', url: '/api/' }, expect: ['status=200'] }, null, 2);

export interface EditableStep {
  step_id?: string;
  action: string;
  selector: string;
  value: string;
  description: string;
  timeout: string;
  /** `request` steps: JSON of {request, expect, save_as}. */
  call?: string;
  /** `assert_screenshot` steps: mask selectors, one per line; threshold and max_diff_ratio as typed. */
  mask?: string;
  threshold?: string;
  max_diff_ratio?: string;
}

export function toEditable(s: {
  step_id?: string;
  action: string;
  selector?: string | null;
  value?: string | null;
  description?: string | null;
  timeout?: number | null;
  request?: unknown;
  expect?: unknown;
  save_as?: unknown;
  mask?: string[] | null;
  threshold?: number | null;
  max_diff_ratio?: number | null;
}): EditableStep {
  const out: EditableStep = { ...(s.step_id ? { step_id: s.step_id } : {}), action: s.action, selector: s.selector ?? '', value: s.value ?? '', description: s.description ?? '', timeout: s.timeout ? String(s.timeout) : '' };
  if (s.action === 'request') {
    out.call = JSON.stringify({ request: s.request, ...(s.expect !== undefined ? { expect: s.expect } : {}), ...(s.save_as !== undefined ? { save_as: s.save_as } : {}) }, null, 2);
  }
  if (s.action === 'assert_screenshot') {
    out.mask = (s.mask ?? []).join('\n');
    out.threshold = typeof s.threshold === 'number' ? String(s.threshold) : '';
    out.max_diff_ratio = typeof s.max_diff_ratio === 'number' ? String(s.max_diff_ratio) : '';
  }
  return out;
}

/** The API body of a step: fields the action does not take are left out. */
export function toApiStep(s: EditableStep): Record<string, unknown> {
  const rule = actionForm(s.action);
  const out: Record<string, unknown> = { action: s.action };
  if (s.step_id) out.step_id = s.step_id;
  if (s.description.trim()) out.description = s.description;
  // An empty optional selector means "the page"; an empty required one goes to the server, which names the field.
  if (rule?.selector !== 'no' && (s.selector !== '' || rule?.selector === 'required')) out.selector = s.selector;
  if (rule?.value !== 'no') out.value = s.value;
  if (s.timeout !== '') out.timeout = Number(s.timeout);
  if (rule?.visual) {
    const mask = (s.mask ?? '').split('\n').map((m) => m.trim()).filter(Boolean);
    if (mask.length) out.mask = mask;
    // A number typed badly is sent as it is, so the server's 400 names the field.
    for (const key of ['threshold', 'max_diff_ratio'] as const) {
      const raw = (s[key] ?? '').trim();
      if (raw !== '') out[key] = Number.isFinite(Number(raw)) ? Number(raw) : raw;
    }
  }
  if (rule?.call) {
    // Not JSON: sent as it is, so the server's 400 names the request field.
    let call: unknown = s.call ?? '';
    try {
      call = JSON.parse(s.call ?? '');
    } catch {
      out.request = s.call ?? '';
      return out;
    }
    const c = (call && typeof call === 'object' ? call : {}) as Record<string, unknown>;
    for (const key of ['request', 'expect', 'save_as']) if (c[key] !== undefined) out[key] = c[key];
  }
  return out;
}
