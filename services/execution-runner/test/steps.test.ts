import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '@assay/browser';
import { runStep, StepError, type ElementFingerprint, type StepContext } from '../src/runner/steps.js';

jest.setTimeout(60_000);

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await launchChromium({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
  page = await (await browser.newContext()).newPage();
});
afterAll(() => browser?.close());

const context = (fingerprints: Map<string, ElementFingerprint>): StepContext => ({
  page,
  baseUrl: 'http://unused.test',
  variables: {},
  stepTimeoutMs: 500,
  navigationTimeoutMs: 1000,
  saveScreenshot: () => Promise.reject(new Error('no screenshots here')),
  fingerprints,
});

describe('element fingerprints in one execution', () => {
  it('reads a fingerprint once per page and selector and reuses it for the next case', async () => {
    await page.setContent('<button id="buy" class="primary" data-testid="buy" onclick="this.textContent = \'Bought\'">Buy</button>');
    const shared = new Map<string, ElementFingerprint>();
    const first = await runStep(context(shared), { step_id: 's1', action: 'click', selector: '#buy' });
    expect(first.fingerprint).toMatchObject({ tag: 'button', id: 'buy', classes: ['primary'], text: 'Buy', attributes: { 'data-testid': 'buy' } });
    expect(shared.size).toBe(1);
    // The click ran: the page changed, yet the execution keeps the first reading.
    expect(await page.textContent('#buy')).toBe('Bought');
    const second = await runStep(context(shared), { step_id: 's1', action: 'click', selector: '#buy' });
    expect(second.fingerprint).toBe(first.fingerprint);
    // A new execution reads it afresh.
    const fresh = await runStep(context(new Map()), { step_id: 's1', action: 'assert_visible', selector: '#buy' });
    expect(fresh.fingerprint).toMatchObject({ text: 'Bought' });
  });

  it('still says "Element not found" when the fingerprint came from the cache and the element is gone', async () => {
    await page.setContent('<button id="buy">Buy</button>');
    const shared = new Map<string, ElementFingerprint>();
    await runStep(context(shared), { step_id: 's1', action: 'click', selector: '#buy' });
    await page.setContent('<p>sold out</p>');
    const failure = await runStep(context(shared), { step_id: 's1', action: 'click', selector: '#buy' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StepError);
    expect(failure).toMatchObject({ message: 'Element not found: #buy (waited 500 ms)', type: 'element_not_found' });
  });
});
