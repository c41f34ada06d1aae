import { confidenceFactor, SessionWarnings } from './warnings.js';

describe('SessionWarnings', () => {
  it('keeps each kind once with its count and at most five pages, and says when a kind is new', () => {
    const w = new SessionWarnings();
    expect(w.add('empty_page', 'http://s.test/1')).toBe(true);
    for (let i = 2; i <= 7; i++) expect(w.add('empty_page', `http://s.test/${i}`)).toBe(false);
    expect(w.get('empty_page')).toMatchObject({ count: 7, pages: ['http://s.test/1', 'http://s.test/2', 'http://s.test/3', 'http://s.test/4', 'http://s.test/5'] });
    expect(w.get('empty_page')!.message).toMatch(/^7 page\(s\) rendered no text and no links/);
    expect(w.addPage('http://s.test/x', [{ code: 'script_errors', message: 'boom is not defined' }, { code: 'empty_page', message: '' }])).toEqual(['script_errors']);
    expect(w.get('script_errors')!.message).toContain('(first: boom is not defined)');
  });

  it('counts links for robots.txt refusals and starts from the warnings a resumed session already had', () => {
    const w = new SessionWarnings([{ code: 'robots_blocked', message: 'x', pages: ['http://s.test/'], count: 2 }]);
    expect(w.add('robots_blocked', 'http://s.test/a', 3)).toBe(false);
    expect(w.get('robots_blocked')).toMatchObject({ count: 5, pages: ['http://s.test/', 'http://s.test/a'], message: 'robots.txt disallowed 5 link(s) the crawler found: those pages were not crawled.' });
  });

  it('says which pages could not be explored whole and why, and lowers the confidence for it', () => {
    const w = new SessionWarnings();
    expect(w.addPage('http://s.test/editor', [{ code: 'unexplored_pages', message: 'most of it is a canvas the crawler does not read' }])).toEqual(['unexplored_pages']);
    w.addPage('http://s.test/admin', [{ code: 'unexplored_pages', message: 'answered 403: behind a sign-in the crawler does not have' }]);
    expect(w.get('unexplored_pages')).toMatchObject({ count: 2, pages: ['http://s.test/editor', 'http://s.test/admin'], message: '2 page(s) could not be explored whole: their flows may be missing (first: most of it is a canvas the crawler does not read).' });
    expect(confidenceFactor(w.list())).toBe(0.85);
  });
});
