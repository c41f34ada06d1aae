import type { FieldInfo, FormInfo, PageAnalysis } from '../../db/database.js';
import { detectFlows, discoveryConfidence, type AnalyzedPage } from './index.js';
import { detectPatterns } from '../patterns.js';

const field = (f: Partial<FieldInfo>): FieldInfo => ({ tag: 'input', type: 'text', name: '', selector: `#${f.name}`, label: '', autocomplete: '', ...f });
const form = (f: Partial<FormInfo>): FormInfo => ({ selector: '#f', method: 'post', action: '', fields: [], submit: '#go', ...f });
const page = (url: string, a: Partial<PageAnalysis> = {}): AnalyzedPage => ({
  url: `http://s.test${url}`,
  title: url,
  analysis: { links: [], forms: [], headings: [], lists: [], navs: [], modals: [], pagination: [], writes: [], reads: [], link_selectors: {}, ...a },
});

describe('flow detection', () => {
  it('finds a login by its password field, not by a URL that says login', () => {
    const byWords = detectFlows([page('/login', { forms: [form({ fields: [field({ name: 'q' })] })] })]);
    expect(byWords.map((f) => f.type)).not.toContain('authentication');
    const real = detectFlows([page('/welcome', { forms: [form({ fields: [field({ name: 'user' }), field({ name: 'pw', type: 'password' })] })] })]);
    expect(real).toEqual([
      expect.objectContaining({ type: 'authentication', pages: ['http://s.test/welcome'], confidence: 1, steps: [{ action: 'navigate', url: 'http://s.test/welcome' }, { action: 'fill_form', selector: '#user', value: 'Test' }, { action: 'fill_form', selector: '#pw', value: 'Secret-123' }, { action: 'submit', selector: '#go' }] }),
    ]);
  });

  it('finds a search by what the form affords (a search box, or a form that says it searches), not by its shape, and writes on the resource it reads for CRUD', () => {
    const box = form({ method: 'get', action: 'http://s.test/find', fields: [field({ name: 'term', type: 'search' })] });
    expect(detectFlows([page('/find', { forms: [box] })]).map((f) => f.type)).toEqual(['search']);
    const withResults = detectFlows([page('/find', { forms: [box], reads: [{ endpoint: '/api/find', url: 'http://s.test/api/find?term=', status: 200 }] })]);
    expect(withResults[0]).toMatchObject({ type: 'search', evidence: ['search input', 'results fetched from /api/find'] });
    // A one-field GET form that does not say it searches (a URL box and its Explore button) is a form; one that says so is a search.
    const urlBox = form({ method: 'get', action: '', fields: [field({ name: 'url' })] });
    expect(detectFlows([page('/', { forms: [urlBox] })]).map((f) => f.type)).toEqual(['form_submission']);
    expect(detectFlows([page('/', { forms: [{ ...urlBox, search: true }] })]).map((f) => f.type)).toEqual(['search']);

    const list = [{ selector: '#l', items: 2, kind: 'list' as const, has_actions: true }];
    expect(detectFlows([page('/todos', { lists: list, writes: [{ method: 'POST', endpoint: '/api/other' }], reads: [{ endpoint: '/api/todos', url: 'http://s.test/api/todos', status: 200 }] })]).map((f) => f.type)).toEqual([]);
    const crud = detectFlows([page('/todos', { lists: list, writes: [{ method: 'DELETE', endpoint: '/api/todos/{id}' }], reads: [{ endpoint: '/api/todos', url: 'http://s.test/api/todos', status: 200 }] })]);
    expect(crud[0]).toMatchObject({ type: 'crud', evidence: ['DELETE, GET on /api/todos', 'record list on the page'] });
  });

  it('rates a checkout by the stages found and averages the confidence', () => {
    const address = form({ selector: '#ship', method: 'get', action: 'http://s.test/pay', fields: [field({ name: 'street', autocomplete: 'street-address' })] });
    const card = form({ selector: '#card', fields: [field({ name: 'cc', autocomplete: 'cc-number' })] });
    const pages = [page('/basket', { lists: [{ selector: '#t', items: 2, kind: 'table', has_actions: false }], links: ['http://s.test/ship'], link_selectors: { 'http://s.test/ship': '#go-ship' } }), page('/ship', { forms: [address] }), page('/pay', { forms: [card] })];
    const flows = detectFlows(pages);
    expect(flows).toEqual([expect.objectContaining({ type: 'checkout', pages: ['http://s.test/basket', 'http://s.test/ship', 'http://s.test/pay'], confidence: 0.95 })]);
    expect(detectFlows(pages.slice(1))[0]).toMatchObject({ type: 'checkout', confidence: 0.65 });
    expect(discoveryConfidence([{ confidence: 0.95 }, { confidence: 0.65 }])).toBe(0.8);
    expect(discoveryConfidence([])).toBe(0);
  });
});

describe('pattern detection', () => {
  it('groups forms by their fields and navigation by place, with example pages', () => {
    const nav = { selector: '#nav', location: 'header', links: 5, hrefs: [] };
    const login = form({ fields: [field({ name: 'u' }), field({ name: 'p', type: 'password' })] });
    const patterns = detectPatterns([page('/a', { navs: [nav], forms: [login] }), page('/b', { navs: [nav], forms: [login], modals: ['#d'] })]);
    expect(patterns).toEqual([
      { pattern_id: 'pattern_1', type: 'form', occurrences: 2, average_fields: 2, examples: ['http://s.test/a', 'http://s.test/b'] },
      { pattern_id: 'pattern_2', type: 'navigation', occurrences: 2, links: 5, location: 'header', examples: ['http://s.test/a', 'http://s.test/b'] },
      { pattern_id: 'pattern_3', type: 'modal', occurrences: 1, examples: ['http://s.test/b'] },
    ]);
  });
});

describe('flows on single-page apps', () => {
  const login = form({ selector: '#dlg', method: 'script', fields: [field({ name: 'user', selector: '#user' }), field({ name: 'pw', type: 'password', selector: '#pw' })], submit: '#log-in' });
  const panel = { opener: 'role=button[name="Sign in"s]', opener_text: 'Sign in', kind: 'dialog' as const, selector: '#dlg', title: 'Sign in', forms: [login], links: [] };

  it('makes a password form in a dialog an authentication flow that starts with the click opening it, once for every page showing the button', () => {
    const flows = detectFlows([page('/', { panels: [panel] }), page('/about', { panels: [panel] })]).filter((f) => f.type === 'authentication');
    expect(flows).toHaveLength(1);
    expect(flows[0]).toMatchObject({
      pages: ['http://s.test/'],
      steps: [
        { action: 'navigate', url: 'http://s.test/' },
        { action: 'click', selector: 'role=button[name="Sign in"s]' },
        { action: 'wait_for', selector: '#user' },
        { action: 'fill_form', selector: '#user', value: 'Test' },
        { action: 'fill_form', selector: '#pw', value: 'Secret-123' },
        { action: 'submit', selector: '#log-in' },
      ],
      confidence: 1,
    });
  });

  it('makes a type-ahead that called an API or suggested something a search flow, and ignores one that did neither', () => {
    const typed = { selector: '#q', label: 'Search', term: 'lamp', calls: [{ method: 'GET', url: 'http://s.test/api/search?q=lamp', status: 200 }], suggestions: { selector: '#hits', options: 2, matches_term: true } };
    const observed = [{ method: 'GET', endpoint: '/api/search', status: 200, cause: 'search #q' }];
    const [search] = detectFlows([page('/', { typeahead: [typed], observed })]).filter((f) => f.type === 'search');
    expect(search).toMatchObject({
      steps: [{ action: 'navigate', url: 'http://s.test/' }, { action: 'type', selector: '#q', value: 'lamp' }, { action: 'wait_for', selector: '#hits', value: 'lamp' }],
      evidence: ['type-ahead search box "Search"', 'typing "lamp" called GET /api/search', '2 suggestion(s) shown'],
      confidence: 1,
    });
    expect(detectFlows([page('/', { typeahead: [{ ...typed, calls: [], suggestions: null }] })]).filter((f) => f.type === 'search')).toEqual([]);
  });

  it('finds a list of three or more items of one kind and opens the first, but not a menu or a list of two', () => {
    const items = ['a', 'b', 'c'].map((x) => `http://s.test/items/${x}`);
    const selectors = Object.fromEntries(items.map((u) => [u, `a[href="${new URL(u).pathname}"]`]));
    const list = page('/', { links: items, link_selectors: selectors });
    const flows = detectFlows([list, ...items.map((u) => page(new URL(u).pathname, { headings: [{ selector: 'h1', text: 'Item' }] }))]).filter((f) => f.type === 'navigation');
    expect(flows).toEqual([expect.objectContaining({ pages: ['http://s.test/', items[0]], steps: [{ action: 'navigate', url: 'http://s.test/' }, { action: 'click', selector: 'a[href="/items/a"]', url: items[0] }], evidence: ['a list of 3 items linking to /items/{item}', 'each item page has a heading'] })]);
    const inMenu = page('/', { links: items, link_selectors: selectors, navs: [{ selector: 'nav', location: 'header', links: 3, hrefs: items }] });
    expect(detectFlows([inMenu, ...items.map((u) => page(new URL(u).pathname))]).filter((f) => f.evidence[0]?.startsWith('a list'))).toEqual([]);
    expect(detectFlows([page('/', { links: items.slice(0, 2), link_selectors: selectors }), ...items.map((u) => page(new URL(u).pathname))]).filter((f) => f.type === 'navigation')).toEqual([]);
  });

  it('lowers the confidence once for each kind of warning the session carries', () => {
    const flows = [{ confidence: 1 }];
    expect(discoveryConfidence(flows)).toBe(1);
    expect(discoveryConfidence(flows, [{ code: 'empty_page', message: '', pages: [], count: 3 }])).toBe(0.5);
    expect(discoveryConfidence(flows, [{ code: 'single_page', message: '', pages: [], count: 1 }, { code: 'empty_page', message: '', pages: [], count: 1 }])).toBe(0.15);
    expect(discoveryConfidence([], [])).toBe(0);
  });
});

