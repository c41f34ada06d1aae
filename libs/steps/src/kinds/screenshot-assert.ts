import type { Locator, Page } from 'playwright-core';
import { SCREENSHOT_LIMITS } from '@assay/contracts';
import type { StepKind, VisualOutcome } from '../context.js';
import { isInvalidSelector, visible } from '../elements.js';
import { StepError } from '../step-error.js';
import { firstLine } from '../values.js';
import { compareScreenshots, percent, type DiffRegion } from '../visual.js';

/** The colour masked parts are painted in, in the baseline and the capture alike. */
const MASK_COLOR = '#FF00FF';

/** The page's viewport as `WIDTHxHEIGHT` (the window's when the context sets none). */
async function viewportOf(page: Page): Promise<string> {
  const v = page.viewportSize() ?? (await page.evaluate<{ width: number; height: number }>('({ width: innerWidth, height: innerHeight })'));
  return `${v.width}x${v.height}`;
}

/**
 * Waits for the page to be still, then captures: web fonts loaded
 * (`document.fonts.ready`), CSS animations and transitions stopped by
 * Playwright (`animations: "disabled"`: finite ones jump to their end,
 * infinite ones back to their start), the caret hidden, and two consecutive
 * captures equal (a late image, a script still moving things). Answers the
 * last capture.
 * @throws StepError when the captures keep changing until the timeout.
 */
async function stillCapture(page: Page, el: Locator | undefined, mask: Locator[], timeoutMs: number): Promise<Buffer> {
  const deadline = Date.now() + timeoutMs;
  await Promise.race([page.evaluate('document.fonts.ready.then(() => undefined)'), new Promise((r) => setTimeout(r, timeoutMs))]);
  const options = { type: 'png' as const, animations: 'disabled' as const, caret: 'hide' as const, mask, maskColor: MASK_COLOR, scale: 'css' as const };
  const take = () => (el ? el.screenshot({ ...options, timeout: Math.max(1, deadline - Date.now()) }) : page.screenshot({ ...options, fullPage: false, timeout: Math.max(1, deadline - Date.now()) }));
  let previous = await take();
  for (let attempt = 1; ; attempt++) {
    const current = await take();
    if (current.equals(previous)) return current;
    if (Date.now() >= deadline) throw new StepError(`The page did not hold still for a screenshot: ${attempt + 1} consecutive captures in ${timeoutMs} ms all differed`, 'assertion_failed');
    previous = current;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const describeRegion = (r: DiffRegion) => `${r.width}x${r.height} at (${r.x},${r.y})`;

/**
 * Compares a capture of the element (or the viewport) with the baseline of
 * this case, step, browser and viewport. Without a baseline the capture
 * becomes it (kept by the store once the case passes). A mismatch stores
 * actual, expected and diff images and fails as `visual_change`, naming the
 * share of differing pixels and the regions.
 */
export const assertScreenshot: StepKind = {
  async run(ctx, step) {
    const store = ctx.screenshots;
    if (!store) throw new StepError('assert_screenshot needs the runner’s baseline store (not available here)', 'unsupported');
    const t = ctx.stepTimeoutMs;
    const el = step.selector ? await visible(ctx.page, step.selector, t) : undefined;
    const mask = (step.mask ?? []).map((s) => ctx.page.locator(s));
    for (const [i, m] of mask.entries()) {
      await m.count().catch((err: unknown) => {
        if (isInvalidSelector(err)) throw new StepError(`Invalid mask selector: ${step.mask![i]}`, 'element_not_found');
        throw err;
      });
    }
    const browser = ctx.page.context().browser()?.browserType().name() ?? 'chromium';
    const viewport = await viewportOf(ctx.page);
    const name = step.value || undefined;
    const key = { stepId: step.step_id, browser, viewport };
    const started = Date.now();
    let actual: Buffer;
    try {
      actual = await stillCapture(ctx.page, el, mask, Math.max(t, 2000));
    } catch (err) {
      if (err instanceof StepError) throw err;
      throw new StepError(`Screenshot failed: ${firstLine(err)}`, 'error');
    }
    const captureMs = Date.now() - started;
    ctx.profile?.add('screenshot capture', captureMs);
    const base: Pick<VisualOutcome, 'browser' | 'viewport' | 'name' | 'capture_ms'> = { browser, viewport, ...(name ? { name } : {}), capture_ms: captureMs };

    const baseline = await store.baseline(key);
    if (!baseline) {
      await store.keepAsBaseline({ ...key, ...(name ? { name } : {}) }, actual);
      return { visual: { result: 'baseline_created', ...base } };
    }
    const compareStarted = Date.now();
    let cmp;
    try {
      cmp = compareScreenshots(baseline.png, actual, { threshold: step.threshold ?? SCREENSHOT_LIMITS.defaultThreshold, maxDiffRatio: step.max_diff_ratio ?? SCREENSHOT_LIMITS.defaultMaxDiffRatio });
    } catch (err) {
      throw new StepError(`The baseline could not be read: ${firstLine(err)}`, 'error');
    }
    const compareMs = Date.now() - compareStarted;
    ctx.profile?.add('screenshot compare', compareMs);
    const facts = {
      ...base,
      baseline_id: baseline.id,
      diff_pixels: cmp.diffPixels,
      diff_ratio: Math.round(cmp.diffRatio * 1e6) / 1e6,
      regions: cmp.regions,
      ...(cmp.sizeChanged ? { size_changed: cmp.sizeChanged } : {}),
      compare_ms: compareMs,
    };
    if (cmp.matches) return { visual: { result: 'matched', ...facts } };
    const ids = await store.saveMismatch({ actual, expected: baseline.png, diff: cmp.diffPng! });
    const visual: VisualOutcome = { result: 'mismatch', ...facts, ...ids };
    const what = `${step.selector ? step.selector : 'the viewport'}${name ? ` ("${name}")` : ''}`;
    const allowed = step.max_diff_ratio ? `; ${percent(step.max_diff_ratio)} allowed` : '';
    const size = cmp.sizeChanged ? `; its size changed from ${cmp.sizeChanged.expected} to ${cmp.sizeChanged.actual}` : '';
    const regions = cmp.regions.length ? ` in ${cmp.regions.length === 1 ? '1 region' : `${cmp.regions.length} regions`}: ${cmp.regions.slice(0, 3).map(describeRegion).join(', ')}${cmp.regions.length > 3 ? ', …' : ''}` : '';
    throw new StepError(
      `Screenshot of ${what} differs from its baseline (${browser} ${viewport}): ${percent(cmp.diffRatio)} of pixels differ (${cmp.diffPixels} of ${cmp.totalPixels}${allowed})${regions}${size}`,
      'visual_change',
      { visual },
    );
  },
};
