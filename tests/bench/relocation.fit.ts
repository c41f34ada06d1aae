// Fits Assay's relocation model and writes services/analysis/src/relocation/model.ts.
//
//   node --import tsx tests/bench/relocation.fit.ts            # fit, cross-validate, write model.ts
//   ABLATION=1 node --import tsx tests/bench/relocation.fit.ts # also: cross-validated top-1 without each feature
//
// Both corpora together: the real-site one (tests/fixtures/relocation-real, 20
// sites) and the project's synthetic one (tests/fixtures/relocation, one
// "site" per page template). Cross-validation is by site (leave one site
// out): every case is ranked by a model that never saw its site. The
// thresholds (pick, confident pick) are calibrated on those cross-validated
// outcomes; the weights written are those of the fit on everything.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { FEATURES, calibrate, crossValidateBySite, featureCase, fitModel, loadCorpus, outcomeOf, siteOf, type FeatureCase, type FitOptions } from '../../services/analysis/src/relocation/index.js';

export const FIT_OPTIONS: FitOptions = { l2: 0.001, keep: 40, iterations: 200 };

export async function loadFeatureCases(): Promise<FeatureCase[]> {
  const real = await loadCorpus(fileURLToPath(new URL('../fixtures/relocation-real/', import.meta.url)));
  const synthetic = await loadCorpus(fileURLToPath(new URL('../fixtures/relocation/', import.meta.url)));
  return [...real.map((c) => featureCase(c, siteOf(c), 'real')), ...synthetic.map((c) => featureCase(c, siteOf(c), 'synthetic'))];
}

const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(1)}%`;

/** Cross-validated top-1 / top-3 per corpus, one line each. */
export function cvLines(cases: FeatureCase[], cv: ReturnType<typeof crossValidateBySite>): string[] {
  return ['real', 'synthetic'].map((corpus) => {
    const rel = cases.filter((c) => c.corpus === corpus && c.expected !== null);
    const sites = new Set(cases.filter((c) => c.corpus === corpus).map((c) => c.site)).size;
    return `Assay, cross-validated by site (${corpus}, ${sites} sites): top-1 ${pct(rel.filter((c) => cv.get(c)!.rank === 0).length, rel.length)}, top-3 ${pct(rel.filter((c) => cv.get(c)!.rank < 3).length, rel.length)}, cases ${cases.filter((c) => c.corpus === corpus).length}`;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = Date.now();
  const cases = await loadFeatureCases();
  const cv = crossValidateBySite(cases, FIT_OPTIONS);
  for (const line of cvLines(cases, cv)) console.warn(line);
  const { pickAt, confidentAt } = calibrate(cases.map((c) => outcomeOf(cv.get(c)!.model, c)));
  const model = fitModel(cases, FIT_OPTIONS);
  console.warn(`thresholds (calibrated on the cross-validated outcomes): pick at ${pickAt}, confident at ${confidentAt}`);
  const body = `// Written by tests/bench/relocation.fit.ts: do not edit by hand (re-run the fit).
// Fitted on ${cases.filter((c) => c.corpus === 'real').length} real-site cases (tests/fixtures/relocation-real) and ${cases.filter((c) => c.corpus === 'synthetic').length} synthetic ones
// (tests/fixtures/relocation); ${cvLines(cases, cv).join('; ')}.
import type { RelocationModel } from './fit.js';

export const RELOCATION_MODEL: RelocationModel = {
  features: ${JSON.stringify(FEATURES)},
  weights: ${JSON.stringify(model.weights)},
  goneLogit: ${model.goneLogit},
  pickAt: ${pickAt},
  confidentAt: ${confidentAt},
};
`;
  await writeFile(fileURLToPath(new URL('../../services/analysis/src/relocation/model.ts', import.meta.url)), body);
  console.warn(`wrote model.ts (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  if (process.env.ABLATION) {
    const base = cvLines(cases, cv);
    console.warn(`\nablation (cross-validated by site, each feature left out; base: ${base.join('; ')})`);
    for (const f of FEATURES) {
      const without = crossValidateBySite(cases, { ...FIT_OPTIONS, without: new Set([f]) });
      console.warn(`without ${f}: ${cvLines(cases, without).map((l) => l.replace(/^.*\((\w+),.*top-1 ([\d.]+%), top-3 ([\d.]+%).*$/, '$1 $2 / $3')).join(', ')}`);
    }
  }
}
