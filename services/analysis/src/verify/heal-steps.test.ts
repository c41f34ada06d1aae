import type { Step } from '@assay/steps';
import { substitute, type Substitution } from './heal-steps.js';

// What a test asserts is the person's: healing replaces locators only.
const STEPS: Step[] = [
  { step_id: 'a', action: 'navigate', value: '/basket?coupon=1' },
  { step_id: 'b', action: 'fill', selector: '#coupon', value: 'SAVE10' },
  { step_id: 'c', action: 'click', selector: '#apply-coupon', description: 'Apply' },
  { step_id: 'd', action: 'assert_text', selector: '#coupon', value: 'Coupon SAVE10 applied' },
  { step_id: 'e', action: 'assert_count', selector: '#apply-coupon', value: '1' },
  { step_id: 'f', action: 'assert_url', value: '/basket' },
  { step_id: 'g', action: 'assert_screenshot', selector: '#apply-coupon', threshold: 0.1, max_diff_ratio: 0.01, mask: ['#coupon'] },
  { step_id: 'h', action: 'request', request: { method: 'GET', url: '/api/basket' }, expect: ['status=200', '$.coupon exists'], save_as: { c: '$.coupon' } },
  { step_id: 'i', action: 'wait', timeout: 500 },
] as Step[];
const SUBS: Substitution[] = [
  { index: 2, step_id: 'b', from: '#coupon', to: '[data-testid="coupon-field"]', candidate_signature: 'x', tier: 'confident' },
  { index: 3, step_id: 'c', from: '#apply-coupon', to: '[data-testid="apply-coupon"]', candidate_signature: 'y', tier: 'plausible' },
];

describe('a healed case', () => {
  it('has the same steps with only the failed selectors replaced: no expected value, URL, count, mask or request changes', () => {
    const healed = substitute(STEPS, SUBS);
    expect(healed.map((s) => s.selector)).toEqual([undefined, '[data-testid="coupon-field"]', '[data-testid="apply-coupon"]', '[data-testid="coupon-field"]', '[data-testid="apply-coupon"]', undefined, '[data-testid="apply-coupon"]', undefined, undefined]);
    healed.forEach((s, i) => {
      const { selector: _a, ...rest } = s;
      const { selector: _b, ...was } = STEPS[i]!;
      expect(rest).toEqual(was);
    });
    // The steps as written are untouched (the re-run gets a copy).
    expect(STEPS[1]!.selector).toBe('#coupon');
  });
});
