import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crossValidateBySite, FIT_GRID, FIT_OPTIONS, formatDetail, formatScore, loadCorpus, nestedCrossValidate, SCORERS, scoreCorpus } from '@assay/analysis';
import { calibrationLines, cvLines, loadFeatureCases, nestedLines } from './relocation.fit.js';

const OWN = fileURLToPath(new URL('../fixtures/relocation/', import.meta.url));
const REAL = fileURLToPath(new URL('../fixtures/relocation-real/', import.meta.url));

/**
 * `make bench BENCH=relocation`: Assay's relocation scorer (the code the
 * analysis service runs on a failure, through the module's entry) against
 * Similo-style and Healenium-style baselines and a plain Similo (published
 * weights, never abstains) on the same cases: the project's corpus (with its
 * splits) and the real-site corpus, or `RELOCATION_CORPUS=<dir>` (any corpus
 * in the format of the analysis service's README). Then the figures that
 * count for a scorer fitted on these corpora: nested cross-validation by site
 * (10 outer folds report; 4 inner folds of the other sites choose the
 * setting, the abstention and its thresholds), beside the earlier
 * leave-one-site-out figures, whose settings were chosen on those same
 * figures (optimistic).
 */
export async function benchRelocation(): Promise<void> {
  const dirs = process.env.RELOCATION_CORPUS ? [path.resolve(process.env.RELOCATION_CORPUS)] : [OWN, REAL];
  for (const dir of dirs) {
    const cases = await loadCorpus(dir);
    console.warn(`\nrelocation: ${cases.length} cases from ${dir}`);
    const splits: Array<[string, typeof cases]> = [['all', cases]];
    if (dir === OWN) {
      splits.push(['train', cases.filter((c) => c.file.includes(`${path.sep}train${path.sep}`))]);
      splits.push(['held-out', cases.filter((c) => c.file.includes(`${path.sep}holdout${path.sep}`))]);
      splits.push(['fresh (written after the scorer was frozen)', cases.filter((c) => c.file.includes(`${path.sep}fresh${path.sep}`))]);
    }
    for (const [label, subset] of splits) {
      if (splits.length > 1) console.warn(`\n${label}:`);
      const scores = SCORERS.map((s) => [s.name, scoreCorpus(subset, s)] as const);
      for (const [name, s] of scores) console.warn(formatScore(name, s));
      for (const [name, s] of scores) console.warn(`  ${formatDetail(name, s)}`);
    }
  }
  let started = Date.now();
  const cases = await loadFeatureCases();
  console.warn(`\nnested cross-validation by site (both corpora; 10 outer folds report, settings of ${Object.keys(FIT_GRID).length} and the abstention chosen on 4 inner folds of the other sites, wrong confident picks ≤ 1 % on real-site inner folds):`);
  const nested = nestedCrossValidate(cases, { grid: FIT_GRID, outerFolds: 10, innerFolds: 4 });
  for (const line of nestedLines(cases, nested.outcomes, nested.folds)) console.warn(line);
  console.warn(`(${((Date.now() - started) / 1000).toFixed(0)} s, load average ${os.loadavg()[0]!.toFixed(1)})`);
  started = Date.now();
  console.warn(`\nthe earlier figures, optimistic: cross-validation by site (leave one site out, both corpora fitted together; the figures on the corpora above are training figures for Assay):`);
  const cv = crossValidateBySite(cases, FIT_OPTIONS);
  for (const line of [...cvLines(cases, cv), ...calibrationLines(cases, cv)]) console.warn(line);
  console.warn(`(${((Date.now() - started) / 1000).toFixed(0)} s, load average ${os.loadavg()[0]!.toFixed(1)})`);
}

