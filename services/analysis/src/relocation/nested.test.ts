import path from 'node:path';
import { loadCorpus, siteOf } from './corpus.js';
import { featureCase, FIT_OPTIONS, type FeatureCase } from './fit.js';
import { abstentionSamples, calibrateTiers, chooseAndFit, chooseSetting, foldsBySite, tierOf, wilson, type Reading } from './nested.js';

// The nested cross-validation's parts: folds by site, the thresholds from
// held-out outcomes, and a choice that never reads the sites it is scored on.
const FIXTURES = path.resolve(__dirname, '../../../../tests/fixtures');

let cases: FeatureCase[];
beforeAll(async () => {
  const synthetic = await loadCorpus(path.join(FIXTURES, 'relocation'));
  cases = synthetic.map((c) => featureCase(c, siteOf(c), 'synthetic'));
});

describe('nested cross-validation', () => {
  it('puts every site in exactly one fold, the same way every time', () => {
    const folds = foldsBySite(cases, 4);
    const sites = new Set(cases.map((c) => `${c.corpus}/${c.site}`));
    expect(folds.flat().sort()).toEqual([...sites].sort());
    expect(new Set(folds.flat()).size).toBe(sites.size);
    expect(foldsBySite(cases, 4)).toEqual(folds);
  });

  it('sets the confident threshold where wrong picks stay within their share above it, and the plausible band below it', () => {
    const at = (p: number, right: boolean, lead = 3) => ({ p, lead, right, corpus: 'real' });
    const outcomes = [at(0.95, true), at(0.9, true), at(0.88, true), at(0.85, true), at(0.8, false), at(0.7, true), at(0.65, true), at(0.6, true), at(0.3, false), at(0.2, false)];
    const t = calibrateTiers(outcomes, 0.01, 'real');
    expect(t.confidentAt).toBe(0.81); // at 0.80 the wrong pick would be one of five
    expect(t.plausibleAt).toBeLessThanOrEqual(0.6);
    expect(t.plausibleAt).toBeGreaterThan(0.3);
    expect(tierOf(0.9, 3, t)).toBe('confident');
    expect(tierOf(0.65, 3, t)).toBe('plausible');
    expect(tierOf(0.2, 3, t)).toBe('none');
  });

  it('widens the plausible band by what a re-run catches: a wrong pick counts only as often as a wrong candidate\'s re-run passes', () => {
    const at = (p: number, right: boolean, lead = 3) => ({ p, lead, right, corpus: 'real' });
    // Confident from 0.81 (a wrong pick at 0.80); below it right two to one down to 0.62; below 0.4 wrong.
    const outcomes = [at(0.95, true), at(0.9, true), at(0.88, true), at(0.85, true), at(0.8, false), at(0.78, true), at(0.75, false), at(0.72, true), at(0.68, true), at(0.65, false), at(0.62, true), at(0.3, false), at(0.2, false)];
    // Every pick counted (+1 right, -2 wrong): no band below the confident picks is worth it.
    expect(calibrateTiers(outcomes, 0.01, 'real')).toMatchObject({ confidentAt: 0.81, plausibleAt: 0.81 });
    // A re-run that passes for nearly every right pick and for a third of wrong ones: two right to one wrong is worth it,
    // down to the last right pick (not into the empty stretch below it).
    const power = { right: { passed: 95, of: 100 }, wrong: { passed: 30, of: 100 } };
    expect(calibrateTiers(outcomes, 0.01, 'real', power).plausibleAt).toBe(0.62);
    // A re-run that passes for every wrong pick too proves nothing: no band, as without re-runs.
    const blind = { right: { passed: 100, of: 100 }, wrong: { passed: 100, of: 100 } };
    expect(calibrateTiers(outcomes, 0.01, 'real', blind).plausibleAt).toBe(0.81);
  });

  it('chooses the possible band and its own lead from re-runs the test needed, even where no plausible band is worth it', () => {
    const at = (p: number, right: boolean, lead: number) => ({ p, lead, right, corpus: 'real' });
    // Confident from 0.81; below it, picks with a clear lead are right three times in five, the others wrong.
    const outcomes = [at(0.95, true, 3), at(0.9, true, 3), at(0.88, true, 3), at(0.85, true, 3), at(0.8, false, 3), at(0.75, false, 2), at(0.7, true, 2), at(0.65, true, 2), at(0.6, false, 2), at(0.55, true, 2), at(0.7, false, 0.2), at(0.6, false, 0.2), at(0.5, false, 0.2)];
    // A re-run that lets a right pick through 30 % of the time and a wrong one 60 %: no plausible band is worth it.
    const rerun = { right: { passed: 30, of: 100 }, wrong: { passed: 60, of: 100 } };
    const informative = { right: { passed: 50, of: 100 }, wrong: { passed: 2, of: 100 } };
    const t = calibrateTiers(outcomes, 0.01, 'real', rerun, informative);
    expect(t.plausibleAt).toBe(0.81);
    // One the test needed lets a wrong one through 2 % of the time: the band down to the last right pick, leads of 0.2 left out.
    expect(t).toMatchObject({ possibleAt: 0.55, possibleLead: 0.5 });
    expect(tierOf(0.7, 2, t)).toBe('possible');
    expect(tierOf(0.7, 0.2, t)).toBe('none');
  });

  it('bounds a measured share with Wilson\'s interval', () => {
    const w = wilson(22, 54);
    expect(w.lower).toBeLessThan(22 / 54);
    expect(w.upper).toBeGreaterThan(22 / 54);
    expect(w.upper).toBeCloseTo(0.519, 2);
    expect(wilson(20, 22).lower).toBeCloseTo(0.759, 2);
    expect(wilson(0, 0)).toEqual({ lower: 0, upper: 1 });
    expect(wilson(5, 5).upper).toBe(1);
  });

  it('keeps the first (most regularised) setting unless another ranks the element first in more cases beyond chance', () => {
    const right = (n: number, ok: (i: number) => boolean) => Array.from({ length: n }, (_, i) => ok(i));
    // Two cases more out of 340, on 4 the settings disagree on: noise. The first stays.
    const first = { name: 'strong penalty', right: right(340, (i) => i >= 30) };
    const noisy = { name: 'weak penalty', right: right(340, (i) => i >= 30 || i === 0 || i === 1 || i === 2) };
    noisy.right[339] = false;
    expect(chooseSetting([first, noisy])).toBe('strong penalty');
    // Twenty more, and the first right on none the other misses: the other.
    const better = { name: 'other loss', right: right(340, (i) => i >= 10) };
    expect(chooseSetting([first, better])).toBe('other loss');
    // Among several within chance of the best, the first of them in the grid's order.
    const middle = { name: 'middle', right: right(340, (i) => i >= 12) };
    expect(chooseSetting([first, middle, better])).toBe('middle');
  });

  it('trains the abstention on each page without its element too, as a wrong top, at the weight asked', () => {
    const c = (expected: number | null, corpus = 'real') => ({ name: 'x', site: 's', corpus, rows: [], expected }) as FeatureCase;
    const readings: Reading[] = [
      { c: c(0), rank: 0, top: 0, x: [1], xWithout: [0.5] },
      { c: c(1, 'synthetic'), rank: 1, top: 0, x: [2], xWithout: [0.2] },
      { c: c(null), rank: -1, top: 3, x: [3], xWithout: null },
    ];
    const weight = (x: FeatureCase) => (x.corpus === 'synthetic' ? 2 : 1);
    expect(abstentionSamples(readings, weight, 0)).toEqual([
      { x: [1], right: true, weight: 1 },
      { x: [2], right: false, weight: 2 },
      { x: [3], right: false, weight: 1 },
    ]);
    expect(abstentionSamples(readings, weight, 0.5).slice(3)).toEqual([
      { x: [0.5], right: false, weight: 0.5 },
      { x: [0.2], right: false, weight: 1 },
    ]);
  });

  it('chooses and fits the same way every time on the same training sites, and from what it is given alone', () => {
    const sites = [...new Set(cases.map((c) => c.site))];
    const train = cases.filter((c) => c.site !== sites[0]);
    const a = chooseAndFit(train, { grid: { only: FIT_OPTIONS }, innerFolds: 3, calibrateOn: 'synthetic' });
    const b = chooseAndFit(train, { grid: { only: FIT_OPTIONS }, innerFolds: 3, calibrateOn: 'synthetic' });
    expect(a.abstention).toEqual(b.abstention);
    expect(a.thresholds).toEqual(b.thresholds);
    const all = chooseAndFit(cases, { grid: { only: FIT_OPTIONS }, innerFolds: 3, calibrateOn: 'synthetic' });
    expect(all.model.weights).not.toEqual(a.model.weights);
  }, 60_000);
});
