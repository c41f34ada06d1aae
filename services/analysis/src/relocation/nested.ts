/**
 * Nested cross-validation by site: the figures a fitted relocation scorer
 * may honestly report. Sites are split into outer folds; for each, every
 * setting (regularisation, loss, feature set, the abstention thresholds and
 * the plausible tier's margin) is chosen on inner folds of the other sites
 * only, the ranking and abstention models are fitted on those sites with the
 * chosen setting, and the outer fold's cases are scored once. Nothing of an
 * outer fold's sites reaches a choice that scores them.
 */
import { fitAbstention, fitModel, rightProbability, topReadings, type FeatureCase, type FitOptions, type LinearModel } from './fit.js';

/** One case scored by a model (and thresholds) chosen without its site. */
export interface NestedOutcome {
  /** Where the expected element ranked (0 = first; −1 when gone). */
  rank: number;
  /** The probability the abstention model gives that the top candidate is the element. */
  p: number;
  /** The top candidate's lead over the next, in score units. */
  lead: number;
  /** The top candidate is the element. */
  right: boolean;
  gone: boolean;
  /** What the product does: apply (confident), offer after a passing re-run (plausible), offer after a passing re-run the case needed (possible), or say "no match". */
  tier: 'confident' | 'plausible' | 'possible' | 'none';
}

/** The abstention thresholds: a confident pick is applied; a plausible one is offered only after a passing re-run. */
export interface Thresholds {
  confidentAt: number;
  plausibleAt: number;
  /** A plausible pick also needs this lead (score units) over the runner-up. */
  plausibleLead: number;
  /**
   * Below `plausibleAt` (with the same lead), a pick is possible: offered only
   * when its re-run passes and the case without the step fails (the re-run then
   * needed the element). Equal to `plausibleAt` when no such band is worth it.
   */
  possibleAt: number;
  /** A possible pick's lead over the runner-up (its own: the plausible band may be empty). */
  possibleLead: number;
}

export interface NestedFold {
  sites: string[];
  setting: string;
  thresholds: Thresholds;
}

export interface NestedOptions {
  outerFolds?: number;
  innerFolds?: number;
  /** The settings the inner folds choose among (name → fit options). */
  grid: Record<string, FitOptions>;
  /** Wrong confident picks allowed, as a share of confident picks, on the real-site inner outcomes. */
  wrongShare?: number;
  /** The corpus the thresholds are calibrated on (the one whose elements are nearly always still there). */
  calibrateOn?: string;
  /** The removal weights the inner folds choose among (default `REMOVAL_WEIGHTS`). */
  removalWeights?: number[];
  /** How often a verification re-run passes with a right and with a wrong pick (default `RERUN_POWER`). */
  rerunPower?: RerunPower;
  /** How often it passes where the case without the step fails (default `INFORMATIVE_POWER`). */
  informativePower?: RerunPower;
}

/** How often a verification re-run passed with a right and with a wrong candidate in a broken step's place. */
export interface RerunPower {
  right: { passed: number; of: number };
  wrong: { passed: number; of: number };
}

/**
 * Measured on the healing bench's real upgrades (`HEALING_WRONG_RERUNS=1 make
 * bench BENCH=healing` on the 11 pairs tuned on, 2026-12-03; the held-out
 * pairs not run; services/analysis/README.md, "How much a verification re-run
 * proves"): each broken step's first ranked candidates (up to 4) were put in
 * its place and the case re-run through the product. A plausible pick is
 * offered only once its re-run passes, so a wrong one is offered only as often
 * as a wrong candidate's re-run passes, and a right one heals only as often as
 * a right one's passes.
 */
export const RERUN_POWER: RerunPower = { right: { passed: 15, of: 17 }, wrong: { passed: 21, of: 50 } };

/**
 * The same tries, counting a re-run only when it passed and the case run
 * without the step (the control) failed: the case needed the step's effect,
 * and the candidate gave it. The 3 wrong ones are one tabulator step whose
 * tried selector was not unique and found another column's button first.
 */
export const INFORMATIVE_POWER: RerunPower = { right: { passed: 7, of: 17 }, wrong: { passed: 3, of: 50 } };

/** Wilson's interval for `passed` of `of` at one-sided 95 % (z = 1.645): its lower and upper ends. */
export function wilson(passed: number, of: number, z = 1.645): { lower: number; upper: number } {
  if (of <= 0) return { lower: 0, upper: 1 };
  const p = passed / of;
  const z2 = z * z;
  const centre = (p + z2 / (2 * of)) / (1 + z2 / of);
  const half = (z * Math.sqrt((p * (1 - p)) / of + z2 / (4 * of * of))) / (1 + z2 / of);
  return { lower: Math.max(0, centre - half), upper: Math.min(1, centre + half) };
}

const siteKey = (c: FeatureCase) => `${c.corpus}/${c.site}`;

/**
 * Sites into `k` folds of about the same number of cases, each corpus spread
 * over all folds (largest site first into the fold with fewest cases of that
 * corpus; ties by name): deterministic.
 */
export function foldsBySite(cases: FeatureCase[], k: number): string[][] {
  const folds: string[][] = Array.from({ length: k }, () => []);
  for (const corpus of [...new Set(cases.map((c) => c.corpus))].sort()) {
    const size = new Map<string, number>();
    for (const c of cases.filter((x) => x.corpus === corpus)) size.set(siteKey(c), (size.get(siteKey(c)) ?? 0) + 1);
    const load = new Array<number>(k).fill(0);
    for (const [site, n] of [...size].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) {
      const f = load.indexOf(Math.min(...load));
      folds[f]!.push(site);
      load[f]! += n;
    }
  }
  return folds.filter((f) => f.length);
}

/** The abstention model's L2 penalties the inner folds choose among. */
const ABSTENTION_L2 = [0.001, 0.003];

/**
 * How much the abstention's training counts each page read again without its
 * element (a negative: the top is then some other element), against the page
 * as it is; the inner folds choose. Real sites almost never lose the element,
 * so without these the model sees few tops that are wrong (about one case in
 * fifteen) and learns little of what a wrong top looks like.
 */
export const REMOVAL_WEIGHTS = [0, 0.25, 0.5, 1];

export interface Reading {
  c: FeatureCase;
  rank: number;
  top: number;
  x: number[];
  /** The abstention's inputs with the element left out of the page (null: it is gone already, or alone on the page). */
  xWithout: number[] | null;
}

/**
 * Fits on `train` (or takes `fitted`) and reads `test`: each case's rank and the abstention inputs of its top
 * candidate; with `withoutElement`, also those of the page without its element (the abstention's training only).
 */
function readFold(train: FeatureCase[], test: FeatureCase[], opts: FitOptions, withoutElement: boolean, fitted?: LinearModel): Reading[] {
  const model = fitted ?? fitModel(train, opts);
  return test.map((c) => {
    const { top, x } = topReadings(model, c.rows, undefined, c.controls);
    const e = c.expected;
    const without = e === null || !withoutElement ? undefined : topReadings(model, c.rows, new Set([e]), c.controls);
    const xWithout = without && without.top >= 0 ? without.x : null;
    let rank = -1;
    if (e !== null) {
      const s = c.rows.map((row) => row.reduce((a, v, k) => a + model.weights[k]! * v, 0));
      rank = s.filter((v, i) => v > s[e]! || (v === s[e]! && i < e)).length;
    }
    return { c, rank, top, x, xWithout };
  });
}

const sample = (r: Reading, weight: (c: FeatureCase) => number) => ({ x: r.x, right: r.c.expected !== null && r.c.expected === r.top, weight: weight(r.c) });

/** The abstention's training samples: each page as it is, and (at `removal` of its weight) without its element. */
export function abstentionSamples(readings: Reading[], weight: (c: FeatureCase) => number, removal: number): Array<{ x: number[]; right: boolean; weight: number }> {
  const out = readings.map((r) => sample(r, weight));
  if (removal > 0) for (const r of readings) if (r.xWithout) out.push({ x: r.xWithout, right: false, weight: removal * weight(r.c) });
  return out;
}

/**
 * The setting the inner folds choose: the first of the grid (listed from the
 * most regularised) that ranks the element first in about as many cases as the
 * best one, beyond chance: the best's paired lead over it (cases only the best
 * ranks right, minus cases only it does) at most twice the square root of the
 * cases they disagree on (a sign test, about two standard errors). Picking the
 * best count outright follows noise: inner counts of ~340 cases differ by one
 * or two between settings, and a fold switching on that loses more than it wins.
 */
export function chooseSetting(firsts: Array<{ name: string; right: boolean[] }>): string {
  const count = (r: boolean[]) => r.filter(Boolean).length;
  const best = firsts.reduce((a, b) => (count(b.right) > count(a.right) ? b : a));
  for (const s of firsts) {
    let onlyBest = 0;
    let onlyIt = 0;
    s.right.forEach((ok, i) => {
      if (best.right[i] && !ok) onlyBest++;
      if (ok && !best.right[i]) onlyIt++;
    });
    if (onlyBest - onlyIt <= 2 * Math.sqrt(onlyBest + onlyIt)) return s.name;
  }
  return best.name;
}

/**
 * Thresholds from held-out outcomes. `confidentAt`: the lowest probability at
 * which wrong picks are at most `wrongShare` of the picks at or above it, on
 * the calibration corpus and on all cases. `plausibleAt` and its lead: what
 * maximises, below `confidentAt`, the right picks healed minus twice the
 * wrong ones offered. A plausible pick is offered only once its re-run passes:
 * a right one counts as the share of right candidates whose re-run passes (the
 * low end of its interval), a wrong one as the share of wrong candidates whose
 * re-run passes (the high end). Without `power`, every pick counts (+1, -2).
 * `possibleAt` and its lead: the same below `plausibleAt`, each pick
 * counted as the share whose re-run is informative (`informative`: passed
 * where the case without the step failed); without it, no possible band.
 */
export function calibrateTiers(outcomes: Array<{ p: number; lead: number; right: boolean; corpus: string }>, wrongShare: number, calibrateOn: string, power?: RerunPower, informative?: RerunPower): Thresholds {
  const grid = Array.from({ length: 99 }, (_, i) => (i + 1) / 100);
  const ok = (list: typeof outcomes, t: number, share: number) => {
    const picks = list.filter((o) => o.p >= t);
    return picks.filter((o) => !o.right).length <= share * picks.length;
  };
  const own = outcomes.filter((o) => o.corpus === calibrateOn);
  // The lowest threshold that holds, and every one above it too (a lucky dip in the curve is not a threshold).
  let confidentAt = 1;
  for (let i = grid.length - 1; i >= 0; i--) {
    if (!ok(own, grid[i]!, wrongShare) || !ok(outcomes, grid[i]!, 2 * wrongShare)) break;
    confidentAt = grid[i]!;
  }
  // The band below `top` (picks with at least `lead`) worth most: a right pick counted as the low end of how often a
  // re-run lets a right one through, a wrong one as twice the high end of how often it lets a wrong one through.
  // From the top down: of thresholds worth the same, the highest (a band never reaches into cases it has no evidence on).
  const band = (top: number, lead: number, through: RerunPower | undefined) => {
    const gain = through ? wilson(through.right.passed, through.right.of).lower : 1;
    const loss = 2 * (through ? wilson(through.wrong.passed, through.wrong.of).upper : 1);
    let found = { at: top, value: 0 };
    for (const t of grid.filter((g) => g < top).reverse()) {
      const value = outcomes.filter((o) => o.p >= t && o.p < top && o.lead >= lead).reduce((a, o) => a + (o.right ? gain : -loss), 0);
      if (value > found.value) found = { at: t, value };
    }
    return found;
  };
  // The best band below `top` over the leads; none worth it: `top` itself, with `lead`.
  const bestBand = (top: number, through: RerunPower | undefined, lead: number) =>
    [0, 0.5, 1, 2].reduce((best, l) => {
      const b = band(top, l, through);
      return b.value > best.value ? { ...b, lead: l } : best;
    }, { at: top, value: 0, lead });
  const plausible = bestBand(confidentAt, power, 0);
  const possible = informative ? bestBand(plausible.at, informative, plausible.lead) : plausible;
  return { confidentAt, plausibleAt: plausible.at, plausibleLead: plausible.lead, possibleAt: possible.at, possibleLead: possible.lead };
}

/** The product's tier for a probability and lead under the thresholds. */
export function tierOf(p: number, lead: number, t: Thresholds): NestedOutcome['tier'] {
  if (p >= t.confidentAt) return 'confident';
  if (p >= t.plausibleAt && lead >= t.plausibleLead) return 'plausible';
  if (p >= t.possibleAt && lead >= t.possibleLead) return 'possible';
  return 'none';
}

/** What `chooseAndFit` settles on: the setting, the models fitted with it on every training site, and the thresholds. */
export interface Chosen {
  setting: string;
  abstentionL2: number;
  /** The weight of the pages read without their element in the abstention's training (`REMOVAL_WEIGHTS`). */
  removalWeight: number;
  model: LinearModel;
  abstention: number[];
  thresholds: Thresholds;
  /** Confident picks right and made on the calibration corpus, inner folds (the heal rate the choice was made on). */
  innerHeals: number;
}

/**
 * Chooses a setting (ranking: `chooseSetting` on inner folds by site;
 * abstention: its L2 penalty, the weight of pages read without their element,
 * and the thresholds, most confident right picks on the calibration corpus
 * within the wrong-pick share) on `train` alone, then fits the ranking and
 * abstention models on all of `train` with it.
 */
export function chooseAndFit(train: FeatureCase[], o: NestedOptions): Chosen {
  const inner = foldsBySite(train, o.innerFolds ?? 4);
  const inFold = (f: string[]) => (c: FeatureCase) => f.includes(siteKey(c));
  const bySetting = new Map<string, Reading[]>();
  for (const [name, opts] of Object.entries(o.grid)) {
    bySetting.set(
      name,
      inner.flatMap((f) => readFold(train.filter((c) => !inFold(f)(c)), train.filter(inFold(f)), opts, true)),
    );
  }
  const setting = chooseSetting([...bySetting].map(([name, readings]) => ({ name, right: readings.map((r) => r.rank === 0) })));
  const readings = bySetting.get(setting)!;
  const opts = o.grid[setting]!;
  const weight = opts.caseWeight ?? (() => 1);
  const calibrateOn = o.calibrateOn ?? 'real';
  let choice: { l2: number; removal: number; thresholds: Thresholds; heals: number } | undefined;
  for (const removal of o.removalWeights ?? REMOVAL_WEIGHTS) {
    for (const l2 of ABSTENTION_L2) {
      // Held-out abstention probabilities on the inner folds, for the thresholds.
      const held = inner.flatMap((f) => {
        const abst = fitAbstention(abstentionSamples(readings.filter((r) => !f.includes(siteKey(r.c))), weight, removal), l2);
        return readings.filter((r) => f.includes(siteKey(r.c))).map((r) => ({ p: rightProbability(abst, r.x), lead: r.x[1]!, right: sample(r, weight).right, corpus: r.c.corpus }));
      });
      const thresholds = calibrateTiers(held, o.wrongShare ?? 0.01, calibrateOn, o.rerunPower ?? RERUN_POWER, o.informativePower ?? INFORMATIVE_POWER);
      const heals = held.filter((h) => h.corpus === calibrateOn && h.right && h.p >= thresholds.confidentAt).length;
      if (!choice || heals > choice.heals) choice = { l2, removal, thresholds, heals };
    }
  }
  return {
    setting,
    abstentionL2: choice!.l2,
    removalWeight: choice!.removal,
    model: fitModel(train, opts),
    abstention: fitAbstention(abstentionSamples(readings, weight, choice!.removal), choice!.l2),
    thresholds: choice!.thresholds,
    innerHeals: choice!.heals,
  };
}

/** Scores cases with what `chooseAndFit` settled on. */
export function scoreChosen(chosen: Chosen, test: FeatureCase[]): NestedOutcome[] {
  return readFold([], test, {}, false, chosen.model).map((r) => {
    const p = rightProbability(chosen.abstention, r.x);
    const right = r.c.expected !== null && r.c.expected === r.top;
    return { rank: r.rank, p, lead: r.x[1]!, right, gone: r.c.expected === null, tier: tierOf(p, r.x[1]!, chosen.thresholds) };
  });
}

/** Nested cross-validation by site: every case scored once, by settings chosen on inner folds of the other sites. */
export function nestedCrossValidate(cases: FeatureCase[], o: NestedOptions): { outcomes: Map<FeatureCase, NestedOutcome>; folds: NestedFold[] } {
  const outcomes = new Map<FeatureCase, NestedOutcome>();
  const folds: NestedFold[] = [];
  for (const sites of foldsBySite(cases, o.outerFolds ?? 10)) {
    const test = cases.filter((c) => sites.includes(siteKey(c)));
    const chosen = chooseAndFit(
      cases.filter((c) => !sites.includes(siteKey(c))),
      o,
    );
    scoreChosen(chosen, test).forEach((r, i) => outcomes.set(test[i]!, r));
    folds.push({ sites, setting: `${chosen.setting}; abstention L2 ${chosen.abstentionL2}, pages without their element at ${chosen.removalWeight}`, thresholds: chosen.thresholds });
  }
  return { outcomes, folds };
}

/** The figures of a set of outcomes (one corpus): ranking, and what the product would do. */
export interface TierFigures {
  cases: number;
  withTarget: number;
  top1: number;
  top3: number;
  confident: number;
  confidentRight: number;
  plausible: number;
  plausibleRight: number;
  possible: number;
  possibleRight: number;
  none: number;
  noneGone: number;
  gone: number;
}

export function tierFigures(outcomes: NestedOutcome[]): TierFigures {
  const withTarget = outcomes.filter((o) => !o.gone);
  const of = (tier: NestedOutcome['tier']) => outcomes.filter((o) => o.tier === tier);
  return {
    cases: outcomes.length,
    withTarget: withTarget.length,
    top1: withTarget.filter((o) => o.rank === 0).length,
    top3: withTarget.filter((o) => o.rank >= 0 && o.rank < 3).length,
    confident: of('confident').length,
    confidentRight: of('confident').filter((o) => o.right).length,
    plausible: of('plausible').length,
    plausibleRight: of('plausible').filter((o) => o.right).length,
    possible: of('possible').length,
    possibleRight: of('possible').filter((o) => o.right).length,
    none: of('none').length,
    noneGone: of('none').filter((o) => o.gone).length,
    gone: outcomes.filter((o) => o.gone).length,
  };
}
