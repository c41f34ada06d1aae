import type { FieldInfo, FormInfo, PageAnalysis } from '../db/database.js';
import { detectFlows, discoveryConfidence, type AnalyzedPage } from './flows.js';
import { detectPatterns } from './patterns.js';

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

  it('needs results that load or list for a search, and writes on the resource it reads for CRUD', () => {
    const box = form({ method: 'get', action: 'http://s.test/find', fields: [field({ name: 'term', type: 'search' })] });
    // Without results that load or list, it is only a form.
    expect(detectFlows([page('/find', { forms: [box] })]).map((f) => f.type)).toEqual(['form_submission']);
    const withResults = detectFlows([page('/find', { forms: [box], reads: [{ endpoint: '/api/find', url: 'http://s.test/api/find?term=', status: 200 }] })]);
    expect(withResults[0]).toMatchObject({ type: 'search', evidence: ['search input', 'results fetched from /api/find'] });

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
