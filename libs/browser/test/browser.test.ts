import { chromium, type Browser } from 'playwright-core';
import { ASSAY_DISABLED_FEATURES, CHROMIUM_ARGS, launchChromium } from '@assay/browser';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The browser's own command line, as chrome://version shows it. */
async function commandLine(browser: Browser): Promise<string[]> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto('chrome://version');
    return (await page.locator('#command_line').innerText()).split(/\s+/);
  } finally {
    await context.close();
  }
}

const featureLists = (args: string[]) => args.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice('--disable-features='.length).split(','));

/** Top-level targets of the browser, through a CDP browser session. */
async function targetTypes(browser: Browser): Promise<string[]> {
  const session = await browser.newBrowserCDPSession();
  const { targetInfos } = (await session.send('Target.getTargets')) as { targetInfos: Array<{ type: string; url: string }> };
  return targetInfos.map((t) => `${t.type} ${t.url}`);
}

describe('launchChromium', () => {
  jest.setTimeout(60_000);

  it("keeps every feature Playwright disables in the one --disable-features Chromium honours, plus Assay's", async () => {
    const browser = await launchChromium({ executablePath: CHROMIUM_PATH });
    try {
      const lists = featureLists(await commandLine(browser));
      // Playwright's list first, ours last: the last one is the one applied.
      expect(lists.length).toBeGreaterThanOrEqual(2);
      const applied = lists[lists.length - 1]!;
      const playwrights = lists[0]!;
      expect(playwrights.filter((f) => !applied.includes(f))).toEqual([]);
      for (const f of ASSAY_DISABLED_FEATURES) expect(applied).toContain(f);
    } finally {
      await browser.close();
    }
  });

  it('opens no omnibox WebUI renderers for a new context, which a plain launch does', async () => {
    const plain = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
    const tuned = await launchChromium({ executablePath: CHROMIUM_PATH });
    try {
      for (const b of [plain, tuned]) await (await b.newContext()).newPage();
      const omnibox = async (b: Browser) => (await targetTypes(b)).filter((t) => t.includes('omnibox'));
      // The popups come with the window, a moment after the page: wait until the plain browser has them.
      const deadline = Date.now() + 20_000;
      while ((await omnibox(plain)).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect((await omnibox(plain)).length).toBeGreaterThan(0);
      expect(await omnibox(tuned)).toEqual([]);
    } finally {
      await Promise.all([plain.close(), tuned.close()]);
    }
  });
});
