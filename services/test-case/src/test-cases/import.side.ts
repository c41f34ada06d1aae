/**
 * Selenium IDE projects (`.side`, format version 2.x): each test becomes a
 * test case, each command a step through SIDE_COMMANDS. Pure: no I/O.
 */

/** One command of a `.side` test. */
export interface SideCommand {
  command: string;
  target: string;
  /** Alternative locators the recorder saw: `[locator, strategy]`. */
  targets: string[][];
  value: string;
}

type Mapped = { step: Record<string, unknown> } | { ignore: true } | { error: string };

const WAIT_DEFAULT_MS = 30_000;

/**
 * Selenium IDE command → Assay step. Adding a command (or an action) is one
 * entry here. Commands with no entry are reported per test, like a bad CSV
 * cell, and the test is not imported: a test with a silently dropped step
 * could pass where the original fails.
 */
export const SIDE_COMMANDS: Record<string, (c: SideCommand) => Mapped> = {
  open: (c) => (c.target.trim() ? { step: { action: 'navigate', value: c.target.trim() } } : { error: 'has no URL' }),
  click: (c) => withSelector(c, (selector) => ({ action: 'click', selector })),
  clickAt: (c) => withSelector(c, (selector) => ({ action: 'click', selector })),
  // Selenium's `type` sets the field's value, as `fill` does.
  type: (c) => withSelector(c, (selector) => ({ action: 'fill', selector, value: c.value })),
  // One special key (${KEY_ENTER}) is `press`; plain text is `type` (which clears the field first); a mix has no single action.
  sendKeys: (c) => {
    const key = /^\$\{KEY_([A-Z0-9_]+)\}$/.exec(c.value.trim());
    if (key) return SIDE_KEYS[key[1]!] ? withSelector(c, (selector) => ({ action: 'press', selector, value: SIDE_KEYS[key[1]!] })) : { error: `sends the key ${c.value}, which has no name Assay knows` };
    if (/\$\{KEY_[A-Z0-9_]+\}/.test(c.value)) return { error: `mixes text and special keys (${c.value}): split it into a "type" and a "press" step` };
    return withSelector(c, (selector) => ({ action: 'type', selector, value: c.value }));
  },
  doubleClick: (c) => withSelector(c, (selector) => ({ action: 'dblclick', selector })),
  doubleClickAt: (c) => withSelector(c, (selector) => ({ action: 'dblclick', selector })),
  dragAndDropToObject: (c) => {
    const target = toSelector(c.value);
    return target === undefined ? { error: `drops on a locator Assay cannot use (${c.value || 'none'})` } : withSelector(c, (selector) => ({ action: 'drag', selector, value: target }));
  },
  assertElementNotPresent: (c) => withSelector(c, (selector) => ({ action: 'assert_hidden', selector })),
  verifyElementNotPresent: (c) => withSelector(c, (selector) => ({ action: 'assert_hidden', selector })),
  assertNotVisible: (c) => withSelector(c, (selector) => ({ action: 'assert_hidden', selector })),
  waitForElementNotVisible: (c) => withSelector(c, (selector) => ({ action: 'assert_hidden', selector })),
  waitForElementNotPresent: (c) => withSelector(c, (selector) => ({ action: 'assert_hidden', selector })),
  select: (c) => {
    const option = /^(label|value)=(.*)$/s.exec(c.value);
    if (!option) return { error: `selects by "${c.value.split('=')[0]}"; only label=... and value=... map to "select"` };
    return withSelector(c, (selector) => ({ action: 'select', selector, value: option[2] }));
  },
  addSelection: (c) => SIDE_COMMANDS.select!(c),
  check: (c) => withSelector(c, (selector) => ({ action: 'check', selector })),
  uncheck: (c) => withSelector(c, (selector) => ({ action: 'uncheck', selector })),
  mouseOver: (c) => withSelector(c, (selector) => ({ action: 'hover', selector })),
  // Assay waits for the element to be visible (present-but-hidden fails).
  waitForElementVisible: (c) => withSelector(c, (selector) => ({ action: 'wait', selector, timeout: waitTimeout(c.value) })),
  waitForElementPresent: (c) => withSelector(c, (selector) => ({ action: 'wait', selector, timeout: waitTimeout(c.value) })),
  assertElementPresent: (c) => withSelector(c, (selector) => ({ action: 'assert_visible', selector })),
  verifyElementPresent: (c) => withSelector(c, (selector) => ({ action: 'assert_visible', selector })),
  // Selenium compares the whole text; Assay's assert_text passes when the text contains the value.
  assertText: (c) => withSelector(c, (selector) => ({ action: 'assert_text', selector, value: c.value })),
  verifyText: (c) => withSelector(c, (selector) => ({ action: 'assert_text', selector, value: c.value })),
  assertValue: (c) => withSelector(c, (selector) => ({ action: 'assert_value', selector, value: c.value })),
  verifyValue: (c) => withSelector(c, (selector) => ({ action: 'assert_value', selector, value: c.value })),
  assertSelectedValue: (c) => withSelector(c, (selector) => ({ action: 'assert_value', selector, value: c.value })),
  verifySelectedValue: (c) => withSelector(c, (selector) => ({ action: 'assert_value', selector, value: c.value })),
  // Recorder bookkeeping that changes no outcome: window size, speed, log lines, explicit sleeps.
  setWindowSize: () => ({ ignore: true }),
  setSpeed: () => ({ ignore: true }),
  echo: () => ({ ignore: true }),
  pause: () => ({ ignore: true }),
};

/** Selenium IDE's ${KEY_…} names → the key names `press` takes. */
const SIDE_KEYS: Record<string, string> = {
  ENTER: 'Enter',
  RETURN: 'Enter',
  TAB: 'Tab',
  ESC: 'Escape',
  ESCAPE: 'Escape',
  BACKSPACE: 'Backspace',
  BKSP: 'Backspace',
  DELETE: 'Delete',
  DEL: 'Delete',
  SPACE: 'Space',
  UP: 'ArrowUp',
  DOWN: 'ArrowDown',
  LEFT: 'ArrowLeft',
  RIGHT: 'ArrowRight',
  HOME: 'Home',
  END: 'End',
  PAGE_UP: 'PageUp',
  PAGE_DOWN: 'PageDown',
  ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`F${i + 1}`, `F${i + 1}`])),
};

function waitTimeout(value: string): number {
  const ms = /^\s*\d+\s*$/.test(value) ? Number(value) : WAIT_DEFAULT_MS;
  return Math.min(Math.max(ms, 1), 300_000);
}

function withSelector(c: SideCommand, make: (selector: string) => Record<string, unknown>): Mapped {
  const selector = selectorOf(c);
  return selector === undefined ? { error: `has a locator Assay cannot use (${c.target || 'none'})` } : { step: make(selector) };
}

/** The command's locator as a selector the runner accepts; its recorded alternatives when the target has none. */
function selectorOf(c: SideCommand): string | undefined {
  const first = toSelector(c.target);
  if (first !== undefined) return first;
  for (const [locator] of c.targets) {
    const s = locator === undefined ? undefined : toSelector(locator);
    if (s !== undefined) return s;
  }
  return undefined;
}

const cssString = (v: string) => `"${v.replace(/["\\]/g, '\\$&')}"`;

/** An XPath string literal, or undefined when the text holds both quote kinds. */
const xpathString = (v: string) => (!v.includes('"') ? `"${v}"` : !v.includes("'") ? `'${v}'` : undefined);

/**
 * A Selenium locator (`id=`, `name=`, `css=`, `xpath=`, `linkText=`,
 * `partialLinkText=`, `identifier=`, a bare `//xpath`) as a CSS selector or a
 * Playwright `xpath=` selector; undefined for `dom=` and anything unknown.
 */
export function toSelector(locator: string): string | undefined {
  const l = locator.trim();
  if (l === '') return undefined;
  if (l.startsWith('//') || l.startsWith('(//')) return `xpath=${l}`;
  const at = l.indexOf('=');
  if (at === -1) return undefined;
  const kind = l.slice(0, at);
  const v = l.slice(at + 1);
  if (v === '') return undefined;
  switch (kind) {
    case 'id':
      return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(v) ? `#${v}` : `[id=${cssString(v)}]`;
    case 'name':
      return `[name=${cssString(v)}]`;
    case 'identifier':
      return `[id=${cssString(v)}], [name=${cssString(v)}]`;
    case 'css':
      return v;
    case 'xpath':
      return `xpath=${v}`;
    case 'linkText': {
      const s = xpathString(v);
      return s && `xpath=//a[normalize-space(.)=${s}]`;
    }
    case 'partialLinkText': {
      const s = xpathString(v);
      return s && `xpath=//a[contains(normalize-space(.), ${s})]`;
    }
    default:
      return undefined;
  }
}

/** True for a parsed JSON document that is a Selenium IDE project. */
export function isSideProject(root: unknown): root is { tests: unknown[] } {
  return typeof root === 'object' && root !== null && !Array.isArray(root) && Array.isArray((root as { tests?: unknown }).tests) && typeof (root as { version?: unknown }).version === 'string';
}

/**
 * The steps of one `.side` test, and a problem for each command that maps to
 * no action (`command 4 "runScript": ...`). Commands the IDE disabled (`//click`) are skipped.
 */
export function mapSideTest(test: unknown): { name: string; steps: Array<Record<string, unknown>>; commands: string[]; problems: string[] } {
  const t = (typeof test === 'object' && test !== null ? test : {}) as { name?: unknown; commands?: unknown };
  const name = typeof t.name === 'string' ? t.name.trim() : '';
  if (!Array.isArray(t.commands)) return { name, steps: [], commands: [], problems: ['commands must be an array'] };
  const steps: Array<Record<string, unknown>> = [];
  const commands: string[] = []; // `command 3 "type"` for each step, for messages
  const problems: string[] = [];
  t.commands.forEach((raw, i) => {
    const c = readCommand(raw);
    if (!c) return void problems.push(`command ${i + 1} is not a {command, target, value} object`);
    if (c.command === '' || c.command.startsWith('//')) return;
    const map = Object.hasOwn(SIDE_COMMANDS, c.command) ? SIDE_COMMANDS[c.command]! : undefined;
    if (!map) return void problems.push(`command ${i + 1} "${c.command}" has no Assay action`);
    const mapped = map(c);
    if ('error' in mapped) problems.push(`command ${i + 1} "${c.command}" ${mapped.error}`);
    else if ('step' in mapped) {
      steps.push(mapped.step);
      commands.push(`command ${i + 1} "${c.command}"`);
    }
  });
  return { name, steps, commands, problems };
}

function readCommand(raw: unknown): SideCommand | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.command !== 'string') return undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
  const targets = Array.isArray(r.targets) ? r.targets.filter((t): t is string[] => Array.isArray(t) && typeof t[0] === 'string') : [];
  return { command: r.command.trim(), target: text(r.target), targets, value: text(r.value) };
}
