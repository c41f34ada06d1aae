import { addTallies, changesBeyondSelectors, healedShare, labelFor, startOf, tally, type Label, type StepOutcome } from './score.js';

const labels: Label[] = [
  { start: '/', old_selector: '#go', right: 'role=button[name="Go"]' },
  { start: '*', old_selector: '#go', right: 'gone' },
  { start: '*', old_selector: '.menu', right: 'nav' },
];

describe('labelFor', () => {
  it('takes the exact start first, then any start, else nothing', () => {
    expect(labelFor(labels, '#go', '/')?.right).toBe('role=button[name="Go"]');
    expect(labelFor(labels, '#go', '/other')?.right).toBe('gone');
    expect(labelFor(labels, '.menu', '/x')?.right).toBe('nav');
    expect(labelFor(labels, '#nothing', '/')).toBeUndefined();
  });

  it("takes a case's own label before one for every case, and never another case's", () => {
    const byCase: Label[] = [
      { start: '/', old_selector: '#item', case: 'Search', right: '.results a' },
      { start: '*', old_selector: '#item', case: 'Menu', right: 'nav a' },
      { start: '/', old_selector: '#item', right: 'a' },
    ];
    expect(labelFor(byCase, '#item', '/', 'Search')?.right).toBe('.results a');
    expect(labelFor(byCase, '#item', '/', 'Menu')?.right).toBe('nav a');
    expect(labelFor(byCase, '#item', '/', 'Other')?.right).toBe('a');
    expect(labelFor(byCase, '#item', '/')?.right).toBe('a');
    expect(labelFor(byCase.slice(0, 1), '#item', '/', 'Menu')).toBeUndefined();
  });
});

describe('startOf', () => {
  it('keeps the path and hash, not the origin (its port changes per run)', () => {
    expect(startOf('http://127.0.0.1:4001/docs/#/pets', 'http://127.0.0.1:4001')).toBe('/docs/#/pets');
    expect(startOf('/guides/', 'http://127.0.0.1:9')).toBe('/guides/');
    expect(startOf(undefined, 'http://127.0.0.1:9')).toBe('/');
  });
});

describe('changesBeyondSelectors', () => {
  const before = [
    { step_id: 'a', action: 'navigate', value: '/' },
    { step_id: 'b', action: 'click', selector: '#go' },
    { step_id: 'c', action: 'assert_text', selector: '#out', value: 'Done' },
  ];
  it('answers nothing when only the suggested selectors changed', () => {
    const after = [before[0]!, { ...before[1]!, selector: 'role=button[name="Go"]' }, { ...before[2]!, selector: '[data-testid="out"]' }];
    expect(changesBeyondSelectors(before, after, new Map([['b', 'role=button[name="Go"]'], ['c', '[data-testid="out"]']]))).toEqual([]);
  });
  it('names an expected value, URL or field that changed', () => {
    const after = [{ ...before[0]!, value: '/home' }, before[1]!, { ...before[2]!, value: 'Finished', selector: '#done' }];
    expect(changesBeyondSelectors(before, after, new Map([['c', '#done']]))).toEqual(['step 1: value "/" -> "/home"', 'step 3: value "Done" -> "Finished"']);
  });
  it('names a selector that changed without being suggested, and steps added or removed', () => {
    expect(changesBeyondSelectors(before, [before[0]!, { ...before[1]!, selector: '#elsewhere' }, before[2]!], new Map())).toEqual(['step 2: selector "#go" -> "#elsewhere" not suggested']);
    expect(changesBeyondSelectors(before, before.slice(0, 2), new Map())).toEqual(['steps 3 -> 2']);
    expect(changesBeyondSelectors(before, [before[1]!, before[0]!, before[2]!], new Map())[0]).toBe('step 1: id a -> b');
  });
});

describe('tally', () => {
  const base = { case: 'c', action: 'click', start: '/' };
  const present: Label = { start: '/', old_selector: '#a', right: '#b' };
  const gone: Label = { start: '/', old_selector: '#x', right: 'gone' };
  const outcomes: StepOutcome[] = [
    { ...base, step: 1, old_selector: '#a', kind: 'healed', suggested: '#b', label: present, verdict: 'right' },
    { ...base, step: 2, old_selector: '#a', kind: 'healed', suggested: '#c', label: present, verdict: 'wrong' },
    { ...base, step: 3, old_selector: '#x', kind: 'healed', suggested: '#y', label: gone, verdict: 'right' },
    { ...base, step: 4, old_selector: '#x', kind: 'left', label: gone },
    { ...base, step: 5, old_selector: '#a', kind: 'left', label: present },
    { ...base, step: 6, old_selector: '#q', kind: 'healed', suggested: '#r' },
    { ...base, step: 7, old_selector: '#a', kind: 'healed', suggested: '#b', label: present, verdict: 'unjudged' },
    { ...base, step: 8, old_selector: '#t', kind: 'left', label: { start: '*', old_selector: '#t', right: 'changed' } },
  ];
  it('counts a heal onto a gone element as wrong, a step whose asserted text changed as left for a real reason, whatever the judge said, and an unlabelled heal as never right', () => {
    expect(tally(outcomes)).toEqual({ broken: 8, healed: 5, right: 1, wrong: 2, unjudged: 2, leftGone: 2, leftMissed: 1, unlabelled: 1, present: 4 });
  });
  it('shares right heals over the steps whose element is there', () => {
    expect(healedShare(tally(outcomes))).toBe(25);
    expect(healedShare(tally([]))).toBeNull();
    expect(addTallies(tally(outcomes), tally(outcomes.slice(0, 1)))).toMatchObject({ broken: 9, right: 2 });
  });
});
