import type { FlowRow, FormInfo, PageAnalysis } from '../db/database.js';
import { flowToCase } from './generate.service.js';

const ORIGIN = 'http://s.test';
const path = (url: string) => url.slice(ORIGIN.length) || '/';

const page = (p: Partial<PageAnalysis>): PageAnalysis => ({
  links: [],
  forms: [],
  headings: [],
  lists: [],
  navs: [],
  modals: [],
  pagination: [],
  writes: [],
  reads: [],
  link_selectors: {},
  ...p,
});
const flow = (type: string, steps: unknown[], pages: string[]): FlowRow =>
  ({ session_id: 's', flow_id: 'flow_1', flow_key: 'k', type, pages, steps, confidence: 1, evidence: [], created_at: new Date() }) as unknown as FlowRow;
const searchForm = (f: Partial<FormInfo>): FormInfo => ({
  selector: '#search',
  method: 'get',
  action: `${ORIGIN}/products`,
  fields: [{ tag: 'input', type: 'search', name: 'q', selector: '#q', label: 'Search', autocomplete: '' }],
  submit: '#go',
  ...f,
});

describe('flowToCase', () => {
  it('checks the path of every page a click leads to, except the bare root', () => {
    const pages = new Map([
      [`${ORIGIN}/`, page({ headings: [{ selector: '#home', text: 'Home' }] })],
      [`${ORIGIN}/products`, page({ headings: [{ selector: '#title', text: 'Products' }] })],
    ]);
    const c = flowToCase(
      flow('navigation', [{ action: 'navigate', url: `${ORIGIN}/products` }, { action: 'click', selector: 'a[href="/"]', url: `${ORIGIN}/` }, { action: 'click', selector: 'a[href="/products"]', url: `${ORIGIN}/products` }], [`${ORIGIN}/`, `${ORIGIN}/products`]),
      pages,
      path,
    );
    expect(c.steps.map((s) => [s.action, s.selector ?? s.value])).toEqual([
      ['navigate', '/products'],
      ['assert_text', '#title'],
      ['click', 'a[href="/"]'],
      ['assert_text', '#home'],
      ['click', 'a[href="/products"]'],
      ['assert_url', '/products'],
      ['assert_text', '#title'],
    ]);
  });

  it('checks that a GET search puts its term in the URL', () => {
    const pages = new Map([[`${ORIGIN}/products`, page({ forms: [searchForm({})], lists: [{ selector: '#results', items: 3, kind: 'list', has_actions: false }] })]]);
    const c = flowToCase(
      flow('search', [{ action: 'navigate', url: `${ORIGIN}/products` }, { action: 'fill_form', selector: '#q', value: 'red shoes' }, { action: 'submit', selector: '#go' }], [`${ORIGIN}/products`]),
      pages,
      path,
    );
    expect(c.steps.slice(3)).toEqual([
      { action: 'click', selector: '#go' },
      { action: 'assert_url', value: 'q=red+shoes', description: 'The search is in the URL (q=red+shoes)' },
    ]);
  });

  it('submits a search form that has no button with Enter in its field', () => {
    const pages = new Map([[`${ORIGIN}/products`, page({ forms: [searchForm({ submit: null })], lists: [{ selector: '#results', items: 3, kind: 'list', has_actions: false }] })]]);
    const c = flowToCase(flow('search', [{ action: 'navigate', url: `${ORIGIN}/products` }, { action: 'fill_form', selector: '#q', value: 'a' }], [`${ORIGIN}/products`]), pages, path);
    expect(c.steps.map((s) => [s.action, s.selector, s.value])).toEqual([
      ['navigate', undefined, '/products'],
      ['fill', '#q', 'a'],
      ['assert_value', '#q', 'a'],
      ['press', '#q', 'Enter'],
    ]);
  });
});
