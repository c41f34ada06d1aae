import path from 'node:path';
import { loadCorpus, siteOf } from './corpus.js';
import { featureCase, FIT_OPTIONS, type FeatureCase } from './fit.js';
import { calibrateTiers, chooseAndFit, foldsBySite, tierOf } from './nested.js';

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
