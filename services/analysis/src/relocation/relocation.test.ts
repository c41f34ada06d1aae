import { readFileSync } from 'node:fs';
import path from 'node:path';
import { controlKey, sameControlNested, type Fingerprint } from './fingerprint.js';
import { loadCorpus, scoreCorpus, siteOf } from './corpus.js';
import { boxOf, FEATURES, similoScore } from './features.js';
import { ABSTENTION_INPUTS, checkModel, crossValidateBySite, featureCase, FIT_OPTIONS, topReadings } from './fit.js';
import { pageFeatures } from './features.js';
import { RELOCATION_MODEL } from './model.js';
import { assayRelocate, contradicts, healeniumScorer, similoScorer, assayScorer, plainSimiloScorer } from './scorers.js';
import { canonicalWords, isGeneratedName, classTokens, WordWeights, textSimilarity } from './similarity.js';

const button = (over: Partial<Fingerprint>): Fingerprint => ({
  tag: 'button',
  classes: ['btn'],
  text: 'Button',
  attributes: { type: 'button' },
  xpath: '/html[1]/body[1]/main[1]/button[1]',
  bbox: { x: 100, y: 100, width: 80, height: 30 },
  is_button: true,
  role: 'button',
  ...over,
});

describe('similarities', () => {
  it('tells generated ids and classes from meaningful ones', () => {
    for (const g of ['css-1x2y3z', 'sc-bdfBwQ', 'ember1234', ':r1:', 'Button_root__3xk9a', '4f1c2a9e-1b2c-4d5e-8f90-123456789abc', 'a1b2c3d4']) expect(isGeneratedName(g)).toBe(true);
    for (const m of ['login-submit', 'btn-primary', 'nav-item', 'col-6', 'h1', 'step2', 'card__title']) expect(isGeneratedName(m)).toBe(false);
    expect(classTokens(['Button_primary__3xk9a', 'css-1x2y3z', 'is-active'])).toEqual(['button', 'primary', 'is', 'active']);
  });

  it('folds interface synonyms and weighs rare words above common ones', () => {
    expect(canonicalWords('Log in')).toEqual(canonicalWords('Sign in'));
    expect(textSimilarity('Add to cart', 'Add to cart')).toBe(1);
    const words = new WordWeights(['Add to cart', 'Add to cart', 'Add to cart', 'Add to wishlist', 'Trail Runner 2']);
    expect(words.similarity('Add to wishlist', 'Add to cart')).toBeLessThan(0.35);
    expect(words.similarity('Save Trail Runner 2 to wishlist', 'Add Trail Runner 2 to favourites')).toBeGreaterThan(words.similarity('Save Trail Runner 2 to wishlist', 'Save Road Racer to wishlist'));
  });
});

describe("Assay's relocation", () => {
  it('finds a renamed, restyled button and says it stands out', () => {
    const target = button({ id: 'login-submit', text: 'Sign in', accessible_name: 'Sign in', classes: ['btn', 'btn-primary'], neighbor_text: { above: 'Password', right: 'Forgot password?' } });
    const candidates = [
      button({ id: 'sign-up', text: 'Create account', bbox: { x: 100, y: 400, width: 120, height: 30 } }),
      button({ id: 'signin-button', text: 'Log in', accessible_name: 'Log in', classes: ['inline-flex', 'bg-indigo-600'], neighbor_text: { above: 'Password', right: 'Forgot password?' }, bbox: { x: 102, y: 130, width: 70, height: 30 } }),
      { tag: 'a', text: 'Forgot password?', attributes: { href: '/forgot' }, role: 'link', bbox: { x: 200, y: 130, width: 120, height: 20 } },
      { tag: 'h1', text: 'Sign in to Northwind', role: 'heading', bbox: { x: 100, y: 20, width: 300, height: 40 } },
    ];
    const r = assayRelocate(target, candidates);
    expect(r.best?.index).toBe(1);
    expect(r.outlier).toBe(true);
    expect(r.confidence).toBeGreaterThan(0.5);
    // "Log in" reads as "Sign in" (a synonym), not as the same words.
    expect(r.best?.factors).toMatchObject({ text: 0.95, neighbours: 1, tag: 1 });
  });

  it('answers "no match" rather than healing onto a different control of the same kind', () => {
    const target = button({ text: 'Add to wishlist', accessible_name: 'Add to wishlist', neighbor_text: { left: 'Add to cart' } });
    const candidates = [button({ text: 'Add to cart', accessible_name: 'Add to cart', bbox: { x: 20, y: 100, width: 80, height: 30 } }), { tag: 'p', text: 'Free delivery', bbox: { x: 20, y: 200, width: 300, height: 20 } }];
    const r = assayRelocate(target, candidates);
    expect(r.best).toBeUndefined();
    expect(r.reason).toMatch(/contradicts the step/);
    expect(contradicts({ tag: 'input', attributes: { type: 'email' } }, button({}))).toMatch(/form field/);
  });

  it('reports ambiguity among identical siblings instead of claiming one', () => {
    const row = (y: number) => button({ text: 'Delete', accessible_name: 'Delete', bbox: { x: 500, y, width: 60, height: 24 }, neighbor_text: { left: 'Edit' } });
    const r = assayRelocate(row(130), [row(100), row(160), row(190)]);
    expect(r.outlier).toBe(false);
    // Three equally likely rows: no pick, or a pick flagged as not standing out (never a confident one).
    expect(r.reason).toMatch(/does not stand out|likely enough/);
  });

  it('names a possible element below a pick (with the pick\'s lead, contradicting nothing) only when the model has a possible band', () => {
    const target = button({ id: 'login-submit', text: 'Sign in', accessible_name: 'Sign in', classes: ['btn', 'btn-primary'], neighbor_text: { above: 'Password' } });
    const candidates = [
      button({ id: 'sign-up', text: 'Create account', bbox: { x: 100, y: 400, width: 120, height: 30 } }),
      button({ id: 'signin-button', text: 'Log in', accessible_name: 'Log in', classes: ['inline-flex'], neighbor_text: { above: 'Password' }, bbox: { x: 102, y: 130, width: 70, height: 30 } }),
    ];
    const sure = assayRelocate(target, candidates);
    expect(sure.best?.index).toBe(1);
    // The same page under a model that needs more than this pick's probability for a pick.
    const { possibleAt: _band, possibleLead: _lead, ...checkedIn } = RELOCATION_MODEL;
    const strict = { ...checkedIn, pickAt: 1, confidentAt: 1, pickLead: 0 };
    const below = assayRelocate(target, candidates, { model: { ...strict, possibleAt: 0.01 } });
    expect(below.best).toBeUndefined();
    expect(below.possible).toMatchObject({ index: 1, right: expect.any(Number) });
    expect(below.possible!.right).toBeGreaterThan(0.5);
    expect(below.reason).toMatch(/offered only if a re-run with it passes and the test fails without the step/);
    // Without a possible band, or above its reach: nothing to try.
    expect(assayRelocate(target, candidates, { model: strict }).possible).toBeUndefined();
    expect(assayRelocate(target, candidates, { model: { ...strict, possibleAt: 1 } }).possible).toBeUndefined();
    // A candidate that contradicts the step is never possible.
    const wishlist = button({ text: 'Add to wishlist', accessible_name: 'Add to wishlist', neighbor_text: { left: 'Add to cart' } });
    expect(assayRelocate(wishlist, [button({ text: 'Add to cart', accessible_name: 'Add to cart' })], { model: { ...strict, possibleAt: 0 } }).possible).toBeUndefined();
    expect(() => checkModel({ ...RELOCATION_MODEL, possibleAt: RELOCATION_MODEL.pickAt + 0.01 })).toThrow(/possibleAt/);
  });

  it('never picks an excluded (rejected) candidate', () => {
    const target = button({ id: 'buy', text: 'Buy' });
    const r = assayRelocate(target, [button({ id: 'buy', text: 'Buy' }), button({ id: 'buy-now', text: 'Buy now' })], { exclude: new Set([0]) });
    expect(r.best?.index).toBe(1);
  });

  it('scores a corpus with every scorer: Assay ranks at least as well as both baselines on the project corpus', async () => {
    const cases = await loadCorpus(path.resolve(__dirname, '../../../../tests/fixtures/relocation'));
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(cases.some((c) => c.expected === null)).toBe(true);
    const [assay, similo, healenium] = [assayScorer, similoScorer, healeniumScorer].map((s) => scoreCorpus(cases, s));
    expect(assay!.top1).toBeGreaterThanOrEqual(similo!.top1);
    expect(assay!.top1).toBeGreaterThanOrEqual(healenium!.top1);
    expect(assay!.wrongPicks).toBeLessThan(healenium!.wrongPicks);
  });

  it('reads a box a capture could not measure (`{}`) as no box, not as NaN that breaks the ranking', () => {
    const noBox = button({ bbox: {} as never, text: 'Save' });
    expect(boxOf(noBox)).toBeUndefined();
    expect(boxOf(button({}))).toEqual({ x: 100, y: 100, width: 80, height: 30 });
    expect(Number.isFinite(similoScore(noBox, button({ text: 'Save' })))).toBe(true);
    const r = assayRelocate(noBox, [button({ bbox: {} as never, text: 'Cancel' }), button({ bbox: {} as never, text: 'Save' })]);
    expect(r.ranked.every((x) => Number.isFinite(x.score))).toBe(true);
    expect(r.ranked[0]!.index).toBe(1);
  });

  it('tells the same control nested (ancestor or descendant, same text or name) from a rival', () => {
    const li = controlKey({ tag: 'li', classes: [], text: 'Add a pet', role: 'menuitem', attributes: {}, xpath: '/html/body/nav/ul/li[3]', bbox: { x: 0, y: 0, width: 0, height: 0 } });
    const label = controlKey({ tag: 'label', classes: [], text: ' Add a  pet ', attributes: {}, xpath: '/html[1]/body[1]/nav[1]/ul[1]/li[3]/label[1]', bbox: { x: 0, y: 0, width: 0, height: 0 } });
    const other = controlKey({ tag: 'li', classes: [], text: 'Add a pet', attributes: {}, xpath: '/html[1]/body[1]/main[1]/li[1]', bbox: { x: 0, y: 0, width: 0, height: 0 } });
    const list = controlKey({ tag: 'ul', classes: [], text: 'Add a pet Find a pet', attributes: {}, xpath: '/html[1]/body[1]/nav[1]/ul[1]', bbox: { x: 0, y: 0, width: 0, height: 0 } });
    expect(sameControlNested(label, li)).toBe(true);
    expect(sameControlNested(li, label)).toBe(true);
    expect(sameControlNested(label, other)).toBe(false); // same text elsewhere: a rival
    expect(sameControlNested(label, list)).toBe(false); // an ancestor with more text: not the same control
    expect(sameControlNested(li, li)).toBe(false);
  });

  it('counts a part of a control (no control itself, part of its text) as the control, and nothing else', () => {
    const box = { x: 0, y: 0, width: 0, height: 0 };
    const item = controlKey({ tag: 'div', classes: [], text: 'Find and replace... Ctrl+F', role: 'menuitem', attributes: { role: 'menuitem' }, xpath: '/html[1]/body[1]/div[4]/div[1]', bbox: box });
    const label = controlKey({ tag: 'div', classes: [], text: 'Find and replace...', attributes: {}, xpath: '/html[1]/body[1]/div[4]/div[1]/div[2]', bbox: box });
    const group = controlKey({ tag: 'div', classes: [], text: 'Find and replace... Ctrl+F Select all Ctrl+A', attributes: {}, xpath: '/html[1]/body[1]/div[4]', bbox: box });
    const inner = controlKey({ tag: 'button', classes: [], text: 'Find', attributes: {}, xpath: '/html[1]/body[1]/div[4]/div[1]/button[1]', bbox: box });
    const card = controlKey({ tag: 'div', classes: [], text: 'Log in or sign up', attributes: {}, xpath: '/html[1]/body[1]/div[5]', bbox: box });
    const span = controlKey({ tag: 'span', classes: [], text: 'sign up', attributes: {}, xpath: '/html[1]/body[1]/div[5]/span[1]', bbox: box });
    expect(sameControlNested(item, label)).toBe(true);
    expect(sameControlNested(label, item)).toBe(true);
    expect(sameControlNested(group, item)).toBe(false); // an ancestor with more text: a list, not the item
    expect(sameControlNested(item, inner)).toBe(false); // a control inside a control is one of its own
    expect(sameControlNested(card, span)).toBe(false); // the outer one is no control: its parts are rivals
  });

  it("reads the abstention's runner-up past the pick's own control nested, not the nested one", () => {
    // A search result's label, the li around it with the same text (it took the role), and another result.
    const target: Fingerprint = { tag: 'label', classes: [], text: 'Add a pet', attributes: {}, xpath: '/html[1]/body[1]/div[1]/ul[1]/li[1]/label[1]', bbox: { x: 10, y: 100, width: 200, height: 20 }, neighbor_text: { below: 'Find a pet' } };
    const candidates: Fingerprint[] = [
      { ...target },
      { tag: 'li', classes: [], text: 'Add a pet', role: 'menuitem', attributes: { role: 'menuitem' }, xpath: '/html[1]/body[1]/div[1]/ul[1]/li[1]', bbox: { x: 0, y: 98, width: 220, height: 24 }, neighbor_text: { below: 'Find a pet' } },
      { tag: 'label', classes: [], text: 'Find a pet', attributes: {}, xpath: '/html[1]/body[1]/div[1]/ul[1]/li[2]/label[1]', bbox: { x: 10, y: 130, width: 200, height: 20 }, neighbor_text: { above: 'Add a pet' } },
    ];
    const rows = pageFeatures(target, candidates);
    const score = (i: number) => rows[i]!.reduce((a, v, k) => a + RELOCATION_MODEL.weights[k]! * v, 0);
    expect(score(0)).toBeGreaterThan(score(1));
    expect(score(1)).toBeGreaterThan(score(2));
    const plain = topReadings(RELOCATION_MODEL, rows);
    const read = topReadings(RELOCATION_MODEL, rows, undefined, candidates.map(controlKey));
    expect(read.top).toBe(0);
    expect(plain.x[1]).toBeCloseTo(Math.min(10, score(0) - score(1)), 6);
    expect(read.x[1]).toBeCloseTo(Math.min(10, score(0) - score(2)), 6);
    // The readings against the runner-up are against the other result's.
    const n = FEATURES.length;
    const against = (i: number) => Array.from(rows[0]!, (v, k) => v - rows[i]![k]!);
    const off = (x: number[], want: number[]) => Math.max(...x.map((v, k) => Math.abs(v - want[k]!)));
    expect(off(read.x.slice(7 + n), against(2))).toBeLessThan(1e-9);
    expect(off(plain.x.slice(7 + n), against(1))).toBeLessThan(1e-9);
  });

  it('refuses a model fitted for other features or another abstention', () => {
    expect(() => checkModel({ ...RELOCATION_MODEL, features: FEATURES.slice(1) })).toThrow(/other features/);
    expect(() => checkModel({ ...RELOCATION_MODEL, abstention: RELOCATION_MODEL.abstention.slice(1) })).toThrow(/other features/);
    expect(RELOCATION_MODEL.abstention).toHaveLength(ABSTENTION_INPUTS + 1);
    expect(RELOCATION_MODEL.pickAt).toBeGreaterThan(0);
    expect(RELOCATION_MODEL.confidentAt).toBeGreaterThanOrEqual(RELOCATION_MODEL.pickAt);
  });

  it('was fitted with every weight but VON overlap at 0 or above (more alike never scores lower)', () => {
    const negative = FEATURES.filter((f, k) => RELOCATION_MODEL.weights[k]! < 0);
    expect(negative.every((f) => f.startsWith('von_'))).toBe(true);
  });
});

describe('on the analysis fixture app after its redesign (a runner capture)', () => {
  const capture = JSON.parse(readFileSync(path.join(__dirname, 'login-redesign.capture.json'), 'utf8')) as { target: Fingerprint; candidates: Fingerprint[] };
  const button = capture.candidates.findIndex((c) => c.testid === 'sign-in');
  const heading = capture.candidates.findIndex((c) => c.tag === 'h1');

  it('heals the renamed, moved, restyled Sign in button confidently', () => {
    const r = assayRelocate(capture.target, capture.candidates);
    expect(r.best?.index).toBe(button);
    expect(r.outlier).toBe(true);
    expect(r.confidence).toBeGreaterThanOrEqual(0.9);
    // The heading with the same words is the runner-up, far behind.
    expect(r.ranked[1]?.index).toBe(heading);
    expect(r.ranked[1]!.score).toBeLessThan(0.1);
  });

  it('once the button is rejected, the heading with its words is no pick', () => {
    const r = assayRelocate(capture.target, capture.candidates, { exclude: new Set([button]) });
    expect(r.ranked[0]?.index).toBe(heading);
    expect(r.best).toBeUndefined();
    expect(r.reason).toMatch(/likely enough/);
  });

  it('a fingerprint guessed from a selector alone (#never) matches nothing on the page', () => {
    const r = assayRelocate({ tag: '*', id: 'never', classes: [], attributes: {} }, capture.candidates);
    expect(r.best).toBeUndefined();
    expect(r.reason).toMatch(/likely enough/);
  });
});

// Cross-validated top-1 on this subset when written: real 92.1 % (82 of 89), synthetic 83.9 % (26 of 31); a regression of two cases fails.
const FLOOR_REAL = 0.905;
const FLOOR_SYNTHETIC = 0.8;

describe('on real websites (tests/fixtures/relocation-real)', () => {
  const REAL = path.resolve(__dirname, '../../../../tests/fixtures/relocation-real');

  it('the checked-in scorer ranks above plain Similo on the real corpus, and wrong picks stay rare', async () => {
    const cases = await loadCorpus(REAL);
    expect(cases.length).toBe(303);
    expect(new Set(cases.map(siteOf)).size).toBe(20);
    const assay = scoreCorpus(cases, assayScorer);
    const similo = scoreCorpus(cases, plainSimiloScorer);
    // Training figures (the model saw these sites): 94.4 % (286 of 303) and 89.4 % when written; cross-validated below.
    expect(assay.top1 / assay.relocatable).toBeGreaterThanOrEqual(0.935);
    expect(similo.top1 / similo.relocatable).toBeGreaterThanOrEqual(0.88);
    expect(assay.top1).toBeGreaterThan(similo.top1);
    expect(assay.confidentWrong).toBeLessThanOrEqual(0.02 * assay.confident);
  });

  it('cross-validated by site on a subset, a model fitted without the held-out site still ranks the element first', async () => {
    // Six real sites and four synthetic templates: every site's cases ranked by a model that never saw the site.
    const keepReal = new Set(['Apple', 'Cnn', 'Facebook', 'Okta', 'Twitter', 'Zoom']);
    const real = (await loadCorpus(REAL)).filter((c) => keepReal.has(siteOf(c)));
    const keepSynthetic = new Set(['login', 'catalog', 'checkout', 'inbox']);
    const synthetic = (await loadCorpus(path.resolve(__dirname, '../../../../tests/fixtures/relocation'))).filter((c) => keepSynthetic.has(siteOf(c)));
    const cases = [...real.map((c) => featureCase(c, siteOf(c), 'real')), ...synthetic.map((c) => featureCase(c, siteOf(c), 'synthetic'))];
    // The service's fit options, fewer candidates and steps (for time).
    const cv = crossValidateBySite(cases, { ...FIT_OPTIONS, keep: 30, iterations: 120 });
    const top1 = (corpus: string) => {
      const rel = cases.filter((c) => c.corpus === corpus && c.expected !== null);
      return rel.filter((c) => cv.get(c)!.rank === 0).length / rel.length;
    };
    expect(top1('real')).toBeGreaterThanOrEqual(FLOOR_REAL);
    expect(top1('synthetic')).toBeGreaterThanOrEqual(FLOOR_SYNTHETIC);
  });
});
