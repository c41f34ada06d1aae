import type { Diagnostics, RunTestResult } from '../clients/runner.client.js';
import { flakinessOf } from './flakiness.js';
import { normaliseError, TRIAGE, CATEGORIES } from './categories.js';
import { attributeDiff, present } from './describe.js';
import { diagnose, fingerprintFromSelector, networkCause, type FailureInput } from './diagnose.js';

const test = (over: Partial<RunTestResult>): RunTestResult => ({
  test_id: 't1',
  name: 'Checkout',
  position: 0,
  priority: 'medium',
  status: 'failed',
  duration_ms: 100,
  error: null,
  error_step: 2,
  test_case_version: 'v1',
  steps: [
    { step_id: 's1', action: 'navigate', value: '/cart' },
    { step_id: 's2', action: 'click', selector: '#checkout' },
  ],
  step_results: [],
  screenshot: null,
  trace: null,
  started_at: null,
  completed_at: '2026-03-01T10:00:00.000Z',
  ...over,
});

const input = (error: string, errorType: string, d: Partial<Diagnostics> = {}, over: Partial<FailureInput> = {}): FailureInput => ({
  test: test({ error }),
  diagnostics: { failed_step: { index: 2, step_id: 's2', action: 'click', selector: '#checkout', error_type: errorType }, page_url: 'http://shop.test/cart', ...d },
  flakiness: flakinessOf(['passed', 'failed']),
  rejected: new Set(),
  ...over,
});

describe('diagnose', () => {
  it('reads page errors and network causes off navigation failures', () => {
    expect(diagnose(input('Navigation to http://shop.test/cart answered HTTP 502', 'navigation_failed'))).toMatchObject({ category: 'page_error', facts: { status: 502, url: 'http://shop.test/cart' } });
    expect(diagnose(input('Navigation to http://shop.test/ failed: page.goto: net::ERR_NAME_NOT_RESOLVED at http://shop.test/', 'navigation_failed'))).toMatchObject({ category: 'network_error', facts: { code: 'ERR_NAME_NOT_RESOLVED', cause: expect.stringMatching(/DNS/) } });
    expect(diagnose(input('Navigation to http://shop.test/ failed: page.goto: net::ERR_CERT_AUTHORITY_INVALID', 'navigation_failed'))?.facts.cause).toMatch(/TLS/);
    expect(diagnose(input('Navigation to http://shop.test/ failed: page.goto: Timeout 15000ms exceeded.', 'navigation_failed'))).toMatchObject({ category: 'timeout', facts: { kind: 'navigation' } });
    expect(networkCause('net::ERR_CONNECTION_REFUSED')).toMatch(/refused/);
    // What the runner says when the proxy could not connect (it keeps Chromium's own error names).
    expect(diagnose(input('Navigation to http://shop.test/ failed: net::ERR_CONNECTION_REFUSED (shop.test:80)', 'navigation_failed'))).toMatchObject({ category: 'network_error', facts: { code: 'ERR_CONNECTION_REFUSED' } });
    expect(diagnose(input('Navigation to http://169.254.169.254/ blocked by the egress policy (cloud metadata address 169.254.169.254)', 'egress_blocked'))).toMatchObject({ category: 'network_error', facts: { cause: expect.stringMatching(/egress policy/) } });
    expect(networkCause('Expected text "a" but found "b"')).toBeUndefined();
  });

  it('blames the document a click led to before the element it then missed', () => {
    const d = diagnose(input('Element not found: #checkout (waited 5000 ms)', 'element_not_found', { failed_requests: [{ method: 'GET', url: 'http://shop.test/cart', type: 'document', step: 1, status: 503 }] }));
    expect(d).toMatchObject({ category: 'page_error', facts: { status: 503 } });
  });

  it('says timeout when the element appeared after the step stopped waiting', () => {
    const d = diagnose(input('Element not found: #checkout (waited 5000 ms)', 'element_not_found', { selector_state: { selector: '#checkout', count: 1, visible: true } }));
    expect(d).toMatchObject({ category: 'timeout', facts: { kind: 'late_element' } });
  });

  it('files a screenshot mismatch as visual_change with the share of pixels and the regions', () => {
    const visual = { result: 'mismatch', browser: 'chromium', viewport: '1280x720', diff_pixels: 1200, diff_ratio: 0.0231, regions: [{ x: 16, y: 107, width: 368, height: 68, pixels: 1200 }], expected_url: 'http://assay.test/api/v1/artifacts/e', actual_url: 'http://assay.test/api/v1/artifacts/a', diff_url: 'http://assay.test/api/v1/artifacts/d' };
    const error = 'Screenshot of #visual differs from its baseline (chromium 1280x720): 2.31% of pixels differ (1200 of 51948) in 1 region: 368x68 at (16,107)';
    const d = diagnose(input(error, 'visual_change', { failed_step: { index: 2, step_id: 's2', action: 'assert_screenshot', selector: '#visual', error_type: 'visual_change' }, visual }))!;
    expect(d).toMatchObject({ category: 'visual_change', confidence: 0.97, facts: { diff_ratio: 0.0231, diff_pixels: 1200, regions: visual.regions, viewport: '1280x720', images: { expected: visual.expected_url, actual: visual.actual_url, diff: visual.diff_url } } });
    expect(TRIAGE[d.category]).toBe('to_investigate');
    const p = present(d, { expectedSelector: '#visual', pageUrl: 'http://shop.test/visual' });
    expect(p.description).toMatch(/2\.31% of the pixels differ in 1 region \(368x68 at \(16,107\)\)/);
    expect(p.fix_suggestions.join(' ')).toMatch(/accept the failed run’s capture as the new baseline/);
    // Without the runner's facts the share is read off the message.
    expect(diagnose(input(error, 'visual_change'))?.facts.diff_ratio).toBeCloseTo(0.0231, 6);
  });

  it('quotes what an assertion found, unless a failed API call of the page explains it', () => {
    const e = 'Expected text "Total: $20" but found "Total: $25"';
    expect(diagnose(input(e, 'assertion_failed'))).toMatchObject({ category: 'assertion_mismatch', facts: { expected: 'Total: $20', found: 'Total: $25' } });
    // Playwright Test's expect() in a suite's test says it on two lines.
    const pw = 'Error: expect(locator).toHaveText(expected) failed\n\nLocator:  locator(\'#title\')\nExpected: "Another Shop"\nReceived: "Assay Shop"\nTimeout:  1000ms';
    expect(diagnose(input(pw, 'assertion_failed'))).toMatchObject({ category: 'assertion_mismatch', confidence: 0.92, facts: { kind: 'text', expected: 'Another Shop', found: 'Assay Shop' } });
    const third = diagnose(input(e, 'assertion_failed', { failed_requests: [{ method: 'GET', url: 'https://analytics.example/collect', type: 'fetch', step: 2, status: 500 }] }));
    expect(third?.category).toBe('assertion_mismatch');
    const own = diagnose(input(e, 'assertion_failed', { failed_requests: [{ method: 'GET', url: 'http://shop.test/api/cart', type: 'fetch', step: 2, status: 500 }] }));
    expect(own).toMatchObject({ category: 'script_error', facts: { found: 'Total: $25' } });
  });

  it('finds a moved element, refuses a contradicting one and never heals a flaky test', () => {
    const known = { fingerprint: { tag: 'button', id: 'checkout', text: 'Checkout', role: 'button', is_button: true, bbox: { x: 10, y: 10, width: 80, height: 30 }, neighbor_text: { left: 'Total: $20' } }, source: 'history' as const };
    const moved = { tag: 'button', id: 'go-to-checkout', text: 'Checkout', role: 'button', is_button: true, bbox: { x: 12, y: 40, width: 80, height: 30 }, neighbor_text: { left: 'Total: $20' }, enabled: true };
    const other = { tag: 'a', text: 'Continue shopping', role: 'link', attributes: { href: '/products' }, bbox: { x: 300, y: 400, width: 120, height: 20 }, enabled: true };
    const e = 'Element not found: #checkout (waited 5000 ms)';
    expect(diagnose(input(e, 'element_not_found', { candidates: [other, moved] }, { known }))).toMatchObject({ category: 'selector_changed', candidate: { id: 'go-to-checkout' } });
    expect(diagnose(input(e, 'element_not_found', { candidates: [other] }, { known }))).toMatchObject({ category: 'element_missing', facts: { reason: expect.stringMatching(/likely enough|contradicts the step: its words "continue shopping"/) } });
    const cart = { ...other, tag: 'button', role: 'button', is_button: true, attributes: {}, text: 'Empty cart', neighbor_text: { above: 'Total: $20' }, bbox: { x: 12, y: 60, width: 80, height: 30 } };
    expect(diagnose(input(e, 'element_not_found', { candidates: [cart] }, { known }))).toMatchObject({ category: 'element_missing', facts: { reason: expect.stringMatching(/likely enough|contradicts the step: its words "empty cart"/) } });
    expect(diagnose(input(e, 'element_not_found', { candidates: [{ ...moved, enabled: false }] }, { known }))).toMatchObject({ category: 'element_not_interactable', facts: { reason: 'disabled' } });
    const flaky = diagnose(input(e, 'element_not_found', { candidates: [other, moved] }, { known, flakiness: flakinessOf(['failed', 'passed', 'failed']) }));
    expect(flaky).toMatchObject({ category: 'flaky', underlying: 'selector_changed' });
    expect(flaky?.candidate).toBeUndefined();
  });

  it('relocates a selector that now finds another element the step cannot use, and leaves the element seen passing covered as it is', () => {
    const known = { fingerprint: { tag: 'button', id: 'checkout', text: 'Checkout', role: 'button', is_button: true, xpath: '/html[1]/body[1]/button[1]', bbox: { x: 10, y: 10, width: 80, height: 30 }, neighbor_text: { left: 'Total: $20' } }, source: 'history' as const };
    const button = { ...known.fingerprint, id: 'go-to-checkout', xpath: '/html[1]/body[1]/main[1]/button[1]', bbox: { x: 12, y: 40, width: 80, height: 30 }, enabled: true };
    // The old selector now finds a layer under the banner, not the button: Playwright waits for it in vain.
    const layer = { tag: 'div', text: 'Checkout', xpath: '/html[1]/body[1]/div[3]', bbox: { x: 0, y: 300, width: 400, height: 20 }, neighbor_text: {}, enabled: true, visible: true };
    const e = 'Could not act on #checkout (waited 5000 ms): locator.click: Timeout 5000ms exceeded. <div class="banner">…</div> intercepts pointer events';
    const moved = diagnose(input(e, 'element_not_interactable', { candidates: [layer, button], selector_state: { selector: '#checkout', count: 1, visible: true, enabled: true, fingerprint: layer } as never }, { known }));
    expect(moved).toMatchObject({ category: 'selector_changed', candidate: { id: 'go-to-checkout' }, facts: { found_instead: { reason: 'covered', element: { tag: 'div' } } } });
    expect(present(moved!, { expectedSelector: '#checkout', occurredAt: '2026-03-01T10:00:00.000Z', known }).description).toMatch(/now finds .* instead, which was covered by something else/);
    // The selector finds the element seen passing, and something covers it: that is what it says, nothing relocated.
    const covered = diagnose(input(e, 'element_not_interactable', { candidates: [layer, button], selector_state: { selector: '#checkout', count: 1, visible: true, enabled: true, fingerprint: button } as never }, { known }));
    expect(covered).toMatchObject({ category: 'element_not_interactable', facts: { reason: 'covered' } });
    // Known only from the selector's text (no passing run read the element): no relocation either.
    const guessed = diagnose(input(e, 'element_not_interactable', { candidates: [layer, button], selector_state: { selector: '#checkout', count: 1, visible: true, enabled: true, fingerprint: layer } as never }, { known: { ...known, source: 'selector' as const } }));
    expect(guessed?.category).toBe('element_not_interactable');
  });

  it('skips a cancelled test and calls a run out of time a timeout', () => {
    expect(diagnose(input('Execution was cancelled', 'cancelled'))).toBeUndefined();
    expect(diagnose(input('Execution timed out after 30 s', 'cancelled'))).toMatchObject({ category: 'timeout', facts: { kind: 'execution' } });
  });
});

describe('presentation', () => {
  it('writes what a tester reads and can act on', () => {
    const d = diagnose(input('Navigation to http://shop.test/cart answered HTTP 500', 'navigation_failed'))!;
    const p = present(d, { expectedSelector: '#checkout', occurredAt: '2026-03-01T10:00:00.000Z' });
    expect(p.description).toBe('The page at http://shop.test/cart answered HTTP 500 during step 2, so the test could not go on.');
    expect(p.fix_suggestions[0]).toBe('The page at http://shop.test/cart answered HTTP 500: check the server log around 2026-03-01 10:00:00 UTC.');
    expect(attributeDiff({ tag: 'button', id: 'a', text: 'Go' }, { tag: 'button', id: 'b', text: 'Go' })).toEqual([{ property: 'id', before: 'a', after: 'b' }]);
  });

  it('leads with one sentence of what changed and one of what to do, with no selector, score or API route in them', () => {
    const page = present(diagnose(input('Navigation to http://shop.test/cart answered HTTP 500', 'navigation_failed'))!, {});
    expect([page.summary, page.next_step]).toEqual(['The app answered HTTP 500 for /cart during step 2.', 'Check the app’s server log around the time of the run, then run it again.']);
    const known = { source: 'history' as const, fingerprint: { tag: 'button', id: 'add-to-cart-button', text: 'Add to cart' } };
    const missing = diagnose(input('Element not found: #add-to-cart-button', 'element_not_found', {}, {}))!;
    const words = present({ ...missing, category: 'element_missing', facts: { reason: 'no candidate scores 0.425 or more and none stands out (best 0.38, next 0.34)' } }, { expectedSelector: '#add-to-cart-button', pageUrl: 'http://shop.test/products/1', known });
    expect(words.summary).toBe('The button "Add to cart" is no longer on /products/1.');
    expect(words.description).not.toMatch(/0\.4|scores/);
    const changed = present(
      { ...missing, category: 'selector_changed', facts: {}, candidate: { tag: 'button', text: 'Add to bag' } },
      { expectedSelector: '#add-to-cart-button', pageUrl: 'http://shop.test/products/1', known, verification: { verified: true, selector: '[data-testid="add"]', snapshot: { status: 'passed', kind: 'test-id' } as never, rerun: { status: 'passed' } as never } },
    );
    expect([changed.summary, changed.next_step]).toEqual(['The button "Add to cart" on /products/1 changed, so step 2 no longer finds it.', 'Apply the fix: it points step 2 at the button "Add to bag", and a re-run with it passed.']);
    for (const p of [page, words, changed]) {
      expect(`${p.summary} ${p.next_step}`).not.toMatch(/#add-to-cart-button|data-testid|\/api\/|failure-analysis|\d\.\d{2}/);
      expect(p.fix_suggestions.join(' ')).not.toMatch(/\/api\/|failure-analysis|POST/);
    }
  });
});

describe('categories, errors, flakiness', () => {
  it('maps every category to a ReportPortal defect type', () => {
    for (const c of CATEGORIES) expect(TRIAGE[c]).toMatch(/^(product_bug|automation_bug|system_issue|no_defect|to_investigate)$/);
  });

  it('normalises what changes between occurrences of the same error', () => {
    expect(normaliseError('Element not found: #buy (waited 5000 ms)')).toBe(normaliseError('Element not found: #buy (waited 2000 ms)'));
    expect(normaliseError('Expected text "Total: $20" but found "Total: $25"')).toBe('Expected text "…" but found "…"');
    expect(normaliseError('Navigation to http://127.0.0.1:4321/x answered HTTP 500')).toBe(normaliseError('Navigation to http://127.0.0.1:5555/x answered HTTP 500'));
    expect(normaliseError('Element not found: #buy')).not.toBe(normaliseError('Element not found: #sell'));
  });

  it('counts flips, and needs two of them to call a test flaky', () => {
    expect(flakinessOf(['passed', 'passed', 'failed', 'failed'])).toMatchObject({ flips: 1, flaky: false, band: null });
    expect(flakinessOf(['passed', 'failed', 'passed', 'failed'])).toMatchObject({ runs: 4, flips: 3, flip_rate: 1, flaky: true, band: 'high' });
    const mostlyPassing = [...Array(28).fill('passed'), 'failed', 'passed', 'failed'] as Array<'passed' | 'failed'>;
    expect(flakinessOf(mostlyPassing)).toMatchObject({ runs: 30, flips: 3, flaky: true, band: 'medium' });
    const rare = [...Array(26).fill('passed'), 'failed', ...Array(2).fill('passed'), 'failed'] as Array<'passed' | 'failed'>;
    expect(flakinessOf(rare)).toMatchObject({ flips: 3, flip_rate: 0.103, band: 'medium' });
    expect(flakinessOf([...Array(20).fill('passed'), 'failed', 'passed', ...Array(8).fill('passed')] as Array<'passed' | 'failed'>)).toMatchObject({ flips: 2, band: 'low' });
  });

  it('guesses an element from a selector when no run recorded it', () => {
    expect(fingerprintFromSelector('form#login > button.btn.primary[type="submit"]')).toMatchObject({ tag: 'button', classes: ['btn', 'primary'], attributes: { type: 'submit' } });
    expect(fingerprintFromSelector('[data-testid=buy]')).toMatchObject({ tag: '*', testid: 'buy' });
    expect(fingerprintFromSelector('#go')).toMatchObject({ id: 'go' });
  });
});
