// Fits the thresholds of Assay's relocation scorer on the corpus's training
// split only (grid search), then prints them and the held-out result, which
// the fit never saw. The weights are not fitted here: they come from
// published real-site data (see ASSAY_WEIGHTS); fitting them on a corpus
// this small learns its mutations, not the web. FIT_WEIGHTS=1 also tries
// each weight at ±25 % (coordinate ascent), for exploration only.
//
//   node --import tsx tests/bench/relocation.fit.ts
//
// The objective counts what a user feels: a right pick or a right "gone"
// is +1, a missed heal 0, a wrong pick (a wrong-element heal) −2.
import { fileURLToPath } from 'node:url';
import { ASSAY_THRESHOLDS, ASSAY_WEIGHTS, assayRelocate, formatDetail, formatScore, loadCorpus, scoreCorpus, type AssayWeights, type CorpusScore, type Scorer } from '@assay/analysis';

const dir = fileURLToPath(new URL('../fixtures/relocation/', import.meta.url));
const all = await loadCorpus(dir);
const train = all.filter((c) => c.file.includes('/train/'));
const heldOut = all.filter((c) => c.file.includes('/holdout/'));

type Thresholds = typeof ASSAY_THRESHOLDS;
const scorer = (weights: AssayWeights, thresholds: Thresholds): Scorer => ({ name: 'Assay', relocate: (t, c) => assayRelocate(t, c, { weights, thresholds }) });
const objective = (s: CorpusScore) => s.picks - s.wrongPicks + s.noMatchRight - 2 * s.wrongPicks;

let weights = { ...ASSAY_WEIGHTS };
let thresholds = { ...ASSAY_THRESHOLDS };
let best = objective(scoreCorpus(train, scorer(weights, thresholds)));
console.warn(`start: objective ${best}`);
for (let round = 0; round < 4; round++) {
  let improved = false;
  for (const key of process.env.FIT_WEIGHTS ? (Object.keys(weights) as Array<keyof AssayWeights>) : []) {
    for (const factor of [0.75, 1.25]) {
      const trial = { ...weights, [key]: Math.round(weights[key] * factor * 100) / 100 };
      const o = objective(scoreCorpus(train, scorer(trial, thresholds)));
      if (o > best) {
        best = o;
        weights = trial;
        improved = true;
      }
    }
  }
  for (const minScore of [0.2, 0.25, 0.3, 0.325, 0.35, 0.375, 0.4, 0.425, 0.45, 0.5, 0.55]) {
    for (const minGap of [0.01, 0.02, 0.03, 0.04, 0.06, 0.08]) {
      const trial = { ...thresholds, minScore, minGap };
      const o = objective(scoreCorpus(train, scorer(weights, trial)));
      if (o > best) {
        best = o;
        thresholds = trial;
        improved = true;
      }
    }
  }
  console.warn(`round ${round + 1}: objective ${best}`);
  if (!improved) break;
}
console.warn(`weights: ${JSON.stringify(weights)}`);
console.warn(`thresholds: ${JSON.stringify(thresholds)}`);
for (const [label, cases] of [['train', train], ['held-out', heldOut]] as const) {
  const s = scoreCorpus(cases, scorer(weights, thresholds));
  console.warn(`${label}: ${formatScore('Assay (fitted)', s)}\n  ${formatDetail('Assay (fitted)', s)}`);
}
