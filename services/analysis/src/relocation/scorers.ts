import { controlKey, nameOf, roleFamily, testIdOf, type Fingerprint } from './fingerprint.js';
import { boxOf, FEATURE_INDEX, hrefSimilarity, neighbourSimilarity, pageContext, pageFeatures, similoScore, type FeatureName, type FeatureVector } from './features.js';
import { RELOCATION_MODEL } from './model.js';
import { checkModel, probabilities, rightProbability, topReadings, type RelocationModel } from './fit.js';
import { centreDistance, identifierSimilarity, isGeneratedName, lcs, levenshtein, norm, WordWeights, xpathSteps, xpathTags } from './similarity.js';

/** One candidate's score and, for Assay's scorer, the score of each factor (shown to users). */
export interface ScoredCandidate {
  index: number;
  score: number;
  factors: Record<string, number>;
}

export interface Relocation {
  /** Every candidate, best first. */
  ranked: ScoredCandidate[];
  /** The scorer's pick, or undefined when it says nothing on the page is the element. */
  best: ScoredCandidate | undefined;
  /** 0..1: how sure the pick is (score and how far it stands out). */
  confidence: number;
  /** The pick is confident (applied after its checks); a pick that is not is plausible (offered only once a re-run with it passes). */
  outlier: boolean;
  /** Why there is no pick, or why the pick is uncertain. */
  reason?: string;
  /**
   * No pick, but the top candidate is possible (from the model's `possibleAt`, with its
   * `possibleLead`, contradicting nothing): worth a re-run, offered only when that re-run
   * passes and the case without the step fails. `right`: its probability of being the element.
   */
  possible?: ScoredCandidate & { right: number };
}

export interface Scorer {
  name: string;
  /** Its picks come in two tiers: only an `outlier` (confident) pick is applied; the others wait for a passing re-run. Unset: every pick is applied. */
  tiered?: boolean;
  relocate(target: Fingerprint, candidates: Fingerprint[]): Relocation;
}

const byScore = (a: ScoredCandidate, b: ScoredCandidate) => b.score - a.score || a.index - b.index;

// ---------------------------------------------------------------------------
// Similo-style baseline: the fourteen properties and weights of Similo
// (Nass et al., 2023; the "legacy" comparisons of its replication package):
// 1.5 for tag, name, id, visible text and neighbour texts, 0.5 for the rest.
// "Similo-style" answers "no match" below half of the maximum score, the same
// cap Healenium uses, so both can be compared; "Similo (plain)" is Similo as
// published: it never abstains. A box a capture could not measure (`{}`)
// reads 0 for location, area and shape (it used to read NaN and break the sort).
// ---------------------------------------------------------------------------

export const similoScorer: Scorer = {
  name: 'Similo-style',
  relocate(target, candidates) {
    const ranked = candidates.map((c, index) => ({ index, score: similoScore(target, c), factors: {} })).sort(byScore);
    const top = ranked[0];
    const pick = top && top.score >= 0.5 ? top : undefined;
    return { ranked, best: pick, confidence: pick?.score ?? 0, outlier: false, ...(pick ? {} : { reason: 'best score below 0.5' }) };
  },
};

export const plainSimiloScorer: Scorer = {
  name: 'Similo (plain)',
  relocate(target, candidates) {
    const ranked = candidates.map((c, index) => ({ index, score: similoScore(target, c), factors: {} })).sort(byScore);
    return { ranked, best: ranked[0], confidence: ranked[0]?.score ?? 0, outlier: false };
  },
};

// ---------------------------------------------------------------------------
// Healenium-style baseline: Healenium's tree comparison (LCS of the DOM paths
// plus weighted node attributes, HeuristicNodeDistance's points: tag 100,
// path 100, id 50, class 40, text 30, other attributes 30) with its default
// score cap of 0.5. Path nodes are the XPath steps (tag and index), which is
// what the corpus format keeps of the ancestors.
// ---------------------------------------------------------------------------

/** Levenshtein score as Healenium computes it: 0 past `threshold` of the longer length. */
function healeniumLevenshtein(a: string | null | undefined, b: string | null | undefined, threshold: number): number {
  if (a === null || a === undefined || b === null || b === undefined) return 0;
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const length = Math.max(s.length, t.length);
  if (length === 0) return 1;
  const limit = Math.floor(length * threshold + 1);
  const d = levenshtein(s, t, 400);
  return d > limit ? 0 : (length - d) / length;
}

function healeniumClasses(a: string[], b: string[]): number {
  let n = 0;
  let sum = 0;
  for (const x of a) for (const y of b) {
    sum += healeniumLevenshtein(x, y, 0.75);
    n++;
  }
  return n ? sum / n : 0;
}

function healeniumNodeScore(t: Fingerprint, c: Fingerprint, lcsLength: number, height: number): number {
  if (height === 0 || (height > 5 && lcsLength / height < 0.7)) return 0;
  let score = (lcsLength / height) * 100;
  if (t.tag.toLowerCase() === c.tag.toLowerCase()) score += 100;
  if (t.id && c.id) score += 50 * healeniumLevenshtein(t.id, c.id, 0.3);
  score += 30 * healeniumLevenshtein(t.text ?? '', c.text ?? '', 0.3);
  const tc = new Set(t.classes ?? []);
  const cc = new Set(c.classes ?? []);
  const union = new Set([...tc, ...cc]);
  const inter = [...tc].filter((x) => cc.has(x));
  score += union.size ? (inter.length * 40) / union.size : 40;
  const d1 = [...tc].filter((x) => !cc.has(x));
  const d2 = [...cc].filter((x) => !tc.has(x));
  const diff = new Set([...d1, ...d2]).size;
  if (diff > 0) {
    let cs = d1.length ? healeniumClasses(d1, [...cc]) : healeniumClasses([...tc], d2);
    if (union.size) cs /= union.size;
    score += diff * 40 * cs;
  }
  const ta = t.attributes ?? {};
  const ca = c.attributes ?? {};
  const names = new Set([...Object.keys(ta), ...Object.keys(ca)]);
  if (names.size) {
    let other = 0;
    for (const n of names) other += 30 * healeniumLevenshtein(ta[n], ca[n], 0.75);
    score += other / names.size;
  } else score += 30;
  return score / 350;
}

export const healeniumScorer: Scorer = {
  name: 'Healenium-style',
  relocate(target, candidates) {
    const path = xpathSteps(target.xpath);
    const lcsOf = candidates.map((c) => lcs(path, xpathSteps(c.xpath)));
    const height = Math.min(Math.max(0, ...lcsOf), path.length);
    const ranked = candidates
      .map((c, index) => ({ index, score: lcsOf[index]! < 1 ? 0 : healeniumNodeScore(target, c, lcsOf[index]!, height), factors: {} }))
      .sort(byScore);
    const top = ranked[0];
    const pick = top && top.score >= 0.5 ? top : undefined;
    return { ranked, best: pick, confidence: pick?.score ?? 0, outlier: false, ...(pick ? {} : { reason: 'best score below the 0.5 score cap' }) };
  },
};

// ---------------------------------------------------------------------------
// Assay's scorer: the features of features.ts (Similo's fourteen properties,
// better readings of them, VON Similo's visual overlap, page-relative
// readings) weighed by a model fitted on real sites and the project's corpus
// together (model.ts, written by tests/bench/relocation.fit.ts), as the
// probability of each candidate being the element and of the element being
// gone. Abstention is calibrated on that probability; a pick whose role or
// words contradict the element is no pick.
// ---------------------------------------------------------------------------

/** The readings shown to users beside a candidate (the names they had before the model). */
const SHOWN: Array<[string, FeatureName]> = [
  ['text', 'text_words'],
  ['label', 'label_words'],
  ['id', 'id_words'],
  ['name', 'name_words'],
  ['testid', 'testid'],
  ['href', 'href_path'],
  ['tag', 'tag_family'],
  ['classes', 'class_words'],
  ['neighbours', 'neighbours_by_side'],
  ['path', 'path_tags'],
  ['position', 'near'],
];

function shownFactors(row: FeatureVector): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, feature] of SHOWN) out[name] = Math.round(row[FEATURE_INDEX[feature]]! * 1000) / 1000;
  return out;
}

/** True when `t` and `c` carry the same identifier: test id, stable id, name (with the value for checkboxes and radios), link target. */
function sameIdentity(t: Fingerprint, c: Fingerprint): boolean {
  const same = (a: string | null | undefined, b: string | null | undefined) => !!a && !!b && identifierSimilarity(a, b) >= 0.6;
  const stableId = (fp: Fingerprint) => (fp.id && !isGeneratedName(fp.id) ? fp.id : undefined);
  const grouped = ['checkbox', 'radio'].includes((t.attributes?.type ?? '').toLowerCase());
  const nameMatches = same(nameOf(t), nameOf(c)) && (!grouped || (t.attributes?.value ?? '') === (c.attributes?.value ?? ''));
  const href = t.attributes?.href && c.attributes?.href ? hrefSimilarity(t.attributes.href, c.attributes.href) >= 0.9 : false;
  return same(testIdOf(t), testIdOf(c)) || same(stableId(t), stableId(c)) || nameMatches || href;
}

/** True when `c` sits where `t` was: the same neighbours, and the same spot or DOM path (a reworded control). */
function samePlace(t: Fingerprint, c: Fingerprint, words: WordWeights): boolean {
  const neighbours = neighbourSimilarity(t, c, words);
  const tb = boxOf(t);
  const cb = boxOf(c);
  const position = tb && cb ? Math.exp(-centreDistance(tb, cb) / 250) : 0;
  const a = xpathTags(t.xpath);
  const b = xpathTags(c.xpath);
  const path = a.length && b.length ? 0.8 * (lcs(a, b) / Math.max(a.length, b.length)) + 0.2 * (t.xpath === c.xpath ? 1 : 0) : 0;
  return neighbours >= 0.9 && (position >= 0.8 || path >= 0.95);
}

/**
 * Whether healing onto `c` would be healing onto the wrong element: a field
 * where a control was (or the reverse), or an element whose words have
 * nothing to do with the target's while no identifier of it matches (a
 * control in the target's very place may be reworded; static text may not)
 * ("Add to cart" for "Add to wishlist": the shared words are the kind of
 * action, the differing ones are what it acts on).
 */
export function contradicts(t: Fingerprint, c: Fingerprint, words: WordWeights = new WordWeights([])): string | undefined {
  const ft = roleFamily(t);
  const fc = roleFamily(c);
  if (ft === 'input' && fc !== 'input') return `the element was a form field and the candidate is a ${c.role ?? c.tag}`;
  if (ft === 'control' && fc === 'input') return `the element was a ${t.role ?? t.tag} and the candidate is a form field`;
  const tText = norm(t.accessible_name) || norm(t.text);
  const cText = norm(c.accessible_name) || norm(c.text);
  if (tText && cText && !sameIdentity(t, c)) {
    const similarity = Math.max(words.similarity(t.text, c.text), words.similarity(t.accessible_name, c.accessible_name ?? c.text));
    if (similarity < 0.35) {
      // A link to somewhere else with other words is another link, wherever it sits; static
      // content is its words ("Loading…" where "Ready" was is another state, not the same element).
      const otherTarget = !!t.attributes?.href && !!c.attributes?.href;
      if (otherTarget || ft === 'other' || !samePlace(t, c, words)) return `its words "${cText.slice(0, 60)}" have nothing in common with "${tText.slice(0, 60)}"`;
    }
  }
  return undefined;
}

/** The model this process relocates with: model.ts, unless `useRelocationModel` set another at start. */
let activeModel: RelocationModel = checkModel(RELOCATION_MODEL);

/**
 * Relocates with `model` from now on (checked against the features first): a
 * model fitted on an installation's own sites (`ANALYSIS_RELOCATION_MODEL`),
 * or a test's. Returns the model it replaces.
 */
export function useRelocationModel(model: RelocationModel): RelocationModel {
  const was = activeModel;
  activeModel = checkModel(model);
  return was;
}

export interface AssayOptions {
  /** The fitted model (default: the active one, `useRelocationModel`, else model.ts). */
  model?: RelocationModel;
  /** Candidates never to pick (rejected suggestions), by index. */
  exclude?: ReadonlySet<number>;
  /** Leave the contradiction rule out (ablation). */
  noContradictions?: boolean;
}

/** Assay's relocation: every candidate's probability of being the element, the calibrated pick, and the contradiction rule. */
export function assayRelocate(target: Fingerprint, candidates: Fingerprint[], opts: AssayOptions = {}): Relocation {
  // The active model was checked when it was set; one given for this call is checked here.
  const model = opts.model ? checkModel(opts.model) : activeModel;
  const ctx = pageContext(candidates);
  const rows = pageFeatures(target, candidates, ctx);
  const { p, gone, scores } = probabilities(model, rows, opts.exclude);
  // Ranked by the linear score (the probabilities are its softmax, but can underflow to equal zeros far down).
  const ranked: ScoredCandidate[] = rows
    .map((row, index) => ({ index, score: opts.exclude?.has(index) ? 0 : p[index]!, factors: shownFactors(row) }))
    .sort((a, b) => scores[b.index]! - scores[a.index]! || a.index - b.index);
  const best = ranked[0];
  if (!best || (opts.exclude && opts.exclude.size >= candidates.length)) return { ranked, best: undefined, confidence: 0, outlier: false, reason: 'no candidates on the page' };
  // Whether the top candidate is the element at all: the abstention model on its score, lead and evidence.
  const { top, x } = topReadings(model, rows, opts.exclude, candidates.map(controlKey));
  const right = top === best.index ? rightProbability(model.abstention, x) : 0;
  const second = ranked[1]?.score ?? 0;
  const pct = (v: number) => `${Math.round(v * 100)} %`;
  const lead = x[1]!;
  const why = opts.noContradictions ? undefined : contradicts(target, candidates[best.index]!, ctx.words);
  if (right < model.pickAt || (right < model.confidentAt && lead < model.pickLead)) {
    // Below a pick, a top candidate with the pick's lead may still be tried: a re-run the case needed decides.
    const possible = !why && model.possibleAt !== undefined && right >= model.possibleAt && lead >= (model.possibleLead ?? model.pickLead);
    return {
      ranked,
      best: undefined,
      confidence: 0,
      outlier: false,
      reason: `no candidate is likely enough to be the element (the closest is ${pct(right)} likely to be it, ranked at ${pct(best.score)} against ${pct(second)} for the next and ${pct(gone)} for "gone"; a pick needs ${pct(model.pickAt)}${model.pickLead > 0 ? ` and a clear lead over the next` : ''})${possible ? `; it is tried, and offered only if a re-run with it passes and the test fails without the step` : ''}`,
      ...(possible ? { possible: { ...best, right } } : {}),
    };
  }
  if (why) return { ranked, best: undefined, confidence: 0, outlier: false, reason: `the closest candidate contradicts the step: ${why}` };
  const outlier = right >= model.confidentAt;
  return {
    ranked,
    best,
    confidence: Math.round(right * 100) / 100,
    outlier,
    ...(outlier ? {} : { reason: `the best candidate is plausible, not sure (${pct(right)} likely to be the element, against ${pct(model.confidentAt)} for a sure pick; ranked at ${pct(best.score)} against ${pct(second)} for the next): it is offered only once a re-run with it passes` }),
  };
}

export const assayScorer: Scorer = { name: 'Assay', tiered: true, relocate: (t, c) => assayRelocate(t, c) };

export const SCORERS: Scorer[] = [assayScorer, similoScorer, healeniumScorer, plainSimiloScorer];
