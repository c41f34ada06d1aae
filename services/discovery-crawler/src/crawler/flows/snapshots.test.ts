import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AnalyzedPage } from './index.js';
import { detectFlows } from './index.js';

// What the crawler read on real third-party apps of the discovery panel (tests/discovery-panel: captured with its
// capture.ts, origin rewritten to http://<app>.test), run through the detectors: each must find what the app
// affords, by its roles, labels, landmarks and what acting on it did, not by its names.
const snapshot = (app: string): AnalyzedPage[] => JSON.parse(readFileSync(path.join(__dirname, 'snapshots', `${app}.json`), 'utf8')) as AnalyzedPage[];
const summary = (app: string) => detectFlows(snapshot(app)).map((f) => ({ type: f.type, evidence: f.evidence.join('; '), actions: f.steps.map((s) => s.action) }));

describe('flow detectors on snapshots of real apps', () => {
  it('Sphinx: a search form named by its label, leading to the search page; the related bar whose links change per page is a menu', () => {
    const flows = detectFlows(snapshot('sphinx'));
    expect(flows.find((f) => f.type === 'search')).toMatchObject({ pages: ['http://sphinx.test/', 'http://sphinx.test/search.html'], steps: [{ action: 'navigate' }, { action: 'fill_form', selector: 'input[name="q"]' }, { action: 'submit' }] });
    const menus = flows.filter((f) => f.type === 'navigation');
    expect(menus.length).toBeGreaterThanOrEqual(1);
    for (const m of menus) expect(m.steps.some((s) => s.action === 'click')).toBe(true);
  });

  it('Redoc: a side menu of menu items without links moves the page to its parts; a search box whose results appear without a call', () => {
    const flows = summary('redoc');
    expect(flows).toEqual(
      expect.arrayContaining([
        { type: 'navigation', evidence: expect.stringMatching(/menu entries move the page to its parts \(#tag\/Books/), actions: ['navigate', 'click', 'wait_for'] },
        { type: 'search', evidence: expect.stringMatching(/result\(s\) shown without a call \(client-side\)/), actions: ['navigate', 'type', 'wait_for'] },
      ]),
    );
  });

  it('DokuWiki: the sign-in page, the search form by its placeholder, and the header menu whose links carry the page id, as one menu', () => {
    const flows = detectFlows(snapshot('dokuwiki'));
    expect(flows.filter((f) => f.type === 'authentication').map((f) => f.pages[0])).toEqual(['http://dokuwiki.test/doku.php?id=start&do=login']);
    expect(flows.find((f) => f.type === 'search')?.evidence).toEqual(['search form (field "Search")']);
    const header = flows.filter((f) => f.type === 'navigation' && f.evidence[0]!.startsWith('header'));
    expect(header).toHaveLength(1);
    // One form per identity: the header's search and tool forms on every page are not each a form flow.
    expect(flows.filter((f) => f.type === 'form_submission').length).toBeLessThanOrEqual(1);
  });

  it('MkDocs: a menu bar of lists without a landmark, and a search dialog a link to "#" opens, whose results appear without a call', () => {
    const flows = detectFlows(snapshot('mkdocs'));
    const search = flows.find((f) => f.type === 'search')!;
    expect(search.steps.map((s) => s.action)).toEqual(['navigate', 'click', 'wait_for', 'type', 'wait_for']);
    expect(search.evidence[0]).toMatch(/^search box a click opens/);
    expect(flows.filter((f) => f.type === 'navigation' && /list of links on \d+ pages/.test(f.evidence[0]!)).length).toBeGreaterThanOrEqual(2);
  });
});
