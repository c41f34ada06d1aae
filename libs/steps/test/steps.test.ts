import type { Browser, Page } from 'playwright-core';
import { launchChromium, DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { runStep, StepError, type ElementFingerprint, type StepContext } from '@assay/steps';

jest.setTimeout(60_000);

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await launchChromium({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH });
  page = await (await browser.newContext()).newPage();
});
afterAll(() => browser?.close());

// 500 ms for the waits that are meant to run out; steps meant to pass get room for a loaded machine.
const context = (fingerprints: Map<string, ElementFingerprint>, stepTimeoutMs = 500): StepContext => ({
  page,
  baseUrl: 'http://unused.test',
  variables: {},
  stepTimeoutMs,
  navigationTimeoutMs: 1000,
  saveScreenshot: () => Promise.reject(new Error('no screenshots here')),
  fingerprints,
});

describe('element fingerprints in one execution', () => {
  it('reads a fingerprint once per page and selector and reuses it for the next case', async () => {
    await page.setContent('<button id="buy" class="primary" data-testid="buy" onclick="this.textContent = \'Bought\'">Buy</button>');
    const shared = new Map<string, ElementFingerprint>();
    const first = await runStep(context(shared, 10_000), { step_id: 's1', action: 'click', selector: '#buy' });
    expect(first.fingerprint).toMatchObject({ tag: 'button', id: 'buy', classes: ['primary'], text: 'Buy', attributes: { 'data-testid': 'buy' } });
    expect(shared.size).toBe(1);
    // The click ran: the page changed, yet the execution keeps the first reading.
    expect(await page.textContent('#buy')).toBe('Bought');
    const second = await runStep(context(shared, 10_000), { step_id: 's1', action: 'click', selector: '#buy' });
    expect(second.fingerprint).toBe(first.fingerprint);
    // A new execution reads it afresh.
    const fresh = await runStep(context(new Map(), 10_000), { step_id: 's1', action: 'assert_visible', selector: '#buy' });
    expect(fresh.fingerprint).toMatchObject({ text: 'Bought' });
  });

  it('still says "Element not found" when the fingerprint came from the cache and the element is gone', async () => {
    await page.setContent('<button id="buy">Buy</button>');
    const shared = new Map<string, ElementFingerprint>();
    await runStep(context(shared, 10_000), { step_id: 's1', action: 'click', selector: '#buy' });
    await page.setContent('<p>sold out</p>');
    const failure = await runStep(context(shared), { step_id: 's1', action: 'click', selector: '#buy' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StepError);
    expect(failure).toMatchObject({ message: 'Element not found: #buy (waited 500 ms)', type: 'element_not_found' });
  });
});

describe('the added actions, step by step', () => {
  const run = (step: Record<string, unknown>, opts: Partial<Pick<StepContext, 'stepTimeoutMs' | 'variables' | 'readUpload'>> = {}) =>
    runStep({ ...context(new Map()), ...opts }, { step_id: 's', ...step } as never).then(
      () => undefined,
      (e: unknown) => e,
    );

  it('waits for an element to go before assert_hidden passes, and counts the visible ones when it fails', async () => {
    await page.setContent('<p class="toast">Saved</p><p class="toast">Sent</p><p class="toast" hidden>Old</p><script>setTimeout(() => document.querySelectorAll(".toast").forEach((t) => t.remove()), 300)</script>');
    expect(await run({ action: 'assert_hidden', selector: '.toast' }, { stepTimeoutMs: 10_000 })).toBeUndefined();
    await page.setContent('<p class="toast">Saved</p><p class="toast">Sent</p>');
    expect(await run({ action: 'assert_hidden', selector: '.toast' })).toMatchObject({ message: 'Expected .toast to be hidden, but 2 matching elements are visible (waited 500 ms)', type: 'assertion_failed' });
  });

  it('says "Invalid selector" at once for assert_count and assert_hidden', async () => {
    await page.setContent('<ul><li>a</li></ul>');
    expect(await run({ action: 'assert_count', selector: 'li[', value: '1' })).toMatchObject({ message: 'Invalid selector: li[', type: 'error' });
    expect(await run({ action: 'assert_hidden', selector: 'li[' })).toMatchObject({ message: 'Invalid selector: li[', type: 'error' });
    expect(await run({ action: 'assert_count', selector: 'li', value: '1' }, { stepTimeoutMs: 10_000 })).toBeUndefined();
    expect(await run({ action: 'assert_count', selector: 'li', value: '2' })).toMatchObject({ message: 'Expected 2 elements matching "li", found 1' });
    expect(await run({ action: 'assert_count', selector: 'ol li', value: '1' })).toMatchObject({ message: 'Expected 1 element matching "ol li", found 0' });
  });

  it('checks values that came from {{variables}} when the step runs', async () => {
    await page.setContent('<input id="q"><a id="all" class="selected" href="#/">All</a>');
    const variables = { re: '/[a-/', n: 'three', key: 'Entr', attr: 'my class=x' };
    expect(await run({ action: 'assert_url', value: '{{re}}' }, { variables })).toMatchObject({ message: 'The assert_url value /[a-/ is not a valid regular expression: missing ]: [a-', type: 'error' });
    expect(await run({ action: 'assert_text', selector: '#all', value: '{{re}}' }, { variables })).toMatchObject({ type: 'error' });
    expect(await run({ action: 'assert_count', selector: 'a', value: '{{n}}' }, { variables })).toMatchObject({ message: 'The assert_count value must be a whole number of elements, not "three"', type: 'error' });
    expect(await run({ action: 'press', value: '{{key}}' }, { variables })).toMatchObject({ message: expect.stringMatching(/^The press value "Entr" is not a key/), type: 'error' });
    expect(await run({ action: 'assert_attribute', selector: '#all', value: '{{attr}}' }, { variables })).toMatchObject({ message: expect.stringMatching(/^The assert_attribute value must be name=expected/), type: 'error' });
  });

  it('matches attributes exactly, by one word, by pattern or by presence', async () => {
    await page.setContent('<a id="all" class="nav selected" href="#/" data-x="">All</a>');
    for (const value of ['class~=selected', 'class=nav selected', 'href=/^#\\/$/', 'data-x', 'data-x=', 'HREF=#/']) {
      expect([value, await run({ action: 'assert_attribute', selector: '#all', value })]).toEqual([value, undefined]);
    }
    expect(await run({ action: 'assert_attribute', selector: '#all', value: 'class=selected' })).toMatchObject({ message: 'Expected attribute "class" of #all to be "selected", but found "nav selected"' });
    expect(await run({ action: 'assert_attribute', selector: '#all', value: 'href=/active/' })).toMatchObject({ message: 'Expected attribute "href" of #all to match /active/, but found "#/"' });
    expect(await run({ action: 'assert_attribute', selector: '#none', value: 'href' })).toMatchObject({ message: 'Element not found: #none (waited 500 ms)', type: 'element_not_found' });
  });

  it('fails an upload when the reader does not know the artifact, and calls it unsupported where there is no reader', async () => {
    await page.setContent('<input id="file" type="file">');
    const upload = { action: 'upload', selector: '#file', value: '3f0c8a52-5d3e-4b8e-9a41-0d6f1c2b7e90' };
    expect(await run(upload, { readUpload: () => Promise.resolve(undefined) })).toMatchObject({
      message: 'Artifact 3f0c8a52-5d3e-4b8e-9a41-0d6f1c2b7e90 not found: upload the file with POST /api/v1/artifacts and use the id it answers',
      type: 'error',
    });
    expect(await run(upload)).toMatchObject({ message: 'An upload step cannot run here: its file is one of the run’s uploads, which only the runner reads', type: 'unsupported' });
    const file = { filename: 'a.txt', content_type: 'text/plain', data: Buffer.from('hello') };
    expect(await run(upload, { readUpload: (id) => Promise.resolve(id === upload.value ? file : undefined) })).toBeUndefined();
    expect(await page.$eval('#file', (el) => (el as unknown as { files: ArrayLike<{ name: string }> }).files[0]?.name)).toBe('a.txt');
  });

  it('says "Unknown action" for an action no step kind runs', async () => {
    expect(await run({ action: 'teleport', selector: '#file' })).toMatchObject({ message: 'Unknown action "teleport"', type: 'error' });
  });
});

describe('the optional parts of the context', () => {
  it('stores a screenshot where the context can, and only checks the element where it cannot', async () => {
    await page.setContent('<p id="shown">Hi</p><p id="gone" hidden>Bye</p>');
    const stored: Buffer[] = [];
    const saving = { ...context(new Map()), saveScreenshot: (png: Buffer) => Promise.resolve(`artifact-${stored.push(png)}`) };
    expect(await runStep(saving, { step_id: 's', action: 'screenshot', selector: '#shown' })).toEqual({ screenshotArtifactId: 'artifact-1' });
    expect(stored[0]!.subarray(1, 4).toString()).toBe('PNG');
    const { saveScreenshot: _, ...without } = context(new Map());
    expect(await runStep(without, { step_id: 's', action: 'screenshot', selector: '#shown' })).toEqual({});
    await expect(runStep(without, { step_id: 's', action: 'screenshot', selector: '#gone' })).rejects.toMatchObject({ message: 'Element not visible: #gone (waited 500 ms)', type: 'element_not_interactable' });
  });

  it('reads a fingerprint for each step when the context keeps no cache', async () => {
    await page.setContent('<button id="buy">Buy</button>');
    const { fingerprints: _, ...uncached } = context(new Map());
    const out = await runStep(uncached, { step_id: 's', action: 'assert_visible', selector: '#buy' });
    expect(out.fingerprint).toMatchObject({ tag: 'button', id: 'buy', text: 'Buy' });
  });
});
