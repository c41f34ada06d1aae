import type { Locator, Page } from 'playwright-core';
import { compilePattern, PatternError, type CompiledPattern } from '@assay/contracts';
import type { StepContext } from './context.js';
import { FINGERPRINT, type ElementFingerprint } from './fingerprint.js';
import { StepError } from './step-error.js';
import { firstLine } from './values.js';

/** Whether Playwright refused the selector itself (not the element). */
export function isInvalidSelector(err: unknown): boolean {
  return err instanceof Error && /is not a valid selector|Unexpected token|while parsing (css )?selector/i.test(err.message);
}

const invalidSelector = (selector: string) => new StepError(`Invalid selector: ${selector}`, 'error');

/**
 * Waits for the element to be visible.
 * @throws StepError "Invalid selector", "Element not visible" or "Element not found".
 */
export async function visible(page: Page, selector: string, timeoutMs: number): Promise<Locator> {
  const locator = page.locator(selector).first();
  try {
    await locator.waitFor({ state: 'visible', timeout: timeoutMs });
    return locator;
  } catch (err) {
    if (isInvalidSelector(err)) throw invalidSelector(selector);
    const count = await page.locator(selector).count().catch(() => 0);
    if (count > 0) throw new StepError(`Element not visible: ${selector} (waited ${timeoutMs} ms)`, 'element_not_interactable');
    throw new StepError(`Element not found: ${selector} (waited ${timeoutMs} ms)`, 'element_not_found');
  }
}

/**
 * Waits for the element to be in the page, visible or not (attribute and empty-text checks).
 * @throws StepError "Invalid selector" or "Element not found".
 */
export async function attached(page: Page, selector: string, timeoutMs: number): Promise<Locator> {
  const locator = page.locator(selector).first();
  try {
    await locator.waitFor({ state: 'attached', timeout: timeoutMs });
    return locator;
  } catch (err) {
    if (isInvalidSelector(err)) throw invalidSelector(selector);
    throw new StepError(`Element not found: ${selector} (waited ${timeoutMs} ms)`, 'element_not_found');
  }
}

/** Fails with "Invalid selector" at once instead of waiting on a selector Playwright cannot parse. */
export async function checkSelector(page: Page, selector: string): Promise<void> {
  await page
    .locator(selector)
    .count()
    .catch((err: unknown) => {
      if (isInvalidSelector(err)) throw invalidSelector(selector);
    });
}

/**
 * Runs an action that waits for the element itself; its failure says which way it failed.
 * @throws StepError "Invalid selector", "Element not found" or "Could not act on".
 */
export async function act(page: Page, selector: string, timeoutMs: number, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof StepError) throw err;
    if (isInvalidSelector(err)) throw invalidSelector(selector);
    if ((await page.locator(selector).count().catch(() => 1)) === 0) throw new StepError(`Element not found: ${selector} (waited ${timeoutMs} ms)`, 'element_not_found');
    throw new StepError(`Could not act on ${selector} (waited ${timeoutMs} ms): ${firstLine(err)}`, 'element_not_interactable');
  }
}

const fingerprintKey = (page: Page, selector: string) => `${page.url()}\u0000${selector}`;

/** The element's fingerprint, read from the page by `read` only the first time in an execution for this page URL and selector. */
export async function fingerprintOf(ctx: StepContext, selector: string, read: () => Promise<ElementFingerprint | undefined>): Promise<ElementFingerprint | undefined> {
  const key = fingerprintKey(ctx.page, selector);
  const known = ctx.fingerprints?.get(key);
  if (known) return known;
  const t0 = performance.now();
  const fp = await read();
  ctx.profile?.add('fingerprint', performance.now() - t0);
  if (fp) ctx.fingerprints?.set(key, fp);
  return fp;
}

/** Reads the fingerprint of an element already found; a failure to read it fails nothing. */
export const readQuietly = (locator: Locator) => () => locator.evaluate(FINGERPRINT, undefined, { timeout: 1000 }).catch(() => undefined);

/**
 * Waits for the element and reads its fingerprint in one round trip, so the read's failure is the step's.
 * @throws StepError "Invalid selector" or "Element not found".
 */
export const waitAndRead = (locator: Locator, selector: string, timeoutMs: number) => () =>
  locator.evaluate(FINGERPRINT, undefined, { timeout: timeoutMs }).catch((err: unknown) => {
    if (isInvalidSelector(err)) throw invalidSelector(selector);
    throw new StepError(`Element not found: ${selector} (waited ${timeoutMs} ms)`, 'element_not_found');
  });

/**
 * A `/regex/` value compiled, or a StepError naming the step's action.
 * @throws StepError (`error`) when the expression is refused.
 */
export function pattern(action: string, source: string): CompiledPattern {
  try {
    return compilePattern(source);
  } catch (err) {
    if (err instanceof PatternError) throw new StepError(`The ${action} value /${source}/ ${err.message}`, 'error');
    throw err;
  }
}
