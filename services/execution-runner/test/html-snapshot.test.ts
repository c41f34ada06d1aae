import type { BrowserContext, Page } from 'playwright-core';
import { BrowserPool, DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { DEFAULT_EGRESS, EgressPolicy } from '@assay/egress';
import { createSilentLogger } from '@assay/logger';
import { htmlSnapshot } from '../src/runner/html-snapshot.js';

// The failure's HTML snapshot with real Chromium: a page larger than the limit (a wiki keeping its store in the page)
// is fitted to it instead of cut, and every element left keeps its absolute XPath.
jest.setTimeout(60_000);

let pool: BrowserPool;
let context: BrowserContext;
beforeAll(() => {
  pool = new BrowserPool(process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH, createSilentLogger(), new EgressPolicy(DEFAULT_EGRESS));
});
afterAll(() => pool.close());
beforeEach(async () => {
  context = (await pool.newContext()).context;
});
afterEach(() => context.close());

const filler = (n: number) => 'x'.repeat(n);
/** A wiki's shape: its code in a script, its store in a hidden div, a small visible page around them. */
const WIKI = `<!doctype html><html><head><title>Wiki</title><script>var core = "${filler(60_000)}";</script></head><body>
<div id="store" style="display:none"><div title="A">${filler(50_000)}</div><div title="B">${filler(30_000)}</div></div>
<nav><button>Recent</button><button>Tools</button></nav>
<div class="note" hidden><p>${filler(5_000)}</p></div>
<main><h1>Getting started</h1><input placeholder="Title"><button>Save</button></main>
<script type="application/json" class="store">${JSON.stringify({ text: filler(40_000) })}</script>
</body></html>`;

// In-page helpers as source text (this package compiles without the DOM's types).
const XPATH_OF = new Function(
  'el',
  `const steps = [];
  for (let n = el; n; n = n.parentElement) {
    const same = n.parentElement ? [...n.parentElement.children].filter((c) => c.tagName === n.tagName) : [n];
    steps.unshift(n.tagName.toLowerCase() + '[' + (same.indexOf(n) + 1) + ']');
  }
  return '/' + steps.join('/');`,
) as (el: unknown) => string;
const AT_XPATH = new Function('x', `const n = document.evaluate(x, document, null, 9, null).singleNodeValue; return n ? n.outerHTML : null;`) as (x: string) => string | null;
const xpathOf = (page: Page, selector: string) => page.locator(selector).evaluate(XPATH_OF);
const atXpath = (page: Page, xpath: string) => page.evaluate(AT_XPATH, xpath);

describe('the HTML snapshot at a failure', () => {
  it('keeps a page under the limit as it is', async () => {
    const page = await context.newPage();
    await page.setContent('<!doctype html><main><button>Save</button><script>var x = 1;</script></main>');
    const snap = await htmlSnapshot(page, 200_000);
    expect(snap).toEqual({ html: await page.content(), fitted: [], truncated: false });
  });

  it('empties script bodies first, then the largest hidden subtrees, until the page fits; every element keeps its XPath', async () => {
    const page = await context.newPage();
    await page.setContent(WIKI);
    const live = await page.content();
    expect(live.length).toBeGreaterThan(180_000);
    const save = await xpathOf(page, 'main button');
    const tools = await xpathOf(page, 'nav button >> nth=1');

    // Scripts alone are enough under a limit that leaves the store in.
    const scriptsOnly = await htmlSnapshot(page, 100_000);
    expect(scriptsOnly).toMatchObject({ fitted: ['scripts'], truncated: false });
    expect(scriptsOnly.html).toContain(filler(50_000));
    expect(scriptsOnly.html).not.toContain('var core');

    // Under 20 kB the store goes too, the small hidden note only if needed (it is not).
    const fitted = await htmlSnapshot(page, 20_000);
    expect(fitted).toMatchObject({ fitted: ['scripts', 'hidden'], truncated: false });
    expect(fitted.html.length).toBeLessThanOrEqual(20_000);
    expect(fitted.html).toContain('<div id="store" style="display:none"></div>');
    expect(fitted.html).toContain(filler(5_000));
    expect(fitted.html).toContain('<input placeholder="Title">');

    // Parsed again, as the snapshot check does, the visible elements are where their XPath says.
    const again = await context.newPage();
    await again.setContent(fitted.html);
    expect(await atXpath(again, save)).toBe('<button>Save</button>');
    expect(await atXpath(again, tools)).toBe('<button>Tools</button>');
    // The live page is untouched.
    expect(await page.content()).toBe(live);
  });

  it('cuts and says so only when even the fitted page is over the limit', async () => {
    const page = await context.newPage();
    await page.setContent(`<!doctype html><main><p>${filler(30_000)}</p><script>${filler(30_000)}</script></main>`);
    const snap = await htmlSnapshot(page, 20_000);
    expect(snap).toMatchObject({ fitted: ['scripts'], truncated: true });
    expect(snap.html.length).toBe(20_000);
  });
});
