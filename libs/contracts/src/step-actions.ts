/**
 * The step action table without its value checks: what each action takes
 * and means. It loads no validator (no re2), so the console reads it from the
 * light entry `@assay/contracts/catalogues`; `steps.ts` adds each action's
 * value check and validates steps against it.
 */

/** Whether an action takes a parameter: `no` refuses it, `required` needs it. */
export type StepParam = 'required' | 'optional' | 'no';

/** The step fields an action may take besides selector, value and description. */
export type StepField = 'timeout' | 'request' | 'expect' | 'save_as' | 'threshold' | 'max_diff_ratio' | 'mask';

export interface StepActionInfo {
  selector: StepParam;
  value: StepParam;
  /** An empty `value` means something (an empty field, clearing one); otherwise it must not be empty. */
  emptyValue?: boolean;
  /** The other fields it takes (no other action takes them), each required or optional. */
  fields?: { readonly [F in StepField]?: 'required' | 'optional' };
  /** What the step does, one sentence for the docs. */
  meaning: string;
  /** One example step. */
  example: { selector?: string; value?: string; timeout?: number };
}

/**
 * Every step action with its parameters: the spec's 13 first, then the ones
 * a real suite needs (keyboard, double-click, negative, count, attribute and
 * URL assertions, history, upload, drag). Validation, the CSV grammar, the
 * OpenAPI description, the console's editor and docs/steps.md follow this table.
 */
export const STEP_ACTIONS = {
  navigate: { selector: 'no', value: 'required', meaning: 'Go to a path joined to the base URL, or to an absolute URL.', example: { value: '/login' } },
  click: { selector: 'required', value: 'no', meaning: 'Click the element.', example: { selector: '#submit' } },
  fill: {
    selector: 'required',
    value: 'required',
    emptyValue: true,
    meaning: 'Set the input’s value at once (an empty value clears it).',
    example: { selector: '#email', value: 'user@shop.test' },
  },
  type: { selector: 'required', value: 'required', meaning: 'Clear the input and type the text key by key (`\\n` presses Enter).', example: { selector: '#q', value: 'shoes' } },
  select: { selector: 'required', value: 'required', meaning: 'Choose the option whose value, or else label, is the value.', example: { selector: '#country', value: 'Germany' } },
  check: { selector: 'required', value: 'no', meaning: 'Check a checkbox or radio button.', example: { selector: '#terms' } },
  uncheck: { selector: 'required', value: 'no', meaning: 'Uncheck a checkbox.', example: { selector: '#newsletter' } },
  hover: { selector: 'required', value: 'no', meaning: 'Move the mouse over the element.', example: { selector: '#menu' } },
  screenshot: { selector: 'optional', value: 'no', meaning: 'Store a PNG of the element, or of the whole page.', example: {} },
  wait: { selector: 'required', value: 'no', fields: { timeout: 'required' }, meaning: 'Wait up to `timeout` milliseconds for the element to be visible.', example: { selector: '#late', timeout: 3000 } },
  assert_visible: { selector: 'required', value: 'no', meaning: 'The element is visible (waits up to the step timeout).', example: { selector: '#welcome' } },
  assert_text: {
    selector: 'required',
    value: 'required',
    emptyValue: true,
    meaning:
      'The element’s text (whitespace collapsed) contains the value; `/…/` is a regular expression instead (`/^…$/` for the whole text); an empty value means the text is empty.',
    example: { selector: '#total', value: 'Total: $20' },
  },
  assert_value: {
    selector: 'required',
    value: 'required',
    emptyValue: true,
    meaning: 'The input’s value is exactly the value (empty: the input is empty).',
    example: { selector: '#new-todo', value: '' },
  },
  dblclick: { selector: 'required', value: 'no', meaning: 'Double-click the element.', example: { selector: '#todo-list li label' } },
  press: {
    selector: 'optional',
    value: 'required',
    meaning: 'Press a key or chord (`Enter`, `Escape`, `Tab`, `Control+A`, `a`) on the element, or on the page without a selector.',
    example: { selector: '#new-todo', value: 'Enter' },
  },
  assert_hidden: {
    selector: 'required',
    value: 'no',
    meaning: 'No element matching the selector is visible (absent or hidden); waits up to the step timeout for it to go.',
    example: { selector: '#clear-completed' },
  },
  assert_count: {
    selector: 'required',
    value: 'required',
    meaning: 'Exactly that many elements match the selector, visible or not (add `:visible` to count only visible ones); waits up to the step timeout.',
    example: { selector: '#todo-list li', value: '3' },
  },
  assert_attribute: {
    selector: 'required',
    value: 'required',
    meaning:
      'Attribute check: `name=expected` (exact), `name=/regex/`, `name~=token` (one of its space-separated words, e.g. `class~=selected`), or `name` alone (present).',
    example: { selector: '#filters a[href="#/active"]', value: 'class~=selected' },
  },
  assert_url: {
    selector: 'no',
    value: 'required',
    meaning: 'The page URL contains the value, or matches it when written `/…/` (a regular expression); waits up to the step timeout.',
    example: { value: '#/active' },
  },
  go_back: { selector: 'no', value: 'no', meaning: 'Go back one page in the tab’s history.', example: {} },
  go_forward: { selector: 'no', value: 'no', meaning: 'Go forward one page in the tab’s history.', example: {} },
  reload: { selector: 'no', value: 'no', meaning: 'Reload the page.', example: {} },
  upload: {
    selector: 'required',
    value: 'required',
    meaning: 'Set a file input to an artifact uploaded earlier with `POST /api/v1/artifacts` (its id as the value).',
    example: { selector: '#file', value: '3f0c8a52-5d3e-4b8e-9a41-0d6f1c2b7e90' },
  },
  drag: {
    selector: 'required',
    value: 'required',
    meaning: 'Drag the element and drop it on the element the value selects.',
    example: { selector: '#card-1', value: '#done-column' },
  },
  assert_accessible: {
    selector: 'optional',
    value: 'optional',
    meaning:
      'axe-core scans the element (or the whole page) for a standard: `wcag2a`, `wcag2aa` (the default), `wcag21aa` or `best-practice`, optionally followed by the lowest impact that fails (`minor` (default), `moderate`, `serious`, `critical`), e.g. `wcag2aa serious`; a failure names each rule, its impact, its help URL and the nodes.',
    example: { value: 'wcag2aa' },
  },
  assert_screenshot: {
    selector: 'optional',
    value: 'optional',
    fields: { threshold: 'optional', max_diff_ratio: 'optional', mask: 'optional' },
    meaning:
      'Visual comparison: a PNG of the element (or the viewport) once the page is still (fonts loaded, animations finished, two equal captures) against the baseline of this case, step, browser and viewport; the first passing run stores the baseline. The value is an optional name; `threshold` (per-pixel colour distance 0–1, default 0.1), `max_diff_ratio` (share of pixels allowed to differ, default 0) and `mask` (selectors painted over in both images) tune it; a failure stores the actual, expected and diff images and names the share of differing pixels.',
    example: { selector: '#hero' },
  },
  request: {
    selector: 'no',
    value: 'no',
    fields: { request: 'required', expect: 'optional', save_as: 'optional' },
    meaning:
      'An HTTP call from the test through the egress guard: `request` {method, url (joined to the base URL unless absolute), headers, body (sent as JSON)}; `expect` lines (`status=201`, `$.id exists`, `$.error !exists`, `$.items.length>=3`, `$.name="Ada"`) must all hold; `save_as` keeps values for later steps (`{"order_id": "$.id"}` then `{{order_id}}`).',
    example: {},
  },
} as const satisfies Record<string, StepActionInfo>;

export type StepAction = keyof typeof STEP_ACTIONS;

/** The spec's 13 actions, in its order. */
export const SPEC_STEP_ACTIONS: readonly StepAction[] = Object.keys(STEP_ACTIONS).slice(0, 13) as StepAction[];

/** Every field of `StepField`, in the order the docs name them. */
export const STEP_FIELDS: readonly StepField[] = ['timeout', 'request', 'expect', 'save_as', 'threshold', 'max_diff_ratio', 'mask'];
