import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RelocationCase } from './fingerprint.js';
import type { Scorer } from './scorers.js';

/**
 * Reads every `*.json` case under `dir` (recursively), in name order.
 * @throws Error naming the file when a case is not in the corpus format.
 */
export async function loadCorpus(dir: string): Promise<Array<RelocationCase & { file: string }>> {
  const files: string[] = [];
  const walk = async (d: string) => {
    for (const e of (await readdir(d, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.name.endsWith('.json')) files.push(p);
    }
  };
  await walk(dir);
  const cases: Array<RelocationCase & { file: string }> = [];
  for (const file of files) {
    const c = JSON.parse(await readFile(file, 'utf8')) as RelocationCase;
    const ok =
      c && typeof c.target === 'object' && typeof c.target?.tag === 'string' && Array.isArray(c.candidates) &&
      (c.expected === null || (Number.isInteger(c.expected) && c.expected >= 0 && c.expected < c.candidates.length));
    if (!ok) throw new Error(`${file} is not a relocation case {name, target, candidates, expected}`);
    cases.push({ ...c, name: c.name ?? path.basename(file, '.json'), file });
  }
  return cases;
}

export interface CorpusScore {
  cases: number;
  /** Cases whose element is on the changed page. */
  relocatable: number;
  /** Ranked first / in the first three, of the relocatable cases (whether or not the scorer then dares to pick). */
  top1: number;
  top3: number;
  /** Times the scorer said "no match", and how many of those were right (the element was gone). */
  noMatch: number;
  noMatchRight: number;
  /** Cases whose element was gone. */
  gone: number;
  /** Picks made, and picks of the wrong element (a wrong heal). */
  picks: number;
  wrongPicks: number;
  /** Picks flagged as standing out (high confidence), and how many of those were wrong. */
  confident: number;
  confidentWrong: number;
}

/** Runs one scorer over the cases. */
export function scoreCorpus(cases: RelocationCase[], scorer: Scorer): CorpusScore {
  const s: CorpusScore = { cases: cases.length, relocatable: 0, top1: 0, top3: 0, noMatch: 0, noMatchRight: 0, gone: 0, picks: 0, wrongPicks: 0, confident: 0, confidentWrong: 0 };
  for (const c of cases) {
    const r = scorer.relocate(c.target, c.candidates);
    if (c.expected === null) s.gone++;
    else {
      s.relocatable++;
      const at = r.ranked.findIndex((x) => x.index === c.expected);
      if (at === 0) s.top1++;
      if (at >= 0 && at < 3) s.top3++;
    }
    if (!r.best) {
      s.noMatch++;
      if (c.expected === null) s.noMatchRight++;
    } else {
      s.picks++;
      const wrong = r.best.index !== c.expected;
      if (wrong) s.wrongPicks++;
      if (r.outlier) {
        s.confident++;
        if (wrong) s.confidentWrong++;
      }
    }
  }
  return s;
}

const pct = (n: number, d: number) => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}`);

/** The bench's line: `<scorer>: top-1 <pct>%, top-3 <pct>%, no-match precision <pct>%, cases <n>`. */
export function formatScore(name: string, s: CorpusScore): string {
  const p = (n: number, d: number) => (d === 0 ? 'n/a' : `${pct(n, d)}%`);
  return `${name}: top-1 ${p(s.top1, s.relocatable)}, top-3 ${p(s.top3, s.relocatable)}, no-match precision ${p(s.noMatchRight, s.noMatch)}, cases ${s.cases}`;
}

/** What a user of a healing tool feels: wrong heals, and gone elements reported as gone. */
export function formatDetail(name: string, s: CorpusScore): string {
  return `${name}: picks ${s.picks} (wrong ${s.wrongPicks}; confident ${s.confident}, of them wrong ${s.confidentWrong}), no-match recall ${pct(s.noMatchRight, s.gone)}% of ${s.gone} removed elements`;
}
