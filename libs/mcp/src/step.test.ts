import { STEP } from './server.js';

describe('MCP step schema', () => {
  it('keeps a request step’s call, assertions and saved values (zod would strip unknown keys)', () => {
    const step = { action: 'request', request: { method: 'POST', url: '/api/items', body: { name: 'x' } }, expect: ['status=201'], save_as: { id: '$.id' } };
    expect(STEP.parse(step)).toEqual(step);
    expect(STEP.parse({ action: 'assert_accessible', value: 'wcag2aa serious' })).toEqual({ action: 'assert_accessible', value: 'wcag2aa serious' });
  });
});
