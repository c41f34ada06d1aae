import type { Locator, Page, Response } from 'playwright-core';
import { checkKeyChord, compilePattern, parseAttributeCheck, parseExpectedCount, patternSource, PatternError, type CompiledPattern } from '@assay/contracts';
import type { EgressPolicy, EgressProxy } from '@assay/egress';
import { FINGERPRINT, type ElementFingerprint } from './fingerprint.js';

export type { ElementFingerprint };

/** A step failure with a readable message and a category for failure analysis. */
export class StepError extends Error {
  constructor(
    message: string,
    readonly type: 'element_not_found' | 'element_not_interactable' | 'assertion_failed' | 'navigation_failed' | 'egress_blocked' | 'unknown_variable' | 'cancelled' | 'error',
  ) {
    super(message);
    this.name = 'StepError';
  }
}

export interface RunnableStep {
  step_id: string;
  action: string;
  description?: string;
  selector?: string;
  value?: string;
  timeout?: number;
}

export interface StepContext {
  page: Page;
  baseUrl: string;
  variables: Record<string, string>;
  /** How long element lookups and assertions wait (ms). */
  stepTimeoutMs: number;
  navigationTimeoutMs: number;
  saveScreenshot(png: Buffer): Promise<string>;
  /**
   * Fingerprints already taken in this execution, by page URL and selector:
   * within one run of the target app the element a selector matches on a page
   * is the same one, so it is read once (every case that logs in shares them).
   */
  fingerprints?: Map<string, ElementFingerprint>;
  /** The egress policy, and the proxy of this page's context (what it refused). */
  egress?: { policy: EgressPolicy; proxy: EgressProxy };
  /** A file uploaded for `upload` steps, read only when it belongs to the run's organization. */
  readUpload?(id: string): Promise<UploadedFile | undefined>;
  /** Per-phase timings (fingerprint reads, screenshots), when profiling. */
  profile?: { add(phase: string, ms: number): void };
}

export interface UploadedFile {
  filename: string;
  content_type: string;
  data: Buffer;
}

export interface StepOutput {
  fingerprint?: ElementFingerprint;
  screenshotArtifactId?: string;
}

const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

/**
 * Replaces `{{name}}` placeholders.
 * @throws StepError naming the first placeholder `variables` lacks.
 */
export function substitute(text: string, variables: Record<string, string>): string {
  return text.replace(VARIABLE, (_, name: string) => {
    if (!Object.hasOwn(variables, name)) throw new StepError(`Unknown variable {{${name}}}: pass it in "variables"`, 'unknown_variable');
    return variables[name]!;
  });
}

/** A path joined to the base URL (keeping the base's own path); absolute URLs pass through. */
export function resolveUrl(baseUrl: string, value: string): string {
  if (/^https?:\/\//i.test(value)) return value;
  return `${baseUrl.replace(/\/+$/, '')}/${value.replace(/^\/+/, '')}`;
}

/** A readable name for a step: its description, or the action and its target. */
export function stepName(step: RunnableStep): string {
  if (step.description) return step.description;
  const target = step.selector ?? step.value ?? '';
  return target ? `${step.action} ${target}` : step.action;
}

const normalise = (s: string) => s.replace(/\s+/g, ' ').trim();

const fingerprintKey = (page: Page, selector: string) => `${page.url()}\u0000${selector}`;

/** The element's fingerprint, read from the page by `read` only the first time in an execution for this page URL and selector. */
async function fingerprint(ctx: StepContext, selector: string, read: () => Promise<ElementFingerprint | undefined>): Promise<ElementFingerprint | undefined> {
  const key = fingerprintKey(ctx.page, selector);
  const known = ctx.fingerprints?.get(key);
  if (known) return known;
  const t0 = performance.now();
  const fp = await read();
  ctx.profile?.add('fingerprint', performance.now() - t0);
  if (fp) ctx.fingerprints?.set(key, fp);
  return fp;
}

/** Reads the fingerprint of an element already found visible; a failure to read it fails nothing. */
const readQuietly = (locator: Locator) => () => locator.evaluate(FINGERPRINT, undefined, { timeout: 1000 }).catch(() => undefined);

/** Waits for the element; a missing or hidden element fails with the spec's kind of message. */
async function visible(page: Page, selector: string, timeoutMs: number): Promise<Locator> {
  const locator = page.locator(selector).first();
  try {
    await locator.waitFor({ state: 'visible', timeout: timeoutMs });
    return locator;
  } catch (err) {
    if (isInvalidSelector(err)) throw new StepError(`Invalid selector: ${selector}`, 'error');
    const count = await page.locator(selector).count().catch(() => 0);
    if (count > 0) throw new StepError(`Element not visible: ${selector} (waited ${timeoutMs} ms)`, 'element_not_interactable');
    throw new StepError(`Element not found: ${selector} (waited ${timeoutMs} ms)`, 'element_not_found');
  }
}

function isInvalidSelector(err: unknown): boolean {
  return err instanceof Error && /is not a valid selector|Unexpected token|while parsing (css )?selector/i.test(err.message);
}

async function act(page: Page, selector: string, timeoutMs: number, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof StepError) throw err;
    if (isInvalidSelector(err)) throw new StepError(`Invalid selector: ${selector}`, 'error');
    // The action waited for the element itself: say which way it failed.
    if ((await page.locator(selector).count().catch(() => 1)) === 0) throw new StepError(`Element not found: ${selector} (waited ${timeoutMs} ms)`, 'element_not_found');
    const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    throw new StepError(`Could not act on ${selector} (waited ${timeoutMs} ms): ${message}`, 'element_not_interactable');
  }
}

/** Retries `read` until `matches` or the timeout; returns the last value read. */
async function poll(read: () => Promise<string>, matches: (v: string) => boolean, timeoutMs: number): Promise<{ ok: boolean; last: string }> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    last = await read().catch(() => last);
    if (matches(last)) return { ok: true, last };
    if (Date.now() >= deadline) return { ok: false, last };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Refuses a navigation the egress policy denies before the browser tries it, with the reason. */
async function assertEgressAllowed(ctx: StepContext, url: string): Promise<void> {
  if (!ctx.egress) return;
  const verdict = await ctx.egress.policy.checkUrl(url);
  if (!verdict.allowed) throw new StepError(`Navigation to ${url} blocked by the egress policy (${verdict.reason})`, 'egress_blocked');
}

/**
 * The step error for a failed navigation (`what`: "Navigation to <url>",
 * "Going back from <url>"): a connection the egress proxy refused (a redirect
 * elsewhere, a name that now resolves to a private address) is named as such,
 * with the proxy's reason.
 */
export function navigationError(ctx: StepContext, what: string, err: unknown): StepError {
  if (err instanceof StepError) return err;
  const message = (err as Error).message?.split('\n')[0] ?? String(err);
  const viaProxy = /ERR_SOCKS_CONNECTION_FAILED|ERR_PROXY_CONNECTION_FAILED|ERR_TUNNEL_CONNECTION_FAILED/.test(message);
  const refused = viaProxy ? ctx.egress?.proxy.peekBlocked().at(-1) : undefined;
  const failed = viaProxy ? ctx.egress?.proxy.lastFailed() : undefined;
  // The more recent of the two is what ended this navigation.
  if (refused && (!failed || refused.at >= failed.at)) return new StepError(`${what} blocked by the egress policy (${refused.host}:${refused.port}: ${refused.reason})`, 'egress_blocked');
  // Say what Chromium would have said without the proxy in between.
  if (failed) return new StepError(`${what} failed: net::${failed.code} (${failed.host}:${failed.port})`, 'navigation_failed');
  return new StepError(`${what} failed: ${message}`, 'navigation_failed');
}

/** Retries `read` until `matches` or the timeout; returns the last value read (`initial` until a read succeeds). */
async function waitUntil<T>(read: () => Promise<T>, matches: (v: T) => boolean, timeoutMs: number, initial: T): Promise<{ ok: boolean; last: T }> {
  const deadline = Date.now() + timeoutMs;
  let last = initial;
  for (;;) {
    last = await read().catch(() => last);
    if (matches(last)) return { ok: true, last };
    if (Date.now() >= deadline) return { ok: false, last };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Fails with "Invalid selector" at once instead of waiting on a selector Playwright cannot parse. */
async function checkSelector(page: Page, selector: string): Promise<void> {
  await page
    .locator(selector)
    .count()
    .catch((err: unknown) => {
      if (isInvalidSelector(err)) throw new StepError(`Invalid selector: ${selector}`, 'error');
    });
}

/** Waits for the element to be in the page, visible or not (attribute and empty-text checks). */
async function attached(page: Page, selector: string, timeoutMs: number): Promise<Locator> {
  const locator = page.locator(selector).first();
  try {
    await locator.waitFor({ state: 'attached', timeout: timeoutMs });
    return locator;
  } catch (err) {
    if (isInvalidSelector(err)) throw new StepError(`Invalid selector: ${selector}`, 'error');
    throw new StepError(`Element not found: ${selector} (waited ${timeoutMs} ms)`, 'element_not_found');
  }
}

/** A `/regex/` value compiled, or a StepError naming the step's action. */
function pattern(action: string, source: string): CompiledPattern {
  try {
    return compilePattern(source);
  } catch (err) {
    if (err instanceof PatternError) throw new StepError(`The ${action} value /${source}/ ${err.message}`, 'error');
    throw err;
  }
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * go_back, go_forward and reload: like `navigate`, a failed load or an HTTP
 * status of 400 or more fails the step and names the URL.
 */
async function moveInHistory(ctx: StepContext, which: 'go_back' | 'go_forward' | 'reload'): Promise<StepOutput> {
  const { page } = ctx;
  const from = page.url();
  const options = { waitUntil: 'load' as const, timeout: ctx.navigationTimeoutMs };
  const verb = which === 'go_back' ? 'Going back' : which === 'go_forward' ? 'Going forward' : 'Reloading';
  let response: Response | null;
  try {
    response = which === 'go_back' ? await page.goBack(options) : which === 'go_forward' ? await page.goForward(options) : await page.reload(options);
  } catch (err) {
    throw navigationError(ctx, `${verb} from ${from}`, err);
  }
  // Playwright answers null both when there is no entry to go to and for same-document moves (#hash, pushState): only the first leaves the URL as it was.
  if (!response && which !== 'reload' && page.url() === from) {
    throw new StepError(which === 'go_back' ? `Cannot go back from ${from}: the tab has no earlier page` : `Cannot go forward from ${from}: the tab has no later page`, 'navigation_failed');
  }
  if (response && response.status() >= 400) {
    throw new StepError(`${which === 'reload' ? `Reloading ${response.url()}` : `${verb} to ${response.url()}`} answered HTTP ${response.status()}`, 'navigation_failed');
  }
  return {};
}

/**
 * Runs one step of the spec's action table.
 * @throws StepError with a message a person can act on.
 */
export async function runStep(ctx: StepContext, step: RunnableStep): Promise<StepOutput> {
  const { page } = ctx;
  const selector = step.selector !== undefined ? substitute(step.selector, ctx.variables) : undefined;
  const value = step.value !== undefined ? substitute(step.value, ctx.variables) : undefined;
  const t = ctx.stepTimeoutMs;
  const need = (v: string | undefined, what: string) => {
    if (v === undefined) throw new StepError(`Step "${step.action}" has no ${what}`, 'error');
    return v;
  };

  switch (step.action) {
    case 'navigate': {
      const url = resolveUrl(ctx.baseUrl, need(value, 'value'));
      await assertEgressAllowed(ctx, url);
      try {
        const response = await page.goto(url, { waitUntil: 'load', timeout: ctx.navigationTimeoutMs });
        if (response && response.status() >= 400) throw new StepError(`Navigation to ${url} answered HTTP ${response.status()}`, 'navigation_failed');
      } catch (err) {
        throw navigationError(ctx, `Navigation to ${url}`, err);
      }
      return {};
    }
    case 'wait': {
      const sel = need(selector, 'selector');
      const el = await visible(page, sel, step.timeout ?? t);
      return { fingerprint: await fingerprint(ctx, sel, readQuietly(el)) };
    }
    case 'screenshot': {
      const png = selector ? await (await visible(page, selector, t)).screenshot({ type: 'png', timeout: t }) : await page.screenshot({ type: 'png', fullPage: true });
      return { screenshotArtifactId: await ctx.saveScreenshot(png) };
    }
    case 'assert_visible': {
      const sel = need(selector, 'selector');
      const el = await visible(page, sel, t);
      return { fingerprint: await fingerprint(ctx, sel, readQuietly(el)) };
    }
    case 'assert_text': {
      const sel = need(selector, 'selector');
      const raw = need(value, 'value');
      const expected = normalise(raw);
      // `/…/` is a regular expression; an empty value means no text (so the element need not be visible).
      const source = patternSource(raw);
      const re = source !== undefined ? pattern('assert_text', source) : undefined;
      try {
        const el = expected === '' ? await attached(page, sel, t) : await visible(page, sel, t);
        const fp = await fingerprint(ctx, sel, readQuietly(el));
        const matches = re ? (v: string) => re.test(v) : expected === '' ? (v: string) => v === '' : (v: string) => v.includes(expected);
        const { ok, last } = await poll(async () => normalise(await el.innerText({ timeout: 1000 })), matches, t);
        if (!ok) {
          if (re) throw new StepError(`Expected text matching ${raw} but found "${last}"`, 'assertion_failed');
          if (expected === '') throw new StepError(`Expected no text but found "${last}"`, 'assertion_failed');
          throw new StepError(`Expected text "${expected}" but found "${last}"`, 'assertion_failed');
        }
        return fp ? { fingerprint: fp } : {};
      } finally {
        re?.dispose();
      }
    }
    case 'assert_value': {
      const sel = need(selector, 'selector');
      const expected = need(value, 'value');
      const el = await visible(page, sel, t);
      const fp = await fingerprint(ctx, sel, readQuietly(el));
      const { ok, last } = await poll(() => el.inputValue({ timeout: 1000 }), (v) => v === expected, t);
      if (!ok) throw new StepError(`Expected value "${expected}" but found "${last}"`, 'assertion_failed');
      return fp ? { fingerprint: fp } : {};
    }
    case 'press': {
      // With a selector it acts on the element (below); without one, on the page.
      if (selector !== undefined) break;
      const key = need(value, 'value');
      const problem = checkKeyChord(key);
      if (problem) throw new StepError(`The press value ${problem}`, 'error');
      await page.keyboard.press(key);
      return {};
    }
    case 'assert_hidden': {
      const sel = need(selector, 'selector');
      await checkSelector(page, sel);
      const shown = page.locator(sel).filter({ visible: true });
      const { ok, last } = await waitUntil(() => shown.count(), (n) => n === 0, t, -1);
      if (!ok) {
        const what = last === 1 ? 'it is visible' : last > 1 ? `${last} matching elements are visible` : 'its visibility could not be read';
        throw new StepError(`Expected ${sel} to be hidden, but ${what} (waited ${t} ms)`, 'assertion_failed');
      }
      return {};
    }
    case 'assert_count': {
      const sel = need(selector, 'selector');
      const expected = parseExpectedCount(need(value, 'value'));
      if (expected === undefined) throw new StepError(`The assert_count value must be a whole number of elements, not "${value}"`, 'error');
      await checkSelector(page, sel);
      const all = page.locator(sel);
      const { ok, last } = await waitUntil(() => all.count(), (n) => n === expected, t, -1);
      if (!ok) throw new StepError(`Expected ${plural(expected, 'element', 'elements')} matching "${sel}", found ${last < 0 ? 'none readable' : last}`, 'assertion_failed');
      return {};
    }
    case 'assert_attribute': {
      const sel = need(selector, 'selector');
      const check = parseAttributeCheck(need(value, 'value'));
      if ('error' in check) throw new StepError(`The assert_attribute value ${check.error}`, 'error');
      const re = check.op === 'pattern' ? pattern('assert_attribute', check.source) : undefined;
      try {
        const el = await attached(page, sel, t);
        const fp = await fingerprint(ctx, sel, readQuietly(el));
        const matches = (v: string | null): boolean => {
          if (v === null) return false;
          if (check.op === 'equals') return v === check.expected;
          if (check.op === 'token') return v.split(/\s+/).includes(check.token);
          if (re) return re.test(v);
          return true;
        };
        const { ok, last } = await waitUntil(() => el.getAttribute(check.name, { timeout: 1000 }), matches, t, null);
        if (!ok) {
          const found = last === null ? 'it has no such attribute' : `found "${last}"`;
          const wanted =
            check.op === 'present' ? 'to be present' : check.op === 'equals' ? `to be "${check.expected}"` : check.op === 'token' ? `to contain "${check.token}"` : `to match /${check.source}/`;
          throw new StepError(`Expected attribute "${check.name}" of ${sel} ${wanted}, but ${found}`, 'assertion_failed');
        }
        return fp ? { fingerprint: fp } : {};
      } finally {
        re?.dispose();
      }
    }
    case 'assert_url': {
      const expected = need(value, 'value');
      const source = patternSource(expected);
      const re = source !== undefined ? pattern('assert_url', source) : undefined;
      try {
        const { ok, last } = await poll(async () => page.url(), re ? (u) => re.test(u) : (u) => u.includes(expected), t);
        if (!ok) throw new StepError(`Expected the URL ${re ? `to match ${expected}` : `to contain "${expected}"`} but it is "${last}"`, 'assertion_failed');
        return {};
      } finally {
        re?.dispose();
      }
    }
    case 'go_back':
    case 'go_forward':
    case 'reload':
      return moveInHistory(ctx, step.action);
    default:
      break;
  }

  // The remaining actions act on one element: one round trip waits for it and
  // fingerprints it (unless this execution already has its fingerprint), then
  // the action waits for actionability itself. (Running the two at once
  // measured slower: the machine is CPU-bound.)
  const sel = need(selector, 'selector');
  const el = page.locator(sel).first();
  // Here the read also waits for the element, so its failure is the step's.
  const waitAndRead = () =>
    el.evaluate(FINGERPRINT, undefined, { timeout: t }).catch((err: unknown) => {
      if (isInvalidSelector(err)) throw new StepError(`Invalid selector: ${sel}`, 'error');
      throw new StepError(`Element not found: ${sel} (waited ${t} ms)`, 'element_not_found');
    });
  const action = (): Promise<unknown> => {
    switch (step.action) {
      case 'click':
        return act(page, sel, t, () => el.click({ timeout: t }));
      case 'fill':
        return act(page, sel, t, () => el.fill(need(value, 'value'), { timeout: t }));
      case 'type':
        return act(page, sel, t, async () => {
          await el.fill('', { timeout: t });
          await el.pressSequentially(need(value, 'value'), { delay: 10, timeout: t });
        });
      case 'select': {
        const v = need(value, 'value');
        // The first option whose value or visible label matches.
        return act(page, sel, t, () => el.selectOption([{ value: v }, { label: v }], { timeout: t }));
      }
      case 'check':
        return act(page, sel, t, () => el.check({ timeout: t }));
      case 'uncheck':
        return act(page, sel, t, () => el.uncheck({ timeout: t }));
      case 'hover':
        return act(page, sel, t, () => el.hover({ timeout: t }));
      case 'dblclick':
        return act(page, sel, t, () => el.dblclick({ timeout: t }));
      case 'press': {
        const key = need(value, 'value');
        const problem = checkKeyChord(key);
        if (problem) return Promise.reject(new StepError(`The press value ${problem}`, 'error'));
        return act(page, sel, t, () => el.press(key, { timeout: t }));
      }
      case 'upload': {
        const id = need(value, 'value').trim();
        return act(page, sel, t, async () => {
          // The reader answers only for the run's organization: another one's id is "not found" like an unknown one.
          const file = ctx.readUpload ? await ctx.readUpload(id) : undefined;
          if (!file) throw new StepError(`Artifact ${id} not found: upload the file with POST /api/v1/artifacts and use the id it answers`, 'error');
          await el.setInputFiles({ name: file.filename, mimeType: file.content_type, buffer: file.data }, { timeout: t });
        });
      }
      case 'drag': {
        const target = need(value, 'value');
        return act(page, sel, t, async () => {
          const to = await visible(page, target, t);
          await el.dragTo(to, { timeout: t });
        });
      }
      default:
        return Promise.reject(new StepError(`Unknown action "${step.action}"`, 'error'));
    }
  };
  const fp = await fingerprint(ctx, sel, waitAndRead);
  await action();
  return { fingerprint: fp };
}

