import { parseAttributeCheck, parseExpectedCount, patternSource } from '@assay/contracts';
import { required, type StepKind } from '../context.js';
import { attached, checkSelector, fingerprintOf, pattern, readQuietly, visible } from '../elements.js';
import { StepError } from '../step-error.js';
import { normalise, waitUntil } from '../values.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export const assertVisible: StepKind = {
  async run(ctx, step) {
    const sel = required(step, 'selector');
    const el = await visible(ctx.page, sel, ctx.stepTimeoutMs);
    return { fingerprint: await fingerprintOf(ctx, sel, readQuietly(el)) };
  },
};

/** Contains the value; `/…/` is a regular expression; an empty value means no text (so the element need not be visible). */
export const assertText: StepKind = {
  async run(ctx, step) {
    const t = ctx.stepTimeoutMs;
    const sel = required(step, 'selector');
    const raw = required(step, 'value');
    const expected = normalise(raw);
    const source = patternSource(raw);
    const re = source !== undefined ? pattern('assert_text', source) : undefined;
    try {
      const el = expected === '' ? await attached(ctx.page, sel, t) : await visible(ctx.page, sel, t);
      const fp = await fingerprintOf(ctx, sel, readQuietly(el));
      const matches = re ? (v: string) => re.test(v) : expected === '' ? (v: string) => v === '' : (v: string) => v.includes(expected);
      const { ok, last } = await waitUntil(async () => normalise(await el.innerText({ timeout: 1000 })), matches, t, '');
      if (!ok) {
        if (re) throw new StepError(`Expected text matching ${raw} but found "${last}"`, 'assertion_failed');
        if (expected === '') throw new StepError(`Expected no text but found "${last}"`, 'assertion_failed');
        throw new StepError(`Expected text "${expected}" but found "${last}"`, 'assertion_failed');
      }
      return fp ? { fingerprint: fp } : {};
    } finally {
      re?.dispose();
    }
  },
};

export const assertValue: StepKind = {
  async run(ctx, step) {
    const t = ctx.stepTimeoutMs;
    const sel = required(step, 'selector');
    const expected = required(step, 'value');
    const el = await visible(ctx.page, sel, t);
    const fp = await fingerprintOf(ctx, sel, readQuietly(el));
    const { ok, last } = await waitUntil(() => el.inputValue({ timeout: 1000 }), (v) => v === expected, t, '');
    if (!ok) throw new StepError(`Expected value "${expected}" but found "${last}"`, 'assertion_failed');
    return fp ? { fingerprint: fp } : {};
  },
};

export const assertHidden: StepKind = {
  async run(ctx, step) {
    const t = ctx.stepTimeoutMs;
    const sel = required(step, 'selector');
    await checkSelector(ctx.page, sel);
    const shown = ctx.page.locator(sel).filter({ visible: true });
    const { ok, last } = await waitUntil(() => shown.count(), (n) => n === 0, t, -1);
    if (!ok) {
      const what = last === 1 ? 'it is visible' : last > 1 ? `${last} matching elements are visible` : 'its visibility could not be read';
      throw new StepError(`Expected ${sel} to be hidden, but ${what} (waited ${t} ms)`, 'assertion_failed');
    }
    return {};
  },
};

export const assertCount: StepKind = {
  async run(ctx, step) {
    const sel = required(step, 'selector');
    const value = required(step, 'value');
    const expected = parseExpectedCount(value);
    if (expected === undefined) throw new StepError(`The assert_count value must be a whole number of elements, not "${value}"`, 'error');
    await checkSelector(ctx.page, sel);
    const all = ctx.page.locator(sel);
    const { ok, last } = await waitUntil(() => all.count(), (n) => n === expected, ctx.stepTimeoutMs, -1);
    if (!ok) throw new StepError(`Expected ${plural(expected, 'element', 'elements')} matching "${sel}", found ${last < 0 ? 'none readable' : last}`, 'assertion_failed');
    return {};
  },
};

export const assertAttribute: StepKind = {
  async run(ctx, step) {
    const t = ctx.stepTimeoutMs;
    const sel = required(step, 'selector');
    const check = parseAttributeCheck(required(step, 'value'));
    if ('error' in check) throw new StepError(`The assert_attribute value ${check.error}`, 'error');
    const re = check.op === 'pattern' ? pattern('assert_attribute', check.source) : undefined;
    try {
      const el = await attached(ctx.page, sel, t);
      const fp = await fingerprintOf(ctx, sel, readQuietly(el));
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
  },
};

/** Contains the value, or matches it when written `/…/`. */
export const assertUrl: StepKind = {
  async run(ctx, step) {
    const expected = required(step, 'value');
    const source = patternSource(expected);
    const re = source !== undefined ? pattern('assert_url', source) : undefined;
    try {
      const { ok, last } = await waitUntil(async () => ctx.page.url(), re ? (u) => re.test(u) : (u) => u.includes(expected), ctx.stepTimeoutMs, '');
      if (!ok) throw new StepError(`Expected the URL ${re ? `to match ${expected}` : `to contain "${expected}"`} but it is "${last}"`, 'assertion_failed');
      return {};
    } finally {
      re?.dispose();
    }
  },
};
