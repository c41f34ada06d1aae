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

  it('keeps an assert_screenshot step’s mask, threshold and max_diff_ratio through the form', () => {
    const step = { step_id: 's2', action: 'assert_screenshot', selector: '#hero', value: 'hero', mask: ['#clock', '.avatar'], threshold: 0.2, max_diff_ratio: 0.001 };
    const editable = toEditable(step);
    expect(editable).toMatchObject({ mask: '#clock\n.avatar', threshold: '0.2', max_diff_ratio: '0.001' });
    expect(toApiStep(editable)).toEqual(step);
    // Blank options are left out; a number typed badly goes to the server, whose 400 names the field.
    expect(toApiStep({ action: 'assert_screenshot', selector: '', value: '', description: '', timeout: '', mask: ' \n', threshold: '', max_diff_ratio: 'lots' })).toEqual({
      action: 'assert_screenshot',
      value: '',
      max_diff_ratio: 'lots',
    });
  });
});
