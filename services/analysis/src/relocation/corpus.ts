import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { RelocationCase } from './fingerprint.js';
import type { Scorer } from './scorers.js';

/** The site a case comes from (cross-validation leaves whole sites out): its `site`, else its name up to the first colon or dash-number. */
export function siteOf(c: Pick<RelocationCase, 'name' | 'site'>): string {
  return c.site ?? c.name.split(':')[0]!.replace(/-\d+$/, '').trim();
}

/**
 * Reads every case under `dir` (recursively), in name order: `*.json` files
 * and gzipped `*.json.gz` ones, each holding one case or an array of cases.
 * @throws Error naming the file when a case is not in the corpus format.
 */
export async function loadCorpus(dir: string): Promise<Array<RelocationCase & { file: string }>> {
  const files: string[] = [];
  const walk = async (d: string) => {
    for (const e of (await readdir(d, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.name.endsWith('.json') || e.name.endsWith('.json.gz')) files.push(p);
    }
  };
  await walk(dir);
  const cases: Array<RelocationCase & { file: string }> = [];
  for (const file of files) {
    const raw = await readFile(file);
    const parsed = JSON.parse((file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8')) as RelocationCase | RelocationCase[];
    const list = Array.isArray(parsed) ? parsed : [parsed];
    list.forEach((c, i) => {
      const ok =
        c && typeof c.target === 'object' && typeof c.target?.tag === 'string' && Array.isArray(c.candidates) &&
        (c.expected === null || (Number.isInteger(c.expected) && c.expected >= 0 && c.expected < c.candidates.length));
      if (!ok) throw new Error(`${file}${Array.isArray(parsed) ? ` (case ${i})` : ''} is not a relocation case {name, target, candidates, expected}`);
      cases.push({ ...c, name: c.name ?? `${path.basename(file).replace(/\.json(\.gz)?$/, '')}${Array.isArray(parsed) ? `-${i}` : ''}`, file });
    });
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
  /** Picks the product applies (a tiered scorer's confident ones, any other scorer's every pick), and wrong ones among them. */
  heals: number;
  wrongHeals: number;
}

/** Runs one scorer over the cases. */
export function scoreCorpus(cases: RelocationCase[], scorer: Scorer): CorpusScore {
  const s: CorpusScore = { cases: cases.length, relocatable: 0, top1: 0, top3: 0, noMatch: 0, noMatchRight: 0, gone: 0, picks: 0, wrongPicks: 0, confident: 0, confidentWrong: 0, heals: 0, wrongHeals: 0 };
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
      if (r.outlier || !scorer.tiered) {
        s.heals++;
        if (wrong) s.wrongHeals++;
      }
    }
  }
  return s;
}

const pct = (n: number, d: number) => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}`);

/**
 * The bench's line: `<scorer>: top-1 <pct>%, top-3 <pct>%, heal rate <pct> %, wrong heals <pct> %, no-match precision <pct>%, cases <n>`.
 * Heal rate: right applied picks of the cases whose element exists; wrong heals: wrong applied picks of the applied picks.
 */
export function formatScore(name: string, s: CorpusScore): string {
  const p = (n: number, d: number) => (d === 0 ? 'n/a' : `${pct(n, d)}%`);
  const q = (n: number, d: number) => (d === 0 ? 'n/a' : `${pct(n, d)} %`);
  return `${name}: top-1 ${p(s.top1, s.relocatable)}, top-3 ${p(s.top3, s.relocatable)}, heal rate ${q(s.heals - s.wrongHeals, s.relocatable)}, wrong heals ${q(s.wrongHeals, s.heals)}, no-match precision ${p(s.noMatchRight, s.noMatch)}, cases ${s.cases}`;
}

/** What a user of a healing tool feels: wrong heals, and gone elements reported as gone. */
export function formatDetail(name: string, s: CorpusScore): string {
  return `${name}: picks ${s.picks} (wrong ${s.wrongPicks}; confident ${s.confident}, of them wrong ${s.confidentWrong}), no-match recall ${pct(s.noMatchRight, s.gone)}% of ${s.gone} removed elements`;
}
