import { readdirSync, readFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { ASSAY_DISABLED_FEATURES, CHROMIUM_ARGS, chromiumArgs, DEFAULT_CHROMIUM_PATH, FULL_CHROMIUM_PATH, launchChromium } from '@assay/browser';

/**
 * The browser's own command line, read from /proc: the headless shell has no
 * chrome://version, and CDP's Browser.getBrowserCommandLine wants
 * --enable-automation. Playwright starts the browser as a child of this process.
 */
function commandLine(executablePath: string): string[] {
  const lines = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const args = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').filter(Boolean);
        return ppid === process.pid && args.includes('--remote-debugging-pipe') && args.some((a) => a.includes(executablePath.split('/').pop()!)) ? [args] : [];
      } catch {
        return [];
      }
    });
  if (lines.length !== 1) throw new Error(`expected one ${executablePath} child of this process, found ${lines.length}`);
  return lines[0]!;
}

const featureLists = (args: string[]) => args.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice('--disable-features='.length).split(','));

/** Top-level targets of the browser, through a CDP browser session. */
async function targetTypes(browser: Browser): Promise<string[]> {
  const session = await browser.newBrowserCDPSession();
  const { targetInfos } = (await session.send('Target.getTargets')) as { targetInfos: Array<{ type: string; url: string }> };
  return targetInfos.map((t) => `${t.type} ${t.url}`);
}

const BINARIES = [
  ['the headless shell (the default)', DEFAULT_CHROMIUM_PATH],
  ['the full browser', FULL_CHROMIUM_PATH],
] as const;

describe.each(BINARIES)('launchChromium with %s', (_, executablePath) => {
  jest.setTimeout(60_000);

  it("keeps every feature Playwright disables in the one --disable-features Chromium honours, plus Assay's", async () => {
    const browser = await launchChromium({ executablePath });
    try {
      const lists = featureLists(commandLine(executablePath));
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

  it('gets exactly our flags, and only switches this binary takes (no --headless=new-only ones)', async () => {
    const browser = await launchChromium({ executablePath });
    try {
      const line = commandLine(executablePath);
      for (const arg of chromiumArgs()) expect(line).toContain(arg);
      // Playwright picks the old --headless for both; new headless mode is the full browser's own default.
      expect(line).toContain('--headless');
      expect(line.filter((a) => a.startsWith('--headless='))).toEqual([]);
      // The page works: a flag the binary rejected would have failed the launch or the page.
      const page = await (await browser.newContext()).newPage();
      await page.setContent('<p id="x">ok</p>');
      expect(await page.locator('#x').innerText()).toBe('ok');
      expect(browser.version()).toMatch(/^\d+\./);
    } finally {
      await browser.close();
    }
  });
});

describe('launchChromium, the omnibox popups', () => {
  jest.setTimeout(60_000);

  it('the full browser opens omnibox WebUI renderers for a new context on a plain launch, and none with our flags', async () => {
    const plain = await chromium.launch({ executablePath: FULL_CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
    const tuned = await launchChromium({ executablePath: FULL_CHROMIUM_PATH });
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

  it('the headless shell has no window, so no omnibox renderers even on a plain launch', async () => {
    const plain = await chromium.launch({ executablePath: DEFAULT_CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
    try {
      await (await plain.newContext()).newPage();
      await new Promise((r) => setTimeout(r, 1000));
      const targets = await targetTypes(plain);
      expect(targets.some((t) => t.startsWith('page '))).toBe(true);
      expect(targets.filter((t) => t.includes('omnibox'))).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
