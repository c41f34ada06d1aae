import type { Locator, Page } from 'playwright-core';
import type { RunStep } from '../clients/runner.client.js';

/**
 * Replays a test's steps the way the runner runs them (the spec's thirteen
 * actions, the same waits and comparisons), for verification re-runs. A step
 * action this replayer does not know makes the re-run inconclusive rather
 * than failed.
 */
export interface ReplayOptions {
  baseUrl: string;
  variables: Record<string, string>;
  stepTimeoutMs: number;
  navigationTimeoutMs: number;
  /** Checked before every step: a replay stops when it turns true. */
  stopped?: () => boolean;
}

export type ReplayResult =
  | { status: 'passed'; steps: number }
  | { status: 'failed'; step: number; step_id: string; error: string }
  | { status: 'inconclusive'; step: number; reason: string };

class ReplayError extends Error {
  constructor(
    message: string,
    readonly inconclusive = false,
  ) {
    super(message);
  }
}

const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;
const substitute = (text: string, variables: Record<string, string>) =>
  text.replace(VARIABLE, (_, name: string) => {
    if (!Object.hasOwn(variables, name)) throw new ReplayError(`Unknown variable {{${name}}}`);
    return variables[name]!;
  });
const resolveUrl = (base: string, value: string) => (/^https?:\/\//i.test(value) ? value : `${base.replace(/\/+$/, '')}/${value.replace(/^\/+/, '')}`);
const normalise = (s: string) => s.replace(/\s+/g, ' ').trim();
const firstLine = (err: unknown) => (err instanceof Error ? err.message.split('\n')[0]! : String(err));

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

async function visible(page: Page, selector: string, timeoutMs: number): Promise<Locator> {
  const el = page.locator(selector).first();
  try {
    await el.waitFor({ state: 'visible', timeout: timeoutMs });
    return el;
  } catch (err) {
    throw new ReplayError(`Element not visible: ${selector} (${firstLine(err)})`);
  }
}

async function runOne(page: Page, step: RunStep, o: ReplayOptions): Promise<void> {
  const selector = step.selector !== undefined ? substitute(step.selector, o.variables) : undefined;
  const value = step.value !== undefined ? substitute(step.value, o.variables) : undefined;
  const t = o.stepTimeoutMs;
  const need = (v: string | undefined, what: string): string => {
    if (v === undefined) throw new ReplayError(`Step "${step.action}" has no ${what}`);
    return v;
  };
  const act = async (fn: (el: Locator) => Promise<unknown>) => {
    const el = page.locator(need(selector, 'selector')).first();
    try {
      await fn(el);
    } catch (err) {
      throw new ReplayError(`Could not ${step.action} ${selector}: ${firstLine(err)}`);
    }
  };
  switch (step.action) {
    case 'navigate': {
      const url = resolveUrl(o.baseUrl, need(value, 'value'));
      let status: number | undefined;
      try {
        status = (await page.goto(url, { waitUntil: 'load', timeout: o.navigationTimeoutMs }))?.status();
      } catch (err) {
        throw new ReplayError(`Navigation to ${url} failed: ${firstLine(err)}`);
      }
      if (status !== undefined && status >= 400) throw new ReplayError(`Navigation to ${url} answered HTTP ${status}`);
      return;
    }
    case 'click':
      return act((el) => el.click({ timeout: t }));
    case 'fill':
      return act((el) => el.fill(need(value, 'value'), { timeout: t }));
    case 'type':
      return act(async (el) => {
        await el.fill('', { timeout: t });
        await el.pressSequentially(need(value, 'value'), { delay: 10, timeout: t });
      });
    case 'select': {
      const v = need(value, 'value');
      return act((el) => el.selectOption([{ value: v }, { label: v }], { timeout: t }));
    }
    case 'check':
      return act((el) => el.check({ timeout: t }));
    case 'uncheck':
      return act((el) => el.uncheck({ timeout: t }));
    case 'hover':
      return act((el) => el.hover({ timeout: t }));
    case 'screenshot':
      if (selector) await visible(page, selector, t);
      return;
    case 'wait':
      await visible(page, need(selector, 'selector'), step.timeout ?? t);
      return;
    case 'assert_visible':
      await visible(page, need(selector, 'selector'), t);
      return;
    case 'assert_text': {
      const expected = normalise(need(value, 'value'));
      const el = await visible(page, need(selector, 'selector'), t);
      const { ok, last } = await poll(async () => normalise(await el.innerText({ timeout: 1000 })), (v) => v.includes(expected), t);
      if (!ok) throw new ReplayError(`Expected text "${expected}" but found "${last}"`);
      return;
    }
    case 'assert_value': {
      const expected = need(value, 'value');
      const el = await visible(page, need(selector, 'selector'), t);
      const { ok, last } = await poll(() => el.inputValue({ timeout: 1000 }), (v) => v === expected, t);
      if (!ok) throw new ReplayError(`Expected value "${expected}" but found "${last}"`);
      return;
    }
    default:
      throw new ReplayError(`the replayer does not know the action "${step.action}"`, true);
  }
}

/** Runs `steps` on `page` until one fails; never throws. */
export async function replay(page: Page, steps: RunStep[], o: ReplayOptions): Promise<ReplayResult> {
  for (const [i, step] of steps.entries()) {
    if (o.stopped?.()) return { status: 'inconclusive', step: i + 1, reason: 'stopped' };
    try {
      await runOne(page, step, o);
    } catch (err) {
      if (err instanceof ReplayError && err.inconclusive) return { status: 'inconclusive', step: i + 1, reason: err.message };
      return { status: 'failed', step: i + 1, step_id: step.step_id, error: err instanceof Error ? err.message : String(err) };
    }
  }
  return { status: 'passed', steps: steps.length };
}
