import { DEFAULT_CHROMIUM_PATH, launchChromium } from '@assay/browser';
import { judgeElement } from './judge.js';

// The healing bench's judge with real Chromium, on pages that render again after loading, as single-page apps do.
jest.setTimeout(60_000);

let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Awaited<ReturnType<typeof browser.newPage>>;
beforeAll(async () => {
  browser = await launchChromium({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH });
});
afterAll(() => browser.close());
beforeEach(async () => {
  page = await browser.newPage();
});
afterEach(() => page.close());

// The results list is rendered at once, then rendered again (new nodes) 300 ms later with the menu it belongs to.
const RERENDERED = `<!doctype html><ul id="results"><li><label>Add a pet</label></li></ul>
<script>setTimeout(() => { document.getElementById('results').innerHTML = '<li role="menuitem" class="result"><label>Add a pet</label></li><li role="menuitem" class="result"><label>Find a pet</label></li>'; }, 300);</script>`;

describe("the healing bench's judge", () => {
  it('finds the labelled element again once the page rendered it, and takes an element inside it as it', async () => {
    await page.setContent(RERENDERED);
    expect(await judgeElement(page, 'text=Add a pet', 'li.result >> nth=0')).toEqual({ verdict: 'right' });
  });

  it('calls another element wrong, and an element nothing labels unjudged', async () => {
    await page.setContent(RERENDERED);
    expect(await judgeElement(page, 'text=Find a pet', 'li.result >> nth=0')).toEqual({ verdict: 'wrong' });
    expect(await judgeElement(page, 'text=Add a pet', '#nowhere', 500)).toMatchObject({ verdict: 'unjudged' });
  });
});
