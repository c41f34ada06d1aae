/**
 * The step actions and which fields each takes, for the editor's form. The
 * server's table (libs/contracts STEP_ACTIONS) stays the authority: it
 * validates every save, and its field errors are shown next to the field.
 */
export type Need = 'required' | 'optional' | 'no';

export const ACTIONS: Record<string, { selector: Need; value: Need; timeout?: true; call?: true; hint: string }> = {
  navigate: { selector: 'no', value: 'required', hint: 'A path joined to the base URL, or an absolute URL' },
  click: { selector: 'required', value: 'no', hint: 'Click the element' },
  fill: { selector: 'required', value: 'required', hint: 'Set the input’s value (empty clears it)' },
  type: { selector: 'required', value: 'required', hint: 'Type the text key by key' },
  select: { selector: 'required', value: 'required', hint: 'Option value or label' },
  check: { selector: 'required', value: 'no', hint: 'Check a checkbox or radio' },
  uncheck: { selector: 'required', value: 'no', hint: 'Uncheck a checkbox' },
  hover: { selector: 'required', value: 'no', hint: 'Move the mouse over the element' },
  screenshot: { selector: 'optional', value: 'no', hint: 'PNG of the element or the page' },
  wait: { selector: 'required', value: 'no', timeout: true, hint: 'Wait for the element to be visible' },
  assert_visible: { selector: 'required', value: 'no', hint: 'The element is visible' },
  assert_text: { selector: 'required', value: 'required', hint: 'Text contains the value; /regex/ matches' },
  assert_value: { selector: 'required', value: 'required', hint: 'The input’s value is exactly the value' },
  dblclick: { selector: 'required', value: 'no', hint: 'Double-click the element' },
  press: { selector: 'optional', value: 'required', hint: 'A key or chord: Enter, Control+A' },
  assert_hidden: { selector: 'required', value: 'no', hint: 'No matching element is visible' },
  assert_count: { selector: 'required', value: 'required', hint: 'Exactly that many elements match' },
  assert_attribute: { selector: 'required', value: 'required', hint: 'name=expected, name=/re/, name~=token or name' },
  assert_url: { selector: 'no', value: 'required', hint: 'The URL contains the value; /regex/ matches' },
  go_back: { selector: 'no', value: 'no', hint: 'Back in history' },
  go_forward: { selector: 'no', value: 'no', hint: 'Forward in history' },
  reload: { selector: 'no', value: 'no', hint: 'Reload the page' },
  upload: { selector: 'required', value: 'required', hint: 'The id of an uploaded artifact' },
  drag: { selector: 'required', value: 'required', hint: 'Drop on the element the value selects' },
  assert_accessible: { selector: 'optional', value: 'optional', hint: 'axe scan: wcag2a, wcag2aa (default), wcag21aa or best-practice, then an impact floor' },
  request: { selector: 'no', value: 'no', call: true, hint: 'HTTP call: {"request": {...}, "expect": ["status=201"], "save_as": {"id": "$.id"}}' },
};

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
}): EditableStep {
  const out: EditableStep = { ...(s.step_id ? { step_id: s.step_id } : {}), action: s.action, selector: s.selector ?? '', value: s.value ?? '', description: s.description ?? '', timeout: s.timeout ? String(s.timeout) : '' };
  if (s.action === 'request') {
    out.call = JSON.stringify({ request: s.request, ...(s.expect !== undefined ? { expect: s.expect } : {}), ...(s.save_as !== undefined ? { save_as: s.save_as } : {}) }, null, 2);
  }
  return out;
}

/** The API body of a step: fields the action does not take are left out. */
export function toApiStep(s: EditableStep): Record<string, unknown> {
  const rule = ACTIONS[s.action];
  const out: Record<string, unknown> = { action: s.action };
  if (s.step_id) out.step_id = s.step_id;
  if (s.description.trim()) out.description = s.description;
  // An empty optional selector means "the page"; an empty required one goes to the server, which names the field.
  if (rule?.selector !== 'no' && (s.selector !== '' || rule?.selector === 'required')) out.selector = s.selector;
  if (rule?.value !== 'no') out.value = s.value;
  if (s.timeout !== '') out.timeout = Number(s.timeout);
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
