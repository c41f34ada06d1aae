import type { Fingerprint } from './fingerprint.js';
import { selectorCandidates, type AncestorAttributes } from './candidates.js';

// The anchored selectors of the ranking: those after the Robula+ XPaths and before the positional paths.
const anchored = (tag: string, classes: string[], ancestors: AncestorAttributes[]) => {
  const fp: Fingerprint = { tag, classes, text: '', attributes: {}, xpath: '/html[1]/body[1]/div[1]/span[2]', bbox: { x: 0, y: 0, width: 0, height: 0 } };
  const all = selectorCandidates(fp, [], ancestors);
  const plain = new Set(selectorCandidates(fp).map((c) => c.selector));
  expect(all.slice(-1)[0]).toMatchObject({ kind: 'position' });
  return all.filter((c) => !plain.has(c.selector));
};

describe('anchored selectors', () => {
  it('hang the element from its ancestors’ identifying attributes, nearest first, and never from state, handlers or generated values', () => {
    const out = anchored('SPAN', ['menu-button', 'css-1x2y3z', 'iACzre', '-depth2'], [
      { tag: 'div', attributes: { class: 'col', 'data-field': 'price', 'aria-sort': 'ascending', tabindex: '0', onclick: 'go()', id: 'ember1234' } },
      { tag: 'section', attributes: { 'aria-label': 'Books', style: 'color: red', title: 'x'.repeat(61), class: 'css-1x2y3z sc-AxjAm bKZyXp' } },
    ]);
    // Each ancestor's attributes first, then its stable classes (a styling name).
    expect(out.map((c) => c.selector)).toEqual(['div[data-field="price"] span.menu-button', 'div.col span.menu-button', 'section[aria-label="Books"] span.menu-button']);
    expect(out.every((c) => c.kind === 'xpath')).toBe(true);
  });

  it('quote values safely and skip attribute names CSS cannot take as written', () => {
    const out = anchored('label', [], [{ tag: 'li', attributes: { 'aria-label': 'Say "hi"', 'xml:lang': 'en', 'data-x': '\n' } }]);
    expect(out.map((c) => c.selector)).toEqual(['li[aria-label="Say \\"hi\\""] label']);
  });
});
