import { STEP_ACTIONS } from '@assay/contracts';
import { ACTIONS, toApiStep, toEditable } from '../../apps/console/src/steps.js';

describe('console step editor: the new steps', () => {
  it('offers every action of the server table', () => {
    expect(Object.keys(ACTIONS).sort()).toEqual(Object.keys(STEP_ACTIONS).sort());
  });

  it('keeps a request step’s call, assertions and saved values through the form', () => {
    const step = {
      step_id: 's1',
      action: 'request',
      request: { method: 'POST', url: '/api/items', headers: { Authorization: 'Bearer {{secret.t}}' }, body: { name: 'x' } },
      expect: ['status=201'],
      save_as: { item_id: '$.id' },
    };
    const editable = toEditable(step);
    expect(editable.call).toContain('"save_as"');
    expect(toApiStep(editable)).toEqual(step);
    // Text that is not JSON goes to the server as it is, whose 400 names steps[i].request.
    expect(toApiStep({ ...editable, call: '{nope' })).toEqual({ step_id: 's1', action: 'request', request: '{nope' });
  });

  it('sends assert_accessible with an optional selector and value', () => {
    expect(toApiStep({ action: 'assert_accessible', selector: '', value: 'wcag2aa serious', description: '', timeout: '' })).toEqual({ action: 'assert_accessible', value: 'wcag2aa serious' });
  });
});
