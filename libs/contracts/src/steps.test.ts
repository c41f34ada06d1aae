import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  PatternError,
  SCHEMAS,
  SPEC_STEP_ACTIONS,
  STEP_ACTIONS,
  checkKeyChord,
  checkPatternValue,
  compilePattern,
  contractValidator,
  hasPlaceholder,
  parseAttributeCheck,
  parseExpectedCount,
  patternSource,
  stepActionSpec,
  validateSteps,
} from './index.js';

describe('the step action table', () => {
  it('keeps the spec’s 13 actions first and in order, then the added ones', () => {
    expect(SPEC_STEP_ACTIONS).toEqual(['navigate', 'click', 'fill', 'type', 'select', 'check', 'uncheck', 'hover', 'screenshot', 'wait', 'assert_visible', 'assert_text', 'assert_value']);
    expect(Object.keys(STEP_ACTIONS).slice(13)).toEqual([
      'dblclick',
      'press',
      'assert_hidden',
      'assert_count',
      'assert_attribute',
      'assert_url',
      'go_back',
      'go_forward',
      'reload',
      'upload',
      'drag',
      'assert_accessible',
      'assert_screenshot',
      'request',
    ]);
  });

  it('has an example for every action that passes its own value check', () => {
    for (const [action, spec] of Object.entries(STEP_ACTIONS)) {
      const example = spec.example as { selector?: string; value?: string };
      if (spec.selector !== 'optional') expect([action, example.selector !== undefined]).toEqual([action, spec.selector === 'required']);
      if (spec.value !== 'optional') expect([action, example.value !== undefined]).toEqual([action, spec.value === 'required']);
      const check = stepActionSpec(action)!.checkValue;
      if (check && example.value !== undefined) expect([action, check(example.value)]).toEqual([action, undefined]);
    }
    expect(stepActionSpec('toString')).toBeUndefined();
    expect(stepActionSpec('drag')).toEqual(STEP_ACTIONS.drag);
    expect(stepActionSpec('press')).toEqual({ ...STEP_ACTIONS.press, checkValue: expect.any(Function) });
  });

  it('offers every action in the StepInput schema and describes each in it', () => {
    const schema = SCHEMAS.StepInput as any;
    expect(schema.properties.action.enum).toEqual(Object.keys(STEP_ACTIONS));
    for (const action of Object.keys(STEP_ACTIONS)) expect(schema.description).toContain(`\`${action}\``);
    expect(contractValidator().validate('StepInput', { action: 'go_back' })).toEqual([]);
    expect(contractValidator().validate('StepInput', { action: 'teleport' })).toEqual([{ field: 'action', message: expect.stringContaining('must be one of navigate, click') }]);
  });
});

describe('values written /…/ are regular expressions', () => {
  it('takes the text between the slashes as the pattern, and anything shorter than /x/ as text', () => {
    expect(patternSource('/^Total: \\$20$/')).toBe('^Total: \\$20$');
    expect(patternSource('/#\\/active/')).toBe('#\\/active');
    for (const text of ['/', '//', '/products', 'products/', 'Total']) expect(patternSource(text)).toBeUndefined();
  });

  it('matches with RE2 in time linear in the text, even for patterns that backtrack forever in JavaScript', () => {
    const p = compilePattern('(a+)+$');
    try {
      // A backtracking engine takes 2^n steps on this input; RE2 answers at once.
      expect(p.test(`${'a'.repeat(50_000)}!`)).toBe(false);
      expect(p.test('xaaa')).toBe(true);
    } finally {
      p.dispose();
    }
  });

  it('supports the usual JavaScript syntax, Unicode and repeated tests', () => {
    const p = compilePattern('^\\d{1,2} items? left$');
    expect([p.test('2 items left'), p.test('1 item left'), p.test('12 items left'), p.test('123 items left'), p.test('2 items left')]).toEqual([true, true, true, false, true]);
    p.dispose();
    p.dispose(); // twice is harmless
    const u = compilePattern('café\\s\\w+');
    expect(u.test('Le café noir')).toBe(true);
    u.dispose();
  });

  it('explains patterns it cannot compile, naming lookaround as unsupported', () => {
    expect(() => compilePattern('[a-')).toThrow(PatternError);
    expect(checkPatternValue('/[a-/')).toMatch(/^is not a valid regular expression: missing \]/);
    expect(checkPatternValue('/(?=x)y/')).toMatch(/lookaround and backreferences are not supported/);
    expect(checkPatternValue('/(a)\\1/')).toMatch(/lookaround and backreferences are not supported/);
    expect(checkPatternValue('[a-')).toBeUndefined(); // not written /…/: plain text
  });
});

describe('assert_attribute values', () => {
  it('reads the four forms', () => {
    expect(parseAttributeCheck('class~=selected')).toEqual({ name: 'class', op: 'token', token: 'selected' });
    expect(parseAttributeCheck('href=#/active')).toEqual({ name: 'href', op: 'equals', expected: '#/active' });
    expect(parseAttributeCheck('data-state=')).toEqual({ name: 'data-state', op: 'equals', expected: '' });
    expect(parseAttributeCheck('aria-label=a=b')).toEqual({ name: 'aria-label', op: 'equals', expected: 'a=b' });
    expect(parseAttributeCheck('href=/^#\\/(active)?$/')).toEqual({ name: 'href', op: 'pattern', source: '^#\\/(active)?$' });
    expect(parseAttributeCheck('disabled')).toEqual({ name: 'disabled', op: 'present' });
  });

  it('refuses names that are no attribute names and empty or multi-word tokens', () => {
    for (const bad of ['', '=x', 'my class=x', '"a"=b', 'a/b=c']) expect(parseAttributeCheck(bad)).toEqual({ error: expect.stringContaining('must be name=expected') });
    expect(parseAttributeCheck('class~=')).toEqual({ error: expect.stringContaining('one word') });
    expect(parseAttributeCheck('class~=a b')).toEqual({ error: expect.stringContaining('one word') });
    expect(parseAttributeCheck('href=/[/')).toEqual({ error: expect.stringContaining('not a valid regular expression') });
  });
});

describe('assert_count values', () => {
  it('are whole numbers from 0 to 100000', () => {
    expect(['0', '3', ' 12 ', '100000'].map(parseExpectedCount)).toEqual([0, 3, 12, 100_000]);
    for (const bad of ['', '-1', '2.5', 'three', '100001', '1e3']) expect(parseExpectedCount(bad)).toBeUndefined();
    expect(stepActionSpec('assert_count')!.checkValue!('x')).toBe('must be a whole number of elements from 0 to 100000');
  });
});

describe('press values', () => {
  it('accepts key names, single characters and modifier chords', () => {
    for (const ok of ['Enter', 'Escape', 'Tab', 'Backspace', 'ArrowDown', 'F2', 'a', 'A', '1', '+', 'é', 'Control+A', 'Shift+Tab', 'ControlOrMeta+Shift+KeyZ', 'Shift++', 'Control+a']) {
      expect([ok, checkKeyChord(ok)]).toEqual([ok, undefined]);
    }
  });

  it('names the unknown key or the part that is no modifier', () => {
    expect(checkKeyChord('Entr')).toMatch(/^"Entr" is not a key/);
    expect(checkKeyChord('')).toMatch(/^"" is not a key/);
    expect(checkKeyChord('Control+')).toMatch(/^"" is not a key/);
    expect(checkKeyChord('a+b')).toMatch(/^"a" is not a modifier/);
    expect(checkKeyChord('Enter Enter')).toMatch(/is not a key/);
  });
});

describe('assert_screenshot steps', () => {
  it('take an optional element, name, threshold, max_diff_ratio and mask selectors', () => {
    expect(validateSteps([{ action: 'assert_screenshot' }])).toEqual([]);
    expect(validateSteps([{ action: 'assert_screenshot', value: '' }])).toEqual([]);
    expect(validateSteps([{ action: 'assert_screenshot', selector: '#hero', value: 'hero banner', threshold: 0.2, max_diff_ratio: 0.01, mask: ['#clock', '.avatar'] }])).toEqual([]);
  });

  it('refuses out-of-range numbers, bad masks and names, and the options on other actions', () => {
    expect(validateSteps([{ action: 'assert_screenshot', value: '../x', threshold: 2, max_diff_ratio: -1, mask: ['#a', '', 3] }])).toEqual([
      { field: 'steps[0].value', message: expect.stringMatching(/^must be a name of at most 100 letters/) },
      { field: 'steps[0].threshold', message: 'must be a number from 0 to 1' },
      { field: 'steps[0].max_diff_ratio', message: 'must be a number from 0 to 1' },
      { field: 'steps[0].mask[1]', message: expect.stringMatching(/^must be a selector/) },
      { field: 'steps[0].mask[2]', message: expect.stringMatching(/^must be a selector/) },
    ]);
    expect(validateSteps([{ action: 'assert_screenshot', mask: '#a' }])).toEqual([{ field: 'steps[0].mask', message: 'must be an array of at most 20 selectors' }]);
    expect(validateSteps([{ action: 'assert_visible', selector: '#a', mask: ['#b'], threshold: 0.1 }])).toEqual([
      { field: 'steps[0].mask', message: 'is not used by action "assert_visible"' },
      { field: 'steps[0].threshold', message: 'is not used by action "assert_visible"' },
    ]);
  });
});

it('finds {{placeholders}}, whose format only the run can check', () => {
  expect(hasPlaceholder('{{count}}')).toBe(true);
  expect(hasPlaceholder('class~={{ cls }}')).toBe(true);
  expect(hasPlaceholder('{count}')).toBe(false);
});

it('is the step reference of docs/steps.md: one row per action, each with an example', () => {
  const reference = readFileSync(path.join(__dirname, '../../../docs/steps.md'), 'utf8');
  const rows = reference.split('\n').filter((l) => l.startsWith('| `'));
  for (const action of Object.keys(STEP_ACTIONS)) {
    const row = rows.find((r) => r.split('|')[1]!.includes(`\`${action}\``));
    expect([action, row && /\{"action": "[a-z_]+"/.test(row)]).toEqual([action, true]);
  }
});
