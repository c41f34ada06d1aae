import { STEP_ACTIONS, WEBHOOK_EVENT_TYPES } from '@assay/contracts/catalogues';
import { EVENT_GROUPS } from './events.js';
import { ACTIONS, actionForm, toApiStep, toEditable } from './steps.js';

// The console reads its step actions and webhook event types from the contracts' catalogues:
// an action or event type added there shows up in the editor and the webhook form with no console edit.
describe('the console’s catalogues', () => {
  it('offer every step action of the contracts’ table, in its order, with the fields the table gives it', () => {
    expect(Object.keys(ACTIONS)).toEqual(Object.keys(STEP_ACTIONS));
    for (const [action, info] of Object.entries(STEP_ACTIONS)) {
      const fields = ('fields' in info ? info.fields : {}) as Record<string, unknown>;
      expect([action, actionForm(action)]).toEqual([
        action,
        { selector: info.selector, value: info.value, timeout: 'timeout' in fields, call: 'request' in fields, visual: 'mask' in fields, hint: expect.any(String) },
      ]);
    }
    expect(ACTIONS.wait.timeout && ACTIONS.request.call && ACTIONS.assert_screenshot.visual).toBe(true);
    expect(actionForm('teleport')).toBeUndefined();
    expect(actionForm('toString')).toBeUndefined();
  });

  it('send the fields an action takes and leave out the others', () => {
    const step = { action: 'wait', selector: '#late', value: 'ignored', description: '', timeout: '3000' };
    expect(toApiStep(step)).toEqual({ action: 'wait', selector: '#late', timeout: 3000 });
    const shot = { ...toEditable({ action: 'assert_screenshot', mask: ['#clock'], threshold: 0.2 }), selector: '' };
    expect(toApiStep(shot)).toEqual({ action: 'assert_screenshot', value: '', mask: ['#clock'], threshold: 0.2 });
    const call = toEditable({ action: 'request', request: { method: 'GET', url: '/api/health' }, expect: ['status=200'] });
    expect(toApiStep(call)).toEqual({ action: 'request', request: { method: 'GET', url: '/api/health' }, expect: ['status=200'] });
  });

  it('list every webhook event type of the catalogue once, grouped by its first word', () => {
    expect(EVENT_GROUPS.flatMap(([, types]) => types).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const [group, types] of EVENT_GROUPS) for (const t of types) expect(t.startsWith(`${group}.`)).toBe(true);
  });
});
