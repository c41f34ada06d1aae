import type { Locator, Page, Response } from 'playwright-core';
import { checkKeyChord, compilePattern, parseAttributeCheck, parseExpectedCount, patternSource, PatternError, type CompiledPattern } from '@assay/contracts';
import type { RunStep } from '../clients/runner.client.js';

/**
 * Replays a test's steps the way the runner runs them (every step action,
 * the same waits and comparisons, the same value grammars from
 * @assay/contracts), for verification re-runs. An `upload` step (its file
 * lives in the runner) and an action this replayer does not know make the
 * re-run inconclusive rather than failed.
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

async function present(page: Page, selector: string, timeoutMs: number): Promise<Locator> {
  const el = page.locator(selector).first();
  try {
    await el.waitFor({ state: 'attached', timeout: timeoutMs });
    return el;
  } catch (err) {
    throw new ReplayError(`Element not found: ${selector} (${firstLine(err)})`);
  }
}

function compiled(action: string, source: string): CompiledPattern {
  try {
    return compilePattern(source);
  } catch (err) {
    throw new ReplayError(`The ${action} value /${source}/ ${err instanceof PatternError ? err.message : firstLine(err)}`);
  }
}

async function history(page: Page, which: 'go_back' | 'go_forward' | 'reload', timeoutMs: number): Promise<void> {
  const from = page.url();
  const options = { waitUntil: 'load' as const, timeout: timeoutMs };
  let response: Response | null;
  try {
    response = which === 'go_back' ? await page.goBack(options) : which === 'go_forward' ? await page.goForward(options) : await page.reload(options);
  } catch (err) {
    throw new ReplayError(`${which} from ${from} failed: ${firstLine(err)}`);
  }
  if (!response && which !== 'reload' && page.url() === from) throw new ReplayError(`Cannot ${which === 'go_back' ? 'go back' : 'go forward'} from ${from}`);
  if (response && response.status() >= 400) throw new ReplayError(`${which} to ${response.url()} answered HTTP ${response.status()}`);
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
      const raw = need(value, 'value');
      const expected = normalise(raw);
      const source = patternSource(raw);
      const re = source !== undefined ? compiled('assert_text', source) : undefined;
      try {
        const sel = need(selector, 'selector');
        const el = expected === '' ? await present(page, sel, t) : await visible(page, sel, t);
        const matches = re ? (v: string) => re.test(v) : expected === '' ? (v: string) => v === '' : (v: string) => v.includes(expected);
        const { ok, last } = await poll(async () => normalise(await el.innerText({ timeout: 1000 })), matches, t);
        if (!ok) throw new ReplayError(re ? `Expected text matching ${raw} but found "${last}"` : `Expected text "${expected}" but found "${last}"`);
      } finally {
        re?.dispose();
      }
      return;
    }
    case 'assert_value': {
      const expected = need(value, 'value');
      const el = await visible(page, need(selector, 'selector'), t);
      const { ok, last } = await poll(() => el.inputValue({ timeout: 1000 }), (v) => v === expected, t);
      if (!ok) throw new ReplayError(`Expected value "${expected}" but found "${last}"`);
      return;
    }
    case 'dblclick':
      return act((el) => el.dblclick({ timeout: t }));
    case 'press': {
      const key = need(value, 'value');
      const problem = checkKeyChord(key);
      if (problem) throw new ReplayError(`The press value ${problem}`);
      if (selector === undefined) return page.keyboard.press(key);
      return act((el) => el.press(key, { timeout: t }));
    }
    case 'drag': {
      const target = need(value, 'value');
      return act(async (el) => el.dragTo(await visible(page, target, t), { timeout: t }));
    }
    case 'assert_hidden': {
      const sel = need(selector, 'selector');
      const shown = page.locator(sel).filter({ visible: true });
      const { ok } = await poll(async () => String(await shown.count()), (n) => n === '0', t);
      if (!ok) throw new ReplayError(`Expected ${sel} to be hidden`);
      return;
    }
    case 'assert_count': {
      const sel = need(selector, 'selector');
      const expected = parseExpectedCount(need(value, 'value'));
      if (expected === undefined) throw new ReplayError(`The assert_count value must be a whole number, not "${value}"`);
      const { ok, last } = await poll(async () => String(await page.locator(sel).count()), (n) => n === String(expected), t);
      if (!ok) throw new ReplayError(`Expected ${expected} elements matching "${sel}", found ${last || 'none readable'}`);
      return;
    }
    case 'assert_attribute': {
      const sel = need(selector, 'selector');
      const check = parseAttributeCheck(need(value, 'value'));
      if ('error' in check) throw new ReplayError(`The assert_attribute value ${check.error}`);
      const re = check.op === 'pattern' ? compiled('assert_attribute', check.source) : undefined;
      try {
        const el = await present(page, sel, t);
        const matches = (v: string | null): boolean =>
          v !== null && (check.op === 'equals' ? v === check.expected : check.op === 'token' ? v.split(/\s+/).includes(check.token) : re ? re.test(v) : true);
        const deadline = Date.now() + t;
        for (let last: string | null = null; ; await new Promise((r) => setTimeout(r, 100))) {
          last = await el.getAttribute(check.name, { timeout: 1000 }).catch(() => last);
          if (matches(last)) return;
          if (Date.now() >= deadline) throw new ReplayError(`Expected attribute "${check.name}" of ${sel} to match ${value}, but ${last === null ? 'it has no such attribute' : `found "${last}"`}`);
        }
      } finally {
        re?.dispose();
      }
    }
    case 'assert_url': {
      const expected = need(value, 'value');
      const source = patternSource(expected);
      const re = source !== undefined ? compiled('assert_url', source) : undefined;
      try {
        const { ok, last } = await poll(async () => page.url(), re ? (u) => re.test(u) : (u) => u.includes(expected), t);
        if (!ok) throw new ReplayError(`Expected the URL ${re ? `to match ${expected}` : `to contain "${expected}"`} but it is "${last}"`);
      } finally {
        re?.dispose();
      }
      return;
    }
    case 'go_back':
    case 'go_forward':
    case 'reload':
      return history(page, step.action, o.navigationTimeoutMs);
    case 'upload':
      // The file is the runner's (an artifact of the organization): a re-run here cannot set it.
      throw new ReplayError('an upload step cannot be replayed outside the runner', true);
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
