import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCORERS, formatDetail, formatScore, loadCorpus, scoreCorpus } from '@assay/analysis';

const OWN = fileURLToPath(new URL('../fixtures/relocation/', import.meta.url));

/**
 * `make bench BENCH=relocation`: Assay's relocation scorer against Similo-style
 * and Healenium-style baselines on the same cases. `RELOCATION_CORPUS=<dir>`
 * runs any corpus in the format of tests/fixtures/relocation (see the
 * analysis service's README); the project's own corpus also prints its
 * training, held-out and fresh splits apart.
 */
export async function benchRelocation(): Promise<void> {
  const dir = process.env.RELOCATION_CORPUS ? path.resolve(process.env.RELOCATION_CORPUS) : OWN;
  const cases = await loadCorpus(dir);
  console.warn(`relocation: ${cases.length} cases from ${dir}`);
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
