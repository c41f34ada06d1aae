import { anchoredSelectors } from './candidates.js';

describe('anchored selectors', () => {
  it('hang the element from its ancestors’ identifying attributes, nearest first, and never from state, handlers or generated values', () => {
    const out = anchoredSelectors('SPAN', ['menu-button', 'css-1x2y3z', 'iACzre', '-depth2'], [
      { tag: 'div', attributes: { class: 'col', 'data-field': 'price', 'aria-sort': 'ascending', tabindex: '0', onclick: 'go()', id: 'ember1234' } },
      { tag: 'section', attributes: { 'aria-label': 'Books', style: 'color: red', title: 'x'.repeat(61), class: 'css-1x2y3z sc-AxjAm bKZyXp' } },
    ]);
    // Each ancestor's attributes first, then its stable classes (a styling name).
    expect(out.map((c) => c.selector)).toEqual(['div[data-field="price"] span.menu-button', 'div.col span.menu-button', 'section[aria-label="Books"] span.menu-button']);
    expect(out.every((c) => c.kind === 'xpath')).toBe(true);
  });

  it('quote values safely and skip attribute names CSS cannot take as written', () => {
    const out = anchoredSelectors('label', [], [{ tag: 'li', attributes: { 'aria-label': 'Say "hi"', 'xml:lang': 'en', 'data-x': '\n' } }]);
    expect(out.map((c) => c.selector)).toEqual(['li[aria-label="Say \\"hi\\""] label']);
  });
});
