import { STEP } from './test-cases.js';

describe('MCP step schema', () => {
  it('keeps a request step’s call, assertions and saved values (zod would strip unknown keys)', () => {
    const step = { action: 'request', request: { method: 'POST', url: '/api/items', body: { name: 'x' } }, expect: ['status=201'], save_as: { id: '$.id' } };
    expect(STEP.parse(step)).toEqual(step);
    expect(STEP.parse({ action: 'assert_accessible', value: 'wcag2aa serious' })).toEqual({ action: 'assert_accessible', value: 'wcag2aa serious' });
  });

  it('keeps an assert_screenshot step’s mask, threshold and max_diff_ratio', () => {
    const step = { action: 'assert_screenshot', selector: '#hero', value: 'hero', mask: ['#clock'], threshold: 0.2, max_diff_ratio: 0.001 };
    expect(STEP.parse(step)).toEqual(step);
    expect(STEP.safeParse({ ...step, threshold: 2 }).success).toBe(false);
  });
});
