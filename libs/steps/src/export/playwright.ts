import { parseAccessibilityCheck, type Step, type StepAction } from '@assay/contracts';

/** What one step becomes: its locator expression (when it has a selector) and its value expression. */
interface StepCode {
  step: Step;
  /** `page.getByTestId('cart').first()`, say. */
  locator: string;
  /** The same locator over every match (counts, "none visible"). */
  all: string;
  /** A string literal, or a template literal reading `{{variables}}` from the environment. */
  value: string;
}

/**
 * How each step action is written in Playwright Test, mirroring how the step
 * engine beside it (libs/steps) runs it. Adding an action is one entry here,
 * next to its kind in `../kinds`. Kept out of the package's main entry
 * (`@assay/steps/playwright-export`): it is text, and its readers (the
 * test-case service's export) need no browser.
 */
export const PLAYWRIGHT_ACTIONS: Record<StepAction, (c: StepCode) => string[]> = {
  navigate: (c) => [`await open(page, ${c.value});`],
  click: (c) => [`await ${c.locator}.click();`],
  fill: (c) => [`await ${c.locator}.fill(${c.value});`],
  type: (c) => [`await ${c.locator}.fill('');`, `await ${c.locator}.pressSequentially(${c.value}, { delay: 10 });`],
  // The first option whose value, then whose label, matches.
  select: (c) => [`await ${c.locator}.selectOption([{ value: ${c.value} }, { label: ${c.value} }]);`],
  check: (c) => [`await ${c.locator}.check();`],
  uncheck: (c) => [`await ${c.locator}.uncheck();`],
  hover: (c) => [`await ${c.locator}.hover();`],
  screenshot: (c) => [
    `await test.info().attach(${quote(c.step.description ?? 'screenshot')}, { body: await ${c.step.selector ? `${c.locator}.screenshot()` : 'page.screenshot({ fullPage: true })'}, contentType: 'image/png' });`,
  ],
  wait: (c) => [`await expect(${c.locator}).toBeVisible({ timeout: ${c.step.timeout ?? 5000} });`],
  assert_visible: (c) => [`await expect(${c.locator}).toBeVisible();`],
  // Assay passes when the element's visible text, whitespace collapsed, contains the value.
  // `/…/` is a regular expression tested against the text; "" means the element has no text.
  assert_text: (c) =>
    isPattern(c.step.value)
      ? [`await expect(${c.locator}).toHaveText(pattern(${c.value}), { useInnerText: true });`]
      : c.step.value === ''
        ? [`await expect(${c.locator}).toHaveText('', { useInnerText: true });`]
        : [`await expect(${c.locator}).toContainText(${c.value}, { useInnerText: true });`],
  assert_value: (c) => [`await expect(${c.locator}).toHaveValue(${c.value});`],
  dblclick: (c) => [`await ${c.locator}.dblclick();`],
  press: (c) => [c.step.selector !== undefined ? `await ${c.locator}.press(${c.value});` : `await page.keyboard.press(${c.value});`],
  // Assay: no element matching the selector is visible.
  assert_hidden: (c) => [`await expect(${c.all}.filter({ visible: true })).toHaveCount(0);`],
  assert_count: (c) => [`await expect(${c.all}).toHaveCount(Number(${c.value}));`],
  assert_attribute: (c) => [`await expectAttribute(${c.locator}, ${c.value});`],
  assert_url: (c) => [`await expect(page).toHaveURL(pattern(${c.value}));`],
  go_back: () => ['expect((await page.goBack())?.status() ?? 200).toBeLessThan(400);'],
  go_forward: () => ['expect((await page.goForward())?.status() ?? 200).toBeLessThan(400);'],
  reload: () => ['expect((await page.reload())?.status() ?? 200).toBeLessThan(400);'],
  upload: (c) => [`await ${c.locator}.setInputFiles(upload(${c.value}));`],
  drag: (c) => [`await ${c.locator}.dragTo(${c.step.value !== undefined ? locatorFor(c.step.value) : 'page'});`],
  // Assay: axe-core with the standard's rule tags; violations at or above the impact fail.
  assert_accessible: (c) => {
    const check = parseAccessibilityCheck(c.step.value);
    const { tags, minImpact } = 'error' in check ? { tags: ['wcag2a', 'wcag2aa'], minImpact: 'minor' } : check;
    const include = c.step.selector !== undefined ? `.include(${expression(c.step.selector)})` : '';
    return [`await expectAccessible(new AxeBuilder({ page }).withTags(${JSON.stringify(tags)})${include}, ${quote(minImpact)});`];
  },
  // Assay: a still capture of the element or viewport against the case's baseline; Playwright keeps its own baselines
  // (`--update-snapshots` writes them), named after the step's name or id.
  assert_screenshot: (c) => {
    const opts = [
      `animations: 'disabled'`,
      `caret: 'hide'`,
      `scale: 'css'`,
      `threshold: ${c.step.threshold ?? 0.1}`,
      ...(c.step.max_diff_ratio ? [`maxDiffPixelRatio: ${c.step.max_diff_ratio}`] : []),
      // Every match of a mask selector is painted over, as Assay does.
      ...(c.step.mask?.length ? [`mask: [${c.step.mask.map((m) => locatorFor(m).replace(/\.first\(\)$/, '')).join(', ')}]`, `maskColor: '#FF00FF'`] : []),
    ];
    const file = `${(c.step.value ?? c.step.step_id).replace(/[^A-Za-z0-9_.-]+/g, '-')}.png`;
    return [`await expect(${c.step.selector !== undefined ? c.locator : 'page'}).toHaveScreenshot(${quote(file)}, { ${opts.join(', ')} });`];
  },
  // Assay: the call through the browser context, every `expect` line checked, `save_as` kept for later `{{variables}}`.
  request: (c) => [
    `await apiRequest(page, ${JSON.stringify(c.step.request ?? {})}, ${JSON.stringify(c.step.expect ?? [])}, ${JSON.stringify(c.step.save_as ?? {})});`,
  ],
};

/** Helpers the generated file defines only when one of its steps uses them. */
const HELPERS: Array<{ uses: (s: Step) => boolean; lines: string[] }> = [
  {
    uses: (s) => s.action === 'assert_url' || (s.action === 'assert_text' && isPattern(s.value)),
    lines: [
      '/** A value as Assay reads it: `/…/` is a regular expression, anything else a substring. */',
      'function pattern(value: string): RegExp {',
      "  const m = /^\\/(.+)\\/$/s.exec(value);",
      "  return m ? new RegExp(m[1]!) : new RegExp(value.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\$&'));",
      '}',
    ],
  },
  {
    uses: (s) => s.action === 'assert_attribute',
    lines: [
      '/** `name=expected`, `name=/regex/`, `name~=word` (one space-separated word, a class) or `name` (present), as in Assay. */',
      'async function expectAttribute(locator: Locator, check: string): Promise<void> {',
      '  const m = /^([^=~]+?)(~?=)(.*)$/s.exec(check);',
      '  if (!m) return expect(locator).toHaveAttribute(check.trim());',
      "  const [, name, op, expected] = m as unknown as [string, string, string, string];",
      "  if (op === '~=') return expect(locator).toHaveAttribute(name.trim(), new RegExp(`(^|\\s)${expected.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\$&')}(\\s|$)`));",
      '  const re = /^\\/(.+)\\/$/s.exec(expected);',
      '  return expect(locator).toHaveAttribute(name.trim(), re ? new RegExp(re[1]!) : expected);',
      '}',
    ],
  },
  {
    uses: (s) => s.action === 'assert_accessible',
    lines: [
      '/** No axe-core violation at or above the impact (minor, moderate, serious, critical), as Assay checks it. */',
      'async function expectAccessible(axe: AxeBuilder, minImpact: string): Promise<void> {',
      "  const order = ['minor', 'moderate', 'serious', 'critical'];",
      "  const violations = (await axe.analyze()).violations.filter((v) => order.indexOf(v.impact ?? 'minor') >= order.indexOf(minImpact));",
      "  expect(violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);",
      '}',
    ],
  },
  {
    uses: (s) => s.action === 'request',
    lines: [
      '/** A `request` step as Assay runs it: {{variables}} filled in, redirects not followed, each expectation checked, save_as kept. */',
      'async function apiRequest(page: Page, spec: { method: string; url: string; headers?: Record<string, string>; body?: unknown }, checks: string[], saveAs: Record<string, string>): Promise<void> {',
      "  const fill = (v: unknown): unknown => typeof v === 'string' ? v.replace(/\\{\\{\\s*([A-Za-z_][A-Za-z0-9_.-]*)\\s*\\}\\}/g, (_, n: string) => variable(n)) : Array.isArray(v) ? v.map(fill) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)])) : v;",
      '  const path = fill(spec.url) as string;',
      "  const url = /^https?:\\/\\//i.test(path) ? path : `${BASE_URL.replace(/\\/+$/, '')}/${path.replace(/^\\/+/, '')}`;",
      '  const headers = fill(spec.headers ?? {}) as Record<string, string>;',
      '  const body = spec.body === undefined ? undefined : fill(spec.body);',
      "  if (body !== undefined && typeof body !== 'string' && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';",
      "  const response = await page.request.fetch(url, { method: spec.method, headers, data: typeof body === 'string' || body === undefined ? body : JSON.stringify(body), maxRedirects: 0, failOnStatusCode: false });",
      '  const text = await response.text();',
      '  let json: unknown;',
      '  try { json = JSON.parse(text); } catch { json = undefined; }',
      '  const read = (p: string): unknown => p.slice(1).match(/\\.[^.[]+|\\[\\d+\\]/g)?.reduce<unknown>((cur, seg) => {',
      "    if (cur === null || cur === undefined) return undefined;",
      "    if (seg === '.length' && (Array.isArray(cur) || typeof cur === 'string')) return cur.length;",
      "    return seg.startsWith('[') ? (cur as unknown[])[Number(seg.slice(1, -1))] : (cur as Record<string, unknown>)[seg.slice(1)];",
      '  }, json) ?? (p === \'$\' ? json : undefined);',
      '  for (const line of checks) {',
      "    const m = /^(status|\\$\\S*?)\\s*(!?exists$|=|!=|>=|<=|>|<)\\s*(.*)$/.exec(fill(line) as string);",
      "    if (!m) throw new Error(`Unknown assertion ${line}`);",
      "    const [, left, op, right] = m as unknown as [string, string, string, string];",
      "    const actual = left === 'status' ? response.status() : read(left);",
      "    if (op.endsWith('exists')) { expect(actual !== undefined, line).toBe(!op.startsWith('!')); continue; }",
      '    let expected: unknown;',
      '    try { expected = JSON.parse(right); } catch { expected = right.trim(); }',
      "    if (op === '=') expect(String(actual), line).toBe(String(expected));",
      "    else if (op === '!=') expect(String(actual), line).not.toBe(String(expected));",
      "    else if (op === '>') expect(actual, line).toBeGreaterThan(expected as number);",
      "    else if (op === '>=') expect(actual, line).toBeGreaterThanOrEqual(expected as number);",
      "    else if (op === '<') expect(actual, line).toBeLessThan(expected as number);",
      '    else expect(actual, line).toBeLessThanOrEqual(expected as number);',
      '  }',
      '  for (const [name, p] of Object.entries(saveAs)) {',
      '    const v = read(p);',
      "    expect(v, `save_as ${name}: ${p}`).toBeDefined();",
      "    saved[name] = typeof v === 'string' ? v : JSON.stringify(v);",
      '  }',
      '}',
    ],
  },
  {
    uses: (s) => s.action === 'upload',
    lines: [
      '/** A file uploaded to Assay: download it once to assay-uploads/<id> (`curl -H "Authorization: Bearer $KEY" $ASSAY_URL/api/v1/artifacts/<id> -o assay-uploads/<id>`). */',
      'function upload(id: string): string {',
      "  return `${process.env.ASSAY_UPLOADS ?? 'assay-uploads'}/${id}`;",
      '}',
    ],
  },
];

const isPattern = (v: string | undefined) => v !== undefined && /^\/.+\/$/s.test(v);

export interface ExportCase {
  name: string;
  description?: string | null;
  tags?: string[];
  steps: Step[];
}

export interface PlaywrightExport {
  /** The plan's name, or the case's name for a single case. */
  title: string;
  /** The base URL the file uses unless BASE_URL is set when it runs. */
  baseUrl: string;
  /** `test plan "Checkout"`, `test case "Login"`: named in the header comment. */
  source: string;
  projectName: string;
  cases: ExportCase[];
  /** Wrap the tests in `test.describe(title)` (plans). */
  describe: boolean;
}

const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;
const HAS_VARIABLE = new RegExp(VARIABLE.source);

/**
 * Line comments of user text: every JavaScript line terminator (U+2028 and
 * U+2029 too) starts a new `//` line, so no name or description can end the
 * comment and become code.
 */
export function commentLines(text: string, indent = ''): string[] {
  return text.split(/\r\n|[\r\n\u2028\u2029]/).map((l) => `${indent}// ${l}`.trimEnd());
}

/** A single-quoted JavaScript string literal. */
export function quote(text: string): string {
  return `'${text.replace(/[\\'\n\r\u2028\u2029]/g, (c) => ({ '\\': '\\\\', "'": "\\'", '\n': '\\n', '\r': '\\r', '\u2028': '\\u2028', '\u2029': '\\u2029' })[c]!)}'`;
}

/** A string expression: a literal, or a template literal reading `{{name}}` from ASSAY_VAR_<name>. */
function expression(text: string): string {
  if (!HAS_VARIABLE.test(text)) return quote(text);
  let out = '`';
  let at = 0;
  for (const m of text.matchAll(VARIABLE)) {
    out += escapeTemplate(text.slice(at, m.index)) + `\${variable(${quote(m[1]!)})}`;
    at = m.index + m[0].length;
  }
  return `${out}${escapeTemplate(text.slice(at))}\``;
}

const escapeTemplate = (s: string) => s.replace(/[\\`$\r\u2028\u2029]/g, (c) => ({ '\\': '\\\\', '`': '\\`', $: '\\$', '\r': '\\r', '\u2028': '\\u2028', '\u2029': '\\u2029' })[c]!);

// Attribute selectors Playwright has a locator for, with the same meaning
// (getByLabel also matches <label> and aria-labelledby text: Playwright's own
// recommendation for what `[aria-label=...]` means to a user).
const ATTRIBUTE_LOCATORS: Record<string, (v: string) => string> = {
  'data-testid': (v) => `getByTestId(${quote(v)})`,
  placeholder: (v) => `getByPlaceholder(${quote(v)}, { exact: true })`,
  'aria-label': (v) => `getByLabel(${quote(v)}, { exact: true })`,
  alt: (v) => `getByAltText(${quote(v)}, { exact: true })`,
  title: (v) => `getByTitle(${quote(v)}, { exact: true })`,
};

/**
 * The Playwright locator for a step's selector: a role, label, placeholder,
 * alt text, title or test id locator where the selector says exactly that,
 * else `page.locator(selector)`. Always `.first()`: Assay acts on the first
 * match where Playwright would refuse an ambiguous locator.
 */
export function locatorFor(selector: string): string {
  return `page.${semanticLocator(selector.trim()) ?? `locator(${expression(selector)})`}.first()`;
}

function semanticLocator(selector: string): string | undefined {
  if (HAS_VARIABLE.test(selector)) return undefined;
  // [attr="value"], [attr='value'] or [attr=ident]: a value with no escapes or quotes of its own.
  const attr = /^\[\s*([a-z-]+)\s*=\s*(?:"([^"\\]*)"|'([^'\\]*)'|([A-Za-z_][A-Za-z0-9_-]*))\s*\]$/.exec(selector);
  if (attr) {
    const make = ATTRIBUTE_LOCATORS[attr[1]!];
    const value = attr[2] ?? attr[3] ?? attr[4]!;
    return make && value !== '' ? make(value) : undefined;
  }
  // Playwright's own selector engines, which the runner accepts as they are.
  const testId = /^data-testid=(?:"([^"\\]*)"|([^\s"'>]+))$/.exec(selector);
  if (testId) return `getByTestId(${quote(testId[1] ?? testId[2]!)})`;
  const text = /^text=(?:"([^"\\]*)"|([^"'\s][^>]*))$/.exec(selector);
  if (text) return text[1] !== undefined ? `getByText(${quote(text[1])}, { exact: true })` : `getByText(${quote(text[2]!.trim())})`;
  const role = /^role=([a-z]+)(?:\[name=(?:"([^"\\]*)"|'([^'\\]*)')(s|i)?\])?$/.exec(selector);
  if (role) {
    const name = role[2] ?? role[3];
    if (name === undefined) return `getByRole(${quote(role[1]!)})`;
    return `getByRole(${quote(role[1]!)}, { name: ${quote(name)}${role[4] === 's' ? ', exact: true' : ''} })`;
  }
  return undefined;
}

/** The lines of one test's body. */
function stepLines(step: Step): string[] {
  const code: StepCode = {
    step,
    locator: step.selector !== undefined ? locatorFor(step.selector) : 'page',
    all: step.selector !== undefined ? locatorFor(step.selector).replace(/\.first\(\)$/, '') : 'page',
    value: step.value !== undefined ? expression(step.action === 'assert_text' ? step.value.replace(/\s+/g, ' ').trim() : step.value) : "''",
  };
  const comment = step.description ? commentLines(step.description) : [];
  return [...comment, ...PLAYWRIGHT_ACTIONS[step.action](code)];
}

/** Test titles must be unique in a file: a repeated name gets ` (2)`, ` (3)`, ... */
function uniqueTitles(names: string[]): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    let title = name;
    for (let n = 2; used.has(title); n++) title = `${name} (${n})`;
    used.add(title);
    return title;
  });
}

const tagOf = (tag: string) => `@${tag.trim().replace(/^@/, '').replace(/\s+/g, '-')}`;

/** A Playwright Test file (`.spec.ts`) that `npx playwright test` runs as is. */
export function toPlaywrightSpec(e: PlaywrightExport): string {
  const usesRequest = e.cases.some((c) => c.steps.some((s) => s.action === 'request'));
  const usesVariables = usesRequest || e.cases.some((c) => c.steps.some((s) => [s.selector, s.value].some((t) => t !== undefined && HAS_VARIABLE.test(t))));
  const usesOpen = usesRequest || e.cases.some((c) => c.steps.some((s) => s.action === 'navigate'));
  const helpers = HELPERS.filter((h) => e.cases.some((c) => c.steps.some(h.uses)));
  const titles = uniqueTitles(e.cases.map((c) => c.name));
  const indent = e.describe ? '    ' : '  ';
  const tests = e.cases.map((c, i) => {
    const tags = (c.tags ?? []).filter((t) => t.trim() !== '').map(tagOf);
    const details = tags.length ? `{ tag: [${tags.map(quote).join(', ')}] }, ` : '';
    const body = c.steps.flatMap(stepLines).map((l) => `${indent}${l}`);
    const head = e.describe ? '  ' : '';
    const doc = c.description ? commentLines(c.description, head) : [];
    return [...doc, `${head}test(${quote(titles[i]!)}, ${details}async ({ page }) => {`, ...body, `${head}});`].join('\n');
  });
  const lines = [
    ...commentLines(`Exported from Assay: ${e.source} of project ${JSON.stringify(e.projectName)}, ${e.cases.length} test case${e.cases.length === 1 ? '' : 's'}.`),
    '// Run it with `npx playwright test`; BASE_URL overrides the address of the application under test.',
    '// Steps behave as in Assay: each acts on the first element its selector matches, a navigation',
    '// answering HTTP 400 or more fails, and text assertions check that the visible text contains the value.',
    ...(e.cases.some((c) => c.steps.some((s) => s.action === 'assert_accessible')) ? ["import AxeBuilder from '@axe-core/playwright'; // npm install -D @axe-core/playwright"] : []),
    `import { test, expect${usesOpen ? ', type Page' : ''}${helpers.some((h) => h.lines.some((l) => l.includes('Locator'))) ? ', type Locator' : ''} } from '@playwright/test';`,
    '',
    `const BASE_URL = process.env.BASE_URL ?? ${quote(e.baseUrl)};`,
    '',
    "// Assay's default step and navigation timeouts.",
    'test.use({ actionTimeout: 5_000, navigationTimeout: 15_000 });',
    ...(usesOpen
      ? [
          '',
          '/** Opens a path of the application (or an absolute URL) and fails on HTTP 400 or more, as Assay does. */',
          'async function open(page: Page, path: string): Promise<void> {',
          "  const url = /^https?:\\/\\//i.test(path) ? path : `${BASE_URL.replace(/\\/+$/, '')}/${path.replace(/^\\/+/, '')}`;",
          '  const response = await page.goto(url);',
          '  expect(response?.status() ?? 200, `HTTP status of ${url}`).toBeLessThan(400);',
          '}',
        ]
      : []),
    ...(usesVariables
      ? [
          '',
          ...(usesRequest ? ['', '/** Values `request` steps saved (`save_as`), read before the environment. */', 'const saved: Record<string, string> = {};'] : []),
          '/** A {{variable}} of the test case: set ASSAY_VAR_<name> when running (ASSAY_SECRET_<name> for {{secret.name}}: the export holds no secret). */',
          'function variable(name: string): string {',
          ...(usesRequest ? ['  if (Object.hasOwn(saved, name)) return saved[name]!;'] : []),
          "  const env = name.startsWith('secret.') ? `ASSAY_SECRET_${name.slice(7)}` : `ASSAY_VAR_${name}`;",
          '  const value = process.env[env];',
          '  if (value === undefined) throw new Error(`Set ${env}: the test case uses {{${name}}}`);',
          '  return value;',
          '}',
        ]
      : []),
    ...helpers.flatMap((h) => ['', ...h.lines]),
    '',
    ...(e.describe ? [`test.describe(${quote(e.title)}, () => {`, tests.join('\n\n'), '});'] : [tests.join('\n\n')]),
    '',
  ];
  return lines.join('\n');
}

/** `checkout-flow.spec.ts` from "Checkout flow". */
export function specFilename(title: string, extension = '.spec.ts'): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return `${slug || 'assay'}${extension}`;
}
