import type { Locator } from 'playwright-core';
import { checkKeyChord, type Step } from '@assay/contracts';
import { required, type StepContext, type StepKind } from '../context.js';
import { act, fingerprintOf, visible, waitAndRead } from '../elements.js';
import { StepError } from '../step-error.js';

/**
 * A step that acts on one element: one round trip waits for it and
 * fingerprints it (unless this execution already has its fingerprint), then
 * `fn` acts, waiting for actionability itself. (Running the two at once
 * measured slower: the machine is CPU-bound.)
 */
export function elementAction(fn: (el: Locator, t: number, step: Step, ctx: StepContext) => Promise<unknown>): StepKind {
  return {
    async run(ctx, step) {
      const sel = required(step, 'selector');
      const t = ctx.stepTimeoutMs;
      const el = ctx.page.locator(sel).first();
      const fingerprint = await fingerprintOf(ctx, sel, waitAndRead(el, sel, t));
      await act(ctx.page, sel, t, () => fn(el, t, step, ctx));
      return { fingerprint };
    },
  };
}

export const click = elementAction((el, t) => el.click({ timeout: t }));
export const fill = elementAction((el, t, step) => el.fill(required(step, 'value'), { timeout: t }));
export const typeText = elementAction(async (el, t, step) => {
  await el.fill('', { timeout: t });
  await el.pressSequentially(required(step, 'value'), { delay: 10, timeout: t });
});
/** The first option whose value or visible label matches. */
export const select = elementAction((el, t, step) => {
  const v = required(step, 'value');
  return el.selectOption([{ value: v }, { label: v }], { timeout: t });
});
export const check = elementAction((el, t) => el.check({ timeout: t }));
export const uncheck = elementAction((el, t) => el.uncheck({ timeout: t }));
export const hover = elementAction((el, t) => el.hover({ timeout: t }));
export const dblclick = elementAction((el, t) => el.dblclick({ timeout: t }));

/** The value must be a key or chord (@assay/contracts' grammar). */
function keyOf(step: Step): string {
  const key = required(step, 'value');
  const problem = checkKeyChord(key);
  if (problem) throw new StepError(`The press value ${problem}`, 'error');
  return key;
}

const pressOn = elementAction((el, t, step) => el.press(keyOf(step), { timeout: t }));

/** With a selector, on the element; without one, on the page. */
export const press: StepKind = {
  async run(ctx, step) {
    if (step.selector !== undefined) return pressOn.run(ctx, step);
    await ctx.page.keyboard.press(keyOf(step));
    return {};
  },
};

export const drag = elementAction(async (el, t, step, ctx) => {
  const to = await visible(ctx.page, required(step, 'value'), t);
  await el.dragTo(to, { timeout: t });
});

const setFile = elementAction(async (el, t, step, ctx) => {
  const id = required(step, 'value').trim();
  // The reader answers only for the run's organization: another one's id is "not found" like an unknown one.
  const file = await ctx.readUpload!(id);
  if (!file) throw new StepError(`Artifact ${id} not found: upload the file with POST /api/v1/artifacts and use the id it answers`, 'error');
  await el.setInputFiles({ name: file.filename, mimeType: file.content_type, buffer: file.data }, { timeout: t });
});

/** Sets a file input to an uploaded artifact: only where the context can read the run's uploads. */
export const upload: StepKind = {
  run(ctx, step) {
    if (!ctx.readUpload) return Promise.reject(new StepError('An upload step cannot run here: its file is one of the run’s uploads, which only the runner reads', 'unsupported'));
    return setFile.run(ctx, step);
  },
};
