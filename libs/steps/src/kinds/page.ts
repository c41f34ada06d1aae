import { required, type StepKind } from '../context.js';
import { fingerprintOf, readQuietly, visible } from '../elements.js';

/** Waits up to the step's own `timeout` (else the step timeout) for the element to be visible. */
export const wait: StepKind = {
  async run(ctx, step) {
    const sel = required(step, 'selector');
    const el = await visible(ctx.page, sel, step.timeout ?? ctx.stepTimeoutMs);
    return { fingerprint: await fingerprintOf(ctx, sel, readQuietly(el)) };
  },
};

/** A PNG of the element (once visible) or of the whole page, stored by the context; without a store only the element's visibility is checked. */
export const screenshot: StepKind = {
  async run(ctx, step) {
    const t = ctx.stepTimeoutMs;
    const el = step.selector ? await visible(ctx.page, step.selector, t) : undefined;
    if (!ctx.saveScreenshot) return {};
    const png = el ? await el.screenshot({ type: 'png', timeout: t }) : await ctx.page.screenshot({ type: 'png', fullPage: true });
    return { screenshotArtifactId: await ctx.saveScreenshot(png) };
  },
};
