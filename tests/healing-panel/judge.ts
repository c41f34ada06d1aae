// The healing bench's judge of one healed step, in the new version's page: is
// the element the suggested selector finds the labelled one (or inside it)?
import type { launchChromium } from '@assay/browser';
import { runStep, type Step } from '@assay/steps';

// Playwright's types through @assay/browser (playwright-core is not a dependency of the tests' tree).
type Browser = Awaited<ReturnType<typeof launchChromium>>;
type Page = Awaited<ReturnType<Browser['newPage']>>;

export interface Judged {
  verdict: 'right' | 'wrong' | 'unjudged';
  reason?: string;
}

// In the page, from source text (this package compiles without the DOM's types).
const CONNECTED = new Function('nodes', 'return nodes.every((n) => n && n.isConnected);') as (nodes: unknown[]) => boolean;
const SAME_OR_INSIDE = new Function('el', 'labelled', 'return labelled.some((l) => l === el || l.contains(el));') as (el: unknown, labelled: unknown[]) => boolean;

/**
 * Finds both in the page as it is once both are there, and compares them:
 * the labelled elements are looked up again, with the suggested one, until
 * neither was re-rendered between the two look-ups (an app that renders its
 * list again after loading replaces the nodes a first look found).
 */
export async function judgeElement(page: Page, suggested: string, right: string, timeoutMs = 5000): Promise<Judged> {
  const s = page.locator(suggested).first();
  const r = page.locator(right);
  try {
    await s.waitFor({ state: 'attached', timeout: timeoutMs });
  } catch {
    return { verdict: 'unjudged', reason: `the suggested selector ${suggested} finds nothing here` };
  }
  try {
    await r.first().waitFor({ state: 'attached', timeout: timeoutMs });
  } catch {
    return { verdict: 'unjudged', reason: `the label's selector ${right} finds nothing here` };
  }
  for (let attempt = 0; attempt < 10; attempt++) {
    const mine = await s.elementHandle({ timeout: timeoutMs }).catch(() => null);
    const labelled = await r.elementHandles();
    if (mine && labelled.length && (await page.evaluate(CONNECTED, [mine, ...labelled]))) {
      return { verdict: (await mine.evaluate(SAME_OR_INSIDE, labelled)) ? 'right' : 'wrong' };
    }
    await page.waitForTimeout(200);
  }
  return { verdict: 'unjudged', reason: 'the page kept rendering the elements again' };
}

/**
 * Judges a selector at a step of a case, in a page of its own: the steps
 * before it replayed by the step engine on `baseUrl`, then `judgeElement`.
 * A step that cannot be replayed leaves it unjudged, with why.
 */
export async function judgeAtStep(browser: Browser, baseUrl: string, before: Step[], suggested: string, right: string): Promise<Judged> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  try {
    const page = await context.newPage();
    const ctx = { page, baseUrl, variables: {}, stepTimeoutMs: 5000, navigationTimeoutMs: 15000 };
    for (const s of before) await runStep(ctx, s);
    return await judgeElement(page, suggested, right);
  } catch (err) {
    return { verdict: 'unjudged', reason: `judging failed: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 160)}` };
  } finally {
    await context.close();
  }
}
