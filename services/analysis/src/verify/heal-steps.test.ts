import type { Step } from '@assay/steps';
import type { Fingerprint } from '../relocation/fingerprint.js';
import { healFurther, substitute, withoutStep, type HealFurtherDeps, type Substitution } from './heal-steps.js';

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

  it('is run without the healed step as the control of a possible pick, every other substitution made', () => {
    const control = withoutStep(STEPS, SUBS, 3);
    expect(control.map((s) => s.step_id)).toEqual(['a', 'b', 'd', 'e', 'f', 'g', 'h', 'i']);
    // The other healed selector stays substituted (the control must not fail on a step already healed).
    expect(control.find((s) => s.step_id === 'b')!.selector).toBe('[data-testid="coupon-field"]');
    expect(control.find((s) => s.step_id === 'e')!.selector).toBe('[data-testid="apply-coupon"]');
    expect(STEPS).toHaveLength(9);
  });
});

// The step-by-step verification's decisions, with the browser's part (re-runs,
// snapshot checks) given as data: which later step it heals, and why it stops.
const box = { x: 10, y: 10, width: 100, height: 20 };
const button = (text: string, xpath: string): Fingerprint => ({ tag: 'button', classes: [], text, attributes: {}, xpath, bbox: box, role: 'button', accessible_name: text, is_button: true, enabled: true, visible: true });
const CASE: Step[] = [
  { step_id: 's1', action: 'navigate', value: '/' },
  { step_id: 's2', action: 'click', selector: '#open' },
  { step_id: 's3', action: 'click', selector: '#save' },
  { step_id: 's4', action: 'assert_text', selector: '#status', value: 'Saved' },
] as Step[];
const first: Substitution = { index: 2, step_id: 's2', from: '#open', to: 'role=button[name="Open"]', candidate_signature: 'x', tier: 'confident' };
const saveWas = button('Save', '/html[1]/body[1]/div[1]/button[2]');
const page = [button('Open', '/html[1]/body[1]/div[1]/button[1]'), button('Save', '/html[1]/body[1]/div[1]/button[2]'), button('Cancel', '/html[1]/body[1]/div[1]/button[3]')];
const failedAt = (n: number, count: number) => ({ status: 'failed' as const, reason: `step ${n} failed`, failed_step: n, evidence: { candidates: page, html: '<html></html>', target: { selector: CASE[n - 1]!.selector!, count } } });

function deps(over: Partial<HealFurtherDeps> = {}): HealFurtherDeps {
  return {
    knownFor: async (s) => (s.step_id === 's3' ? saveWas : undefined),
    checkSnapshot: async () => ({ status: 'passed', selector: 'role=button[name="Save"]', reason: 'unique', tried: 1 }),
    rerun: async () => ({ status: 'passed', reason: 'all steps passed' }),
    takeRerun: () => true,
    maxFurther: 3,
    ...over,
  };
}

describe('healFurther', () => {
  it('heals the next broken step in the re-run page and covers both in the next re-run', async () => {
    const r = await healFurther(CASE, first, failedAt(3, 0), deps());
    expect(r.subs.map((s) => [s.index, s.to])).toEqual([
      [2, 'role=button[name="Open"]'],
      [3, 'role=button[name="Save"]'],
    ]);
    expect(r.reruns).toEqual([expect.objectContaining({ steps: [2], status: 'failed', failed_step: 3 }), expect.objectContaining({ steps: [2, 3], status: 'passed' })]);
    expect(r.stopped).toBeUndefined();
  });

  it('says why it went no further', async () => {
    // The element is there: the step failed for another reason (a value), which healing never touches.
    expect((await healFurther(CASE, first, failedAt(4, 1), deps())).stopped).toBe('step 4: the step failed for another reason than its element not being found');
    expect((await healFurther(CASE, first, failedAt(4, 0), deps())).stopped).toBe("step 4: no passing run has recorded this step's element");
    expect((await healFurther(CASE, first, failedAt(3, 0), deps({ takeRerun: () => false }))).stopped).toBe('step 3: the re-run budget of this execution is spent');
    expect((await healFurther(CASE, first, failedAt(3, 0), deps({ checkSnapshot: async () => ({ status: 'failed', reason: 'matches 2 elements', tried: 3 }) }))).stopped).toBe('step 3: the snapshot check did not pass (matches 2 elements)');
    expect((await healFurther(CASE, first, failedAt(2, 0), deps())).stopped).toBe('step 2: the re-run failed at or before a step already healed');
    const noSave = { ...failedAt(3, 0), evidence: { ...failedAt(3, 0).evidence, candidates: [button('Delete account', '/html[1]/body[1]/form[1]/button[1]')] } };
    expect((await healFurther(CASE, first, noSave, deps())).stopped).toMatch(/^step 3: (no candidate is likely enough|the closest candidate contradicts)/);
    // Every re-run it made is reported, the last one's failure included.
    const twice = await healFurther(CASE, first, failedAt(3, 0), deps({ rerun: async () => failedAt(4, 1) }));
    expect(twice.reruns.map((x) => x.steps)).toEqual([[2], [2, 3]]);
    expect(twice.stopped).toBe('step 4: the step failed for another reason than its element not being found');
  });
});
