import { makeScope, normaliseUrl, templateEndpoint } from './urls.js';

describe('URL normalisation', () => {
  it('drops fragments, user info, default ports and non-root trailing slashes, and keeps the query as written', () => {
    expect(normaliseUrl('HTTP://Shop.Test:80/a/b/#top')).toBe('http://shop.test/a/b');
    expect(normaliseUrl('https://u:p@shop.test:443/?b=2&a=1#x')).toBe('https://shop.test/?b=2&a=1');
    expect(normaliseUrl('/x/../y/./z/', 'http://shop.test/a/')).toBe('http://shop.test/y/z');
    expect(normaliseUrl('http://shop.test')).toBe('http://shop.test/');
    expect(normaliseUrl('http://shop.test/p/?q=1')).toBe('http://shop.test/p?q=1');
  });

  it('ignores what is not http(s) or not a URL', () => {
    for (const raw of ['mailto:a@b.test', 'javascript:void(0)', 'ftp://shop.test/', 'data:,x', 'http://']) expect(normaliseUrl(raw)).toBeUndefined();
  });
});

describe('include and exclude globs', () => {
  it('keeps * within one path segment and lets ** cross segments', () => {
    const scope = makeScope(['/products/*'], []);
    expect(scope('http://s.test/products/1')).toBe(true);
    expect(scope('http://s.test/products/1/reviews')).toBe(false);
    const deep = makeScope(['/docs/**'], ['/docs/private/**']);
    expect(deep('http://s.test/docs/a/b/c')).toBe(true);
    expect(deep('http://s.test/docs/private/x')).toBe(false);
    expect(deep('http://s.test/blog')).toBe(false);
    expect(makeScope([], ['*.pdf', '/**/*.pdf'])('http://s.test/files/guide.pdf')).toBe(false);
    expect(makeScope([], [])('http://s.test/anything?x=1')).toBe(true);
  });
});

describe('API endpoint templates', () => {
  it('replaces ids in paths and drops the query', () => {
    expect(templateEndpoint('http://s.test/api/products/42?x=1')).toBe('/api/products/{id}');
    expect(templateEndpoint('http://s.test/api/users/3f2b8c1e-9a4d-4c1b-8e2f-0a1b2c3d4e5f/orders/7')).toBe('/api/users/{id}/orders/{id}');
    expect(templateEndpoint('http://s.test/api/notes')).toBe('/api/notes');
    expect(templateEndpoint('http://s.test/api/v2/search')).toBe('/api/v2/search');
  });
});

describe('single-page app URLs', () => {
  it('keeps a hash route (#/about, #!/about) as part of the URL and drops any other fragment', () => {
    expect(normaliseUrl('http://s.test/#/about')).toBe('http://s.test/#/about');
    expect(normaliseUrl('http://s.test/app#!/orders/7')).toBe('http://s.test/app#!/orders/7');
    expect(normaliseUrl('http://s.test/docs#install')).toBe('http://s.test/docs');
  });

  it('templates the term a search box was typed with, or a prefix of it, in the last segment of the calls it caused', () => {
    expect(templateEndpoint('http://s.test/-/data/search/acme', 'acme')).toBe('/-/data/search/{query}');
    expect(templateEndpoint('http://s.test/-/data/search/AC', 'acme')).toBe('/-/data/search/{query}');
    expect(templateEndpoint('http://s.test/api/search?q=acme', 'acme')).toBe('/api/search');
    // Not the term: left as it is; and no term, no {query}.
    expect(templateEndpoint('http://s.test/api/suggest/other', 'acme')).toBe('/api/suggest/other');
    expect(templateEndpoint('http://s.test/-/data/search/acme')).toBe('/-/data/search/acme');
  });
});
