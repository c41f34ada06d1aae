import type { Browser, Page } from 'playwright-core';
import { launchChromium, DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { captureFailureEvidence, FINGERPRINT, MAX_CANDIDATES } from '@assay/steps';

jest.setTimeout(60_000);

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await launchChromium({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
});
afterAll(() => browser?.close());

const LOGIN = `
<style>body { margin: 0; font: 16px sans-serif } label, input, button { display: block; margin: 8px } .row { display: flex; gap: 12px; align-items: center }</style>
<header><h1 id="brand">Acme</h1></header>
<main id="content">
  <form id="login">
    <h2>Sign in to your account</h2>
    <label for="email">Email address</label>
    <input id="email" name="email" type="email" placeholder="you@example.com">
    <div class="row"><span>Forgot it?</span><button class="btn btn-primary" data-testid="login-submit" type="submit">Sign in</button><a href="/help">Help</a></div>
    <p>New here? Create an account</p>
    <button type="button" disabled>Sign in with SSO</button>
    <div style="display:none"><button id="hidden-one">Hidden</button></div>
  </form>
</main>`;

describe('element fingerprints', () => {
  it('captures the properties relocation compares: paths, role, name, neighbours, box', async () => {
    await page.setContent(LOGIN);
    const fp = await page.locator('[data-testid=login-submit]').evaluate(FINGERPRINT);
    expect(fp).toMatchObject({
      tag: 'button',
      id: null,
      classes: ['btn', 'btn-primary'],
      text: 'Sign in',
      attributes: { type: 'submit', 'data-testid': 'login-submit' },
      testid: 'login-submit',
      role: 'button',
      accessible_name: 'Sign in',
      is_button: true,
      enabled: true,
      visible: true,
      xpath: '/html[1]/body[1]/main[1]/form[1]/div[1]/button[1]',
      idxpath: '//*[@id="login"]/div[1]/button[1]',
      neighbor_text: { left: 'Forgot it?', right: 'Help', above: 'Email address', below: 'New here? Create an account' },
    });
    expect(fp.bbox.width).toBeGreaterThan(0);
    expect(fp.bbox.height).toBeGreaterThan(0);

    const email = await page.locator('#email').evaluate(FINGERPRINT);
    expect(email).toMatchObject({ tag: 'input', id: 'email', name: 'email', role: 'textbox', accessible_name: 'Email address', is_button: false, idxpath: '//*[@id="email"]' });
    expect(email.neighbor_text.above).toBe('Email address');
  });

  it('reads every visible candidate on failure and what the failing selector matches now', async () => {
    await page.setContent(LOGIN);
    const { candidates, target } = await captureFailureEvidence(page, '#hidden-one');
    expect(target).toMatchObject({ selector: '#hidden-one', count: 1, visible: false });
    const texts = candidates.map((c) => c.text);
    expect(texts).toEqual(expect.arrayContaining(['Sign in', 'Sign in with SSO', 'Help', 'Email address']));
    expect(texts).not.toContain('Hidden');
    expect(candidates.find((c) => c.text === 'Sign in with SSO')).toMatchObject({ enabled: false, is_button: true });
    expect(candidates.length).toBeLessThanOrEqual(MAX_CANDIDATES);

    const gone = await captureFailureEvidence(page, '#nope');
    expect(gone.target).toEqual({ selector: '#nope', count: 0 });
    // An invalid selector leaves the state out rather than failing the capture.
    const invalid = await captureFailureEvidence(page, '##');
    expect(invalid.target).toBeUndefined();
    expect(invalid.candidates.length).toBe(candidates.length);
  });

  it('takes as candidates elements whose text sits in their children, a pre and a strong, whatever their tag', async () => {
    await page.setContent(`<main>
      <article class="card"><span>Total</span> <span>42 items</span></article>
      <pre>npm install left-pad</pre>
      <p>Status: <strong>Ready</strong></p>
      <section class="long"><p>${'A long section of prose. '.repeat(10)}</p><p>${'More of it. '.repeat(20)}</p></section>
    </main>`);
    const { candidates } = await captureFailureEvidence(page, undefined);
    const byTag = (tag: string) => candidates.filter((c) => c.tag === tag).map((c) => c.text);
    expect(byTag('article')).toEqual(['Total 42 items']);
    expect(byTag('pre')).toEqual(['npm install left-pad']);
    expect(byTag('strong')).toEqual(['Ready']);
    // A whole section of text is no one thing a step meant (its paragraphs are).
    expect(byTag('section')).toEqual([]);
    expect(byTag('p')).toHaveLength(3);
  });

  it("names an element as Playwright's role selector does: CSS-generated text, hidden and aria-hidden children, labels of children", async () => {
    await page.setContent(`<style>
      ul.specs li a::before { content: "\\2022  " } .icon::after { content: "\\2192" } .block { display: block }
      .alt::before { content: "★" / "" } .gone { display: none } .hid { visibility: hidden }
    </style><main>
      <ul class="specs"><li><a href="/s1">sorts titles</a></li></ul>
      <button>Next<span class="icon"></span></button>
      <a href="/p"><span class="block">Price</span><span class="block">list</span></a>
      <button><span class="alt"></span>Favourite</button>
      <a href="/h">Help<span class="gone">hidden</span><span class="hid">not shown</span><span aria-hidden="true">!</span></a>
      <a href="/i"><img alt="Home" src="data:,"></a>
      <button><span aria-label="Close"></span></button>
      <h2>Line one<br>line two</h2>
    </main>`);
    const named = await page.locator('main a, main button, main h2').evaluateAll((els, fp) => els.map((e) => new Function('el', `return (${fp})(el)`)(e)), FINGERPRINT.toString());
    expect(named.map((f: { accessible_name?: string }) => f.accessible_name)).toEqual(['\u2022 sorts titles', 'Next\u2192', 'Price list', 'Favourite', 'Help', 'Home', 'Close', 'Line one line two']);
    // Each name, in a role selector, finds its element in Playwright.
    for (const [i, f] of named.entries()) {
      const found = page.locator(`role=${f.role}[name="${f.accessible_name}"]`);
      expect({ i, n: await found.count() }).toEqual({ i, n: 1 });
      const all = page.locator('main a, main button, main h2');
      expect(await found.evaluate((e, other) => e === other, await all.nth(i).elementHandle())).toBe(true);
    }
  });
});
