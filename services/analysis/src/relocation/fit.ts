/**
 * Fitting the relocation model: a linear score over the features (features.ts)
 * turned into a probability over the page's candidates and "the element is
 * gone" (a softmax with one more outcome whose logit is a constant), fitted by
 * maximum likelihood with an L2 penalty (Adam, full batch). Ranking is then
 * what the expected element's probability is highest for, and the pick's
 * probability is the confidence abstention is calibrated on. Used by
 * tests/bench/relocation.fit.ts (which writes model.ts) and by the tests
 * (cross-validation by site on a subset).
 */
import type { RelocationCase } from './fingerprint.js';
import { FEATURES, pageFeatures, type FeatureVector } from './features.js';

/** One case read into numbers: the features of every candidate and which one is the element (null: gone). */
export interface FeatureCase {
  name: string;
  site: string;
  corpus: string;
  rows: FeatureVector[];
  expected: number | null;
}

export function featureCase(c: RelocationCase, site: string, corpus: string): FeatureCase {
  return { name: c.name, site, corpus, rows: pageFeatures(c.target, c.candidates), expected: c.expected };
}

export interface LinearModel {
  /** One weight per feature, in FEATURES order. */
  weights: number[];
  /** The logit of "the element is gone". */
  goneLogit: number;
}

export interface FitOptions {
  /** L2 penalty on the weights (per case). */
  l2?: number;
  iterations?: number;
  learningRate?: number;
  /** Features left out (ablation): their weight stays 0. */
  without?: ReadonlySet<string>;
  /** Weight of each case in the likelihood (default 1). */
  caseWeight?: (c: FeatureCase) => number;
  /**
   * Candidates a case keeps for the fit: the expected one and the `keep` closest
   * by Similo's own score (the rest are far from it and move the likelihood
   * by next to nothing; ranking is always measured on every candidate).
   */
  keep?: number;
}

const SIMILO_WEIGHTS = FEATURES.map((f, k) => (k < 14 ? (['tag', 'name', 'id', 'text', 'neighbours'].includes(f) ? 1.5 : 0.5) : 0));

/** The case with only its `keep` closest candidates by Similo's score (and the expected one). */
function pruned(c: FeatureCase, keep: number): FeatureCase {
  if (c.rows.length <= keep) return c;
  const order = c.rows.map((r, i) => ({ i, s: r.reduce((a, x, k) => a + SIMILO_WEIGHTS[k]! * x, 0) })).sort((a, b) => b.s - a.s || a.i - b.i);
  const kept = order.slice(0, keep).map((o) => o.i);
  if (c.expected !== null && !kept.includes(c.expected)) kept.push(c.expected);
  kept.sort((a, b) => a - b);
  return { ...c, rows: kept.map((i) => c.rows[i]!), expected: c.expected === null ? null : kept.indexOf(c.expected) };
}

/** Scores of every candidate, and the probabilities of each and of "gone". */
export function probabilities(model: LinearModel, rows: FeatureVector[], exclude?: ReadonlySet<number>): { scores: number[]; p: number[]; gone: number } {
  // An excluded candidate (a rejected suggestion) is not on the page as far as the odds go.
  const scores = rows.map((r, i) => (exclude?.has(i) ? -Infinity : dot(model.weights, r)));
  const max = Math.max(model.goneLogit, ...scores);
  const e = scores.map((s) => Math.exp(s - max));
  const eg = Math.exp(model.goneLogit - max);
  const z = e.reduce((a, b) => a + b, eg);
  return { scores, p: e.map((x) => x / z), gone: eg / z };
}

const dot = (w: number[], r: FeatureVector) => {
  let s = 0;
  for (let k = 0; k < r.length; k++) s += w[k]! * r[k]!;
  return s;
};

/** Maximum likelihood with an L2 penalty, Adam on the full batch (convex: the result does not depend on the start). */
export function fitModel(all: FeatureCase[], opts: FitOptions = {}): LinearModel {
  const cases = all.map((c) => pruned(c, opts.keep ?? 40));
  const l2 = opts.l2 ?? 0.01;
  const iterations = opts.iterations ?? 200;
  const lr = opts.learningRate ?? 0.1;
  const n = FEATURES.length;
  const mask = FEATURES.map((f) => (opts.without?.has(f) ? 0 : 1));
  // One flat matrix of every candidate's features, cases as row ranges (the loop below runs ~10^9 times a fit).
  const rowCount = cases.reduce((a, c) => a + c.rows.length, 0);
  const X = new Float64Array(rowCount * n);
  const start = new Int32Array(cases.length + 1);
  let r = 0;
  cases.forEach((c, ci) => {
    start[ci] = r;
    for (const row of c.rows) X.set(row, r++ * n);
  });
  start[cases.length] = r;
  const weightOf = cases.map((c) => opts.caseWeight?.(c) ?? 1);
  const total = weightOf.reduce((a, b) => a + b, 0) || 1;
  const w = new Float64Array(n + 1);
  const m = new Float64Array(n + 1);
  const v = new Float64Array(n + 1);
  const g = new Float64Array(n + 1);
  const score = new Float64Array(rowCount);
  for (let it = 1; it <= iterations; it++) {
    g.fill(0);
    for (let ci = 0; ci < cases.length; ci++) {
      const a = start[ci]!;
      const b = start[ci + 1]!;
      let max = w[n]!;
      for (let i = a; i < b; i++) {
        let s = 0;
        const o = i * n;
        for (let k = 0; k < n; k++) s += w[k]! * X[o + k]!;
        score[i] = s;
        if (s > max) max = s;
      }
      let z = Math.exp(w[n]! - max);
      for (let i = a; i < b; i++) z += score[i] = Math.exp(score[i]! - max);
      const cw = weightOf[ci]! / total;
      const expected = cases[ci]!.expected;
      for (let i = a; i < b; i++) {
        const coef = cw * (score[i]! / z - (expected === i - a ? 1 : 0));
        const o = i * n;
        for (let k = 0; k < n; k++) g[k]! += coef * X[o + k]!;
      }
      g[n]! += cw * (Math.exp(w[n]! - max) / z - (expected === null ? 1 : 0));
    }
    for (let k = 0; k < n; k++) g[k] = (g[k]! + 2 * l2 * w[k]!) * mask[k]!;
    for (let k = 0; k <= n; k++) {
      m[k] = 0.9 * m[k]! + 0.1 * g[k]!;
      v[k] = 0.999 * v[k]! + 0.001 * g[k]! * g[k]!;
      const mh = m[k]! / (1 - 0.9 ** it);
      const vh = v[k]! / (1 - 0.999 ** it);
      w[k] = w[k]! - (lr * mh) / (Math.sqrt(vh) + 1e-8);
    }
  }
  return { weights: [...w.slice(0, n)].map((x) => Math.round(x * 1e4) / 1e4), goneLogit: Math.round(w[n]! * 1e4) / 1e4 };
}

/** Where the expected element ranks (0 = first; −1 when gone), ties broken by candidate order as the scorer does. */
export function rankOf(model: LinearModel, c: FeatureCase): number {
  if (c.expected === null) return -1;
  const scores = c.rows.map((r) => dot(model.weights, r));
  const e = scores[c.expected]!;
  let rank = 0;
  scores.forEach((s, i) => {
    if (s > e || (s === e && i < c.expected!)) rank++;
  });
  return rank;
}

/** Leave-one-site-out: each site's cases are ranked by a model fitted on every other site. */
export function crossValidateBySite(cases: FeatureCase[], opts: FitOptions = {}): Map<FeatureCase, { rank: number; model: LinearModel }> {
  const sites = [...new Set(cases.map((c) => `${c.corpus}/${c.site}`))];
  const out = new Map<FeatureCase, { rank: number; model: LinearModel }>();
  for (const site of sites) {
    const model = fitModel(
      cases.filter((c) => `${c.corpus}/${c.site}` !== site),
      opts,
    );
    for (const c of cases.filter((x) => `${x.corpus}/${x.site}` === site)) out.set(c, { rank: rankOf(model, c), model });
  }
  return out;
}

/** The model the service runs: the weights, and the probabilities a pick and a confident pick need. */
export interface RelocationModel extends LinearModel {
  /** The feature names the weights were fitted for (must equal FEATURES). */
  features: readonly string[];
  /** A pick needs at least this probability; below it the answer is "no match". */
  pickAt: number;
  /** A pick at or above this probability is confident (stands out); below it the item says it is ambiguous. */
  confidentAt: number;
}

/** Throws when a model was fitted for other features than the code computes. */
export function checkModel(model: RelocationModel): RelocationModel {
  if (model.features.length !== FEATURES.length || model.features.some((f, i) => f !== FEATURES[i]) || model.weights.length !== FEATURES.length) {
    throw new Error('the relocation model was fitted for other features: run tests/bench/relocation.fit.ts');
  }
  return model;
}

/** One case's outcome under a model: the top probability, whether the top is the element, whether the element is gone. */
export interface Outcome {
  p: number;
  right: boolean;
  gone: boolean;
}

export function outcomeOf(model: LinearModel, c: FeatureCase): Outcome {
  const { p } = probabilities(model, c.rows);
  let top = 0;
  p.forEach((x, i) => {
    if (x > p[top]!) top = i;
  });
  return { p: p[top] ?? 0, right: c.expected === top, gone: c.expected === null };
}

/**
 * The two thresholds from cross-validated outcomes. `pickAt` maximises what a
 * user feels: a right pick or a right "gone" +1, a missed heal 0, a wrong pick
 * (a heal onto the wrong element) −2. `confidentAt` is the lowest probability
 * above which at most `wrongShare` of the picks were wrong.
 */
export function calibrate(outcomes: Outcome[], wrongShare = 0.02): { pickAt: number; confidentAt: number } {
  const grid = Array.from({ length: 99 }, (_, i) => (i + 1) / 100);
  let pickAt = 0.5;
  let best = -Infinity;
  for (const t of grid) {
    const value = outcomes.reduce((a, o) => a + (o.p >= t ? (o.right ? 1 : -2) : o.gone ? 1 : 0), 0);
    if (value > best) {
      best = value;
      pickAt = t;
    }
  }
  let confidentAt = 1;
  for (const t of grid.filter((x) => x >= pickAt)) {
    const picks = outcomes.filter((o) => o.p >= t);
    if (picks.length && picks.filter((o) => !o.right).length <= wrongShare * picks.length) {
      confidentAt = t;
      break;
    }
  }
  return { pickAt, confidentAt };
}
