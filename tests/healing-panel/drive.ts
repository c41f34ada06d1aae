// What the panel's tools (look.ts, rank.ts) do on a page before they read it: each argument is a selector to
// click, or `fill:<selector>=<text>` to type into a field (split at the last `=`, so the selector may hold one).
import type { launchChromium } from '@assay/browser';

export type Browser = Awaited<ReturnType<typeof launchChromium>>;
export type Page = Awaited<ReturnType<Awaited<ReturnType<Browser['newContext']>>['newPage']>>;

export async function drive(page: Page, actions: string[]): Promise<void> {
  for (const a of actions) {
    const fill = /^fill:(.+)=([^=]*)$/.exec(a);
    if (fill) await page.locator(fill[1]!).first().fill(fill[2]!, { timeout: 5000 });
    else await page.locator(a).first().click({ timeout: 5000 });
    await page.waitForTimeout(800);
  }
}
