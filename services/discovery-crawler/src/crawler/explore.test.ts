import { callsOfTyping, valueFor } from './explore.js';

const field = (f: Partial<{ type: string; name: string; label: string; autocomplete: string; tag: string }>) => ({ type: 'text', name: '', label: '', autocomplete: '', tag: 'input', ...f });

describe('valueFor', () => {
  it('never gives the same secret twice', () => {
    const secrets = Array.from({ length: 200 }, () => valueFor(field({ type: 'password', name: 'password' })));
    expect(new Set(secrets).size).toBe(secrets.length);
    for (const s of secrets) expect(s.length).toBeGreaterThanOrEqual(16);
    expect(valueFor(field({ name: 'otp', autocomplete: 'one-time-code' }))).not.toBe(valueFor(field({ name: 'otp', autocomplete: 'one-time-code' })));
  });

  it('answers plausible e-mails, names, numbers and dates by type, autocomplete, name or label', () => {
    const now = new Date('2026-11-25T10:00:00Z');
    expect(valueFor(field({ type: 'email' }))).toMatch(/^[a-z]+\.[0-9a-f]{6}@example\.com$/);
    expect(valueFor(field({ label: 'Full name' }))).toMatch(/^[A-Z][a-z]+ [A-Z][A-Za-z-]+$/);
    expect(valueFor(field({ autocomplete: 'given-name' }))).toMatch(/^[A-Z][a-z]+$/);
    expect(Number(valueFor(field({ type: 'number', name: 'qty' })))).toBeGreaterThanOrEqual(1);
    expect(valueFor(field({ type: 'date' }), now)).toBe('2026-11-25');
    expect(valueFor(field({ name: 'postal' }))).toMatch(/^\d{5}$/);
    expect(valueFor(field({ tag: 'textarea', name: 'message' }))).toMatch(/Assay/);
    expect(valueFor(field({ type: 'url' }))).toBe('https://example.com/');
  });
});

describe('callsOfTyping', () => {
  it('leaves out a late call of a word typed before, keeps calls of this word and calls that carry no word', () => {
    const calls = [
      { url: 'http://h/-/data/search/acme' },
      { url: 'http://h/-/data/search/left' },
      { url: 'http://h/api/q?term=left%20pad' },
      { url: 'http://h/api/suggest?q=Acme+left' },
      { url: 'http://h/api/config' },
      { url: 'http://h/page', document: true },
    ];
    expect(callsOfTyping(calls, 'left', ['acme']).map((c) => c.url)).toEqual([
      'http://h/-/data/search/left',
      'http://h/api/q?term=left%20pad',
      'http://h/api/suggest?q=Acme+left',
      'http://h/api/config',
    ]);
    // The first word typed: every call but documents is its.
    expect(callsOfTyping(calls, 'acme', [])).toHaveLength(5);
  });
});
