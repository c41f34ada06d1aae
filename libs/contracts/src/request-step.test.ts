import { checkExpectation, parseExpectation, parseJsonPath, readJsonPath } from './request-step.js';
import { parseAccessibilityCheck, validateSteps } from './steps.js';

const parsed = (line: string) => {
  const e = parseExpectation(line);
  if ('error' in e) throw new Error(e.error);
  return e;
};

describe('request step: the assertion grammar', () => {
  it('reads status, exists, !exists and comparisons with JSON literals', () => {
    expect(parsed('status=201')).toMatchObject({ kind: 'status', op: '=', expected: 201 });
    expect(parsed('status >= 200')).toMatchObject({ kind: 'status', op: '>=', expected: 200 });
    expect(parsed('$.id exists')).toMatchObject({ kind: 'exists', path: ['id'], negate: false });
    expect(parsed('$.error !exists')).toMatchObject({ kind: 'exists', path: ['error'], negate: true });
    expect(parsed('$.items.length>=3')).toMatchObject({ kind: 'compare', path: ['items', 'length'], op: '>=', expected: 3 });
    expect(parsed('$.items[0].name="Ada"')).toMatchObject({ path: ['items', 0, 'name'], op: '=', expected: 'Ada' });
    expect(parsed('$.state=open')).toMatchObject({ expected: 'open' });
  });

  it('refuses what it cannot read, saying what it accepts', () => {
    for (const bad of ['status=2000', 'status is 201', 'id exists', '$.a..b exists', '$.n>abc', 'whatever']) {
      expect(parseExpectation(bad)).toEqual({ error: expect.stringMatching(/must be|not a JSON path/) });
    }
  });

  it('checks a response, naming both values on a mismatch', () => {
    const json = { id: 7, items: [{ name: 'Ada' }], ok: true };
    expect(checkExpectation(parsed('status=201'), 201, json)).toBeUndefined();
    expect(checkExpectation(parsed('status=201'), 500, json)).toBe('Expected status = 201 but it is 500');
    expect(checkExpectation(parsed('status<400'), 302, json)).toBeUndefined();
    expect(checkExpectation(parsed('$.items.length>=3'), 200, json)).toBe('Expected $.items.length>=3 but it is 1');
    expect(checkExpectation(parsed('$.id=7'), 200, json)).toBeUndefined();
    expect(checkExpectation(parsed('$.id="7"'), 200, json)).toBeUndefined();
    expect(checkExpectation(parsed('$.ok=true'), 200, json)).toBeUndefined();
    expect(checkExpectation(parsed('$.id!=7'), 200, json)).toBe('Expected $.id!=7 but it is 7');
    expect(checkExpectation(parsed('$.missing exists'), 200, json)).toMatch(/no such field/);
    expect(checkExpectation(parsed('$.id exists'), 200, undefined)).toMatch(/no such field/);
  });

  it('reads JSON paths', () => {
    expect(parseJsonPath('$')).toEqual([]);
    expect(parseJsonPath('$["odd key"].x')).toEqual(['odd key', 'x']);
    expect(readJsonPath({ a: [{ b: 'x' }] }, ['a', 0, 'b'])).toBe('x');
    expect(readJsonPath({ a: 'abc' }, ['a', 'length'])).toBe(3);
    expect(readJsonPath({}, ['constructor'])).toBeUndefined();
  });
});

describe('request step: validation', () => {
  const step = (extra: Record<string, unknown>) => [{ action: 'request', request: { method: 'POST', url: '/api/records' }, ...extra }];

  it('accepts a full request step', () => {
    expect(validateSteps(step({ expect: ['status=201', '$.id exists'], save_as: { order_id: '$.id' } }))).toEqual([]);
    expect(validateSteps([{ action: 'request', request: { method: 'get', url: 'https://api.example.com/x', headers: { Authorization: 'Bearer {{secret.t}}' }, body: { a: 1 } } }])).toEqual([]);
  });

  it('names each problem with its field', () => {
    expect(validateSteps([{ action: 'request' }])).toEqual([{ field: 'steps[0].request', message: expect.stringMatching(/is required for action "request"/) }]);
    expect(validateSteps([{ action: 'request', request: { method: 'FETCH', url: 'ftp://x', extra: 1, headers: { 'Bad Name': 'x', ok: 'a\nb' } } }]).map((e) => e.field)).toEqual([
      'steps[0].request.extra',
      'steps[0].request.method',
      'steps[0].request.url',
      'steps[0].request.headers.Bad Name',
      'steps[0].request.headers.ok',
    ]);
    expect(validateSteps(step({ expect: ['status is 201'] }))).toEqual([{ field: 'steps[0].expect[0]', message: expect.stringMatching(/^must be status/) }]);
    expect(validateSteps(step({ save_as: { 'secret.x': '$.id', ok: 'id' } })).map((e) => e.field)).toEqual(['steps[0].save_as.secret.x', 'steps[0].save_as.ok']);
    expect(validateSteps(step({ selector: '#x' }))).toEqual([{ field: 'steps[0].selector', message: 'is not used by action "request"' }]);
    expect(validateSteps([{ action: 'click', selector: '#x', expect: ['status=200'] }])).toEqual([{ field: 'steps[0].expect', message: 'is not used by action "click"' }]);
  });
});

describe('assert_accessible: its value', () => {
  it('reads a standard and the lowest impact that fails, both optional', () => {
    expect(parseAccessibilityCheck(undefined)).toMatchObject({ standard: 'wcag2aa', tags: ['wcag2a', 'wcag2aa'], minImpact: 'minor' });
    expect(parseAccessibilityCheck('wcag21aa serious')).toMatchObject({ standard: 'wcag21aa', minImpact: 'serious' });
    expect(parseAccessibilityCheck('critical')).toMatchObject({ standard: 'wcag2aa', minImpact: 'critical' });
    for (const bad of ['wcag3', 'serious wcag2aa', 'wcag2aa serious extra']) expect(parseAccessibilityCheck(bad)).toEqual({ error: expect.stringMatching(/^must be a standard/) });
    expect(validateSteps([{ action: 'assert_accessible', value: 'aaa' }])).toEqual([{ field: 'steps[0].value', message: expect.stringMatching(/^must be a standard/) }]);
    expect(validateSteps([{ action: 'assert_accessible' }, { action: 'assert_accessible', selector: 'main', value: 'best-practice moderate' }])).toEqual([]);
  });
});
