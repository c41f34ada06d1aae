import type { Locator, Page } from 'playwright-core';
import { FINGERPRINT, type ElementFingerprint } from './fingerprint.js';

export type { ElementFingerprint };

/** A step failure with a readable message and a category for failure analysis. */
export class StepError extends Error {
  constructor(
    message: string,
    readonly type: 'element_not_found' | 'element_not_interactable' | 'assertion_failed' | 'navigation_failed' | 'unknown_variable' | 'cancelled' | 'error',
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
  const fp = await read();
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
      try {
        const response = await page.goto(url, { waitUntil: 'load', timeout: ctx.navigationTimeoutMs });
        if (response && response.status() >= 400) throw new StepError(`Navigation to ${url} answered HTTP ${response.status()}`, 'navigation_failed');
      } catch (err) {
        if (err instanceof StepError) throw err;
        throw new StepError(`Navigation to ${url} failed: ${(err as Error).message.split('\n')[0]}`, 'navigation_failed');
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
      const expected = normalise(need(value, 'value'));
      const el = await visible(page, sel, t);
      const fp = await fingerprint(ctx, sel, readQuietly(el));
      const { ok, last } = await poll(async () => normalise(await el.innerText({ timeout: 1000 })), (v) => v.includes(expected), t);
      if (!ok) throw new StepError(`Expected text "${expected}" but found "${last}"`, 'assertion_failed');
      return fp ? { fingerprint: fp } : {};
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
      default:
        return Promise.reject(new StepError(`Unknown action "${step.action}"`, 'error'));
    }
  };
  const fp = await fingerprint(ctx, sel, waitAndRead);
  await action();
  return { fingerprint: fp };
}

