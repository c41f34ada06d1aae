import type { Response } from 'playwright-core';
import { required, type StepContext, type StepKind, type StepOutput } from '../context.js';
import { assertEgressAllowed, navigationError } from '../navigation.js';
import { StepError } from '../step-error.js';
import { resolveUrl } from '../values.js';

/** Goes to the value joined to the base URL; a refused destination, a failed load or an HTTP status of 400 or more fails the step. */
export const navigate: StepKind = {
  async run(ctx, step) {
    const url = resolveUrl(ctx.baseUrl, required(step, 'value'));
    await assertEgressAllowed(ctx, url);
    try {
      const response = await ctx.page.goto(url, { waitUntil: 'load', timeout: ctx.navigationTimeoutMs });
      if (response && response.status() >= 400) throw new StepError(`Navigation to ${url} answered HTTP ${response.status()}`, 'navigation_failed');
    } catch (err) {
      throw navigationError(ctx, `Navigation to ${url}`, err);
    }
    return {};
  },
};

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

export const goBack: StepKind = { run: (ctx) => moveInHistory(ctx, 'go_back') };
export const goForward: StepKind = { run: (ctx) => moveInHistory(ctx, 'go_forward') };
export const reload: StepKind = { run: (ctx) => moveInHistory(ctx, 'reload') };
