import { nameOf, roleFamily, testIdOf, type Fingerprint } from './fingerprint.js';
import {
  centreDistance,
  classTokens,
  containsCentre,
  dice,
  editSimilarity,
  identifierSimilarity,
  isGeneratedName,
  lcs,
  levenshtein,
  norm,
  overlapRatio,
  quartiles,
  textSimilarity,
  tokens,
  WordWeights,
  xpathSteps,
  xpathTags,
} from './similarity.js';

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
  /** The pick stands out from the rest (above Q3 + 1.5·IQR of the top ten). */
  outlier: boolean;
  /** Why there is no pick, or why the pick is uncertain. */
  reason?: string;
}

export interface Scorer {
  name: string;
  relocate(target: Fingerprint, candidates: Fingerprint[]): Relocation;
}

const byScore = (a: ScoredCandidate, b: ScoredCandidate) => b.score - a.score || a.index - b.index;

// ---------------------------------------------------------------------------
// Similo-style baseline: the fourteen properties and weights of Similo
// (Nass et al., 2023; the "legacy" comparisons of its replication package):
// 1.5 for tag, name, id, visible text and neighbour texts, 0.5 for the rest.
// It never abstains in the paper; here it answers "no match" below half of
// the maximum score, the same cap Healenium uses, so both can be compared.
// ---------------------------------------------------------------------------

const similoEqual = (a: string | null | undefined, b: string | null | undefined) => (a && b && a.toLowerCase() === b.toLowerCase() ? 1 : 0);
const similoDistance = (a: string | null | undefined, b: string | null | undefined) => {
  if (!a || !b) return 0;
  return Math.floor(editSimilarity(a.slice(0, 49), b.slice(0, 49)) * 100) / 100;
};
const similoInt = (a: number, b: number) => {
  const max = Math.max(a, b);
  return max === 0 ? 1 : Math.floor(((max - Math.abs(a - b)) * 100) / max) / 100;
};
const containsWord = (w: string, words: string[]) =>
  words.some((x) => x === w || (w.length < x.length && (x.startsWith(w) || x.endsWith(w))) || (x.length < w.length && (w.startsWith(x) || w.endsWith(x))));
const similoWordSet = (a: string, b: string) => {
  if (!a || !b) return 0;
  const w1 = a.split(/\s+/);
  const w2 = b.split(/\s+/);
  const count = Math.max(a.length - w1.length + 1, b.length - w2.length + 1);
  let exists = 0;
  for (const w of w1) if (containsWord(w, w2)) exists += w.length;
  return Math.min((exists * 100) / count, 100) / 100;
};
const seleniumXpath = (x: string | undefined) => (x ?? '').replace(/\[1\]/g, '');
const neighbourWords = (fp: Fingerprint) => Object.values(fp.neighbor_text ?? {}).filter(Boolean).join(' ');
const area = (fp: Fingerprint) => Math.round((fp.bbox?.width ?? 0) * (fp.bbox?.height ?? 0));
const shape = (fp: Fingerprint) => (fp.bbox && fp.bbox.height > 0 ? Math.round((fp.bbox.width * 100) / fp.bbox.height) : 0);

function similoScore(t: Fingerprint, c: Fingerprint): number {
  const loc = t.bbox && c.bbox ? Math.max(100 - Math.floor(Math.hypot(t.bbox.x - c.bbox.x, t.bbox.y - c.bbox.y)), 0) / 100 : 0;
  const parts: Array<[number, number]> = [
    [1.5, similoEqual(t.tag, c.tag)],
    [0.5, similoDistance((t.classes ?? []).join(' '), (c.classes ?? []).join(' '))],
    [1.5, similoEqual(nameOf(t), nameOf(c))],
    [1.5, similoEqual(t.id, c.id)],
    [0.5, similoDistance(t.attributes?.href, c.attributes?.href)],
    [0.5, similoDistance(t.attributes?.alt, c.attributes?.alt)],
    [0.5, similoDistance(seleniumXpath(t.xpath), seleniumXpath(c.xpath))],
    [0.5, similoDistance(t.idxpath, c.idxpath)],
    [0.5, (t.is_button ?? false) === (c.is_button ?? false) ? 1 : 0],
    [0.5, loc],
    [0.5, t.bbox && c.bbox ? similoInt(area(t), area(c)) : 0],
    [0.5, t.bbox && c.bbox ? similoInt(shape(t), shape(c)) : 0],
    [1.5, similoDistance(t.text, c.text)],
    [1.5, similoWordSet(neighbourWords(t), neighbourWords(c))],
  ];
  return parts.reduce((s, [w, v]) => s + w * v, 0) / 12;
}

export const similoScorer: Scorer = {
  name: 'Similo-style',
  relocate(target, candidates) {
    const ranked = candidates.map((c, index) => ({ index, score: similoScore(target, c), factors: {} })).sort(byScore);
    const top = ranked[0];
    const pick = top && top.score >= 0.5 ? top : undefined;
    return { ranked, best: pick, confidence: pick?.score ?? 0, outlier: false, ...(pick ? {} : { reason: 'best score below 0.5' }) };
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
// Assay's scorer. Similo's idea (many weak properties, weighted) with what its
// replications found matters: identifier similarity by words rather than
// equality (ids and test ids are renamed, not replaced), class names stripped
// of generated hashes, texts compared by words, neighbour texts per
// direction, tag compatibility (a link restyled as a button), the DOM path by
// its tags (Healenium's LCS) rather than by characters, and VON Similo's
// visual-overlap groups (a label moved into a span inside the button).
// A pick needs a minimum score and must stand out from the rest (the margin
// rule); a pick whose role or text contradicts the element is no pick.
// ---------------------------------------------------------------------------

/**
 * Weights of Assay's factors. The prior comes from outside this repository:
 * the weights a replication of Similo fitted on real sites across four months
 * of changes (text 2.8, name 2.85, type 2.75, alt 1.85, other attributes 1.8,
 * neighbour text 1.45, location 1.2, aria-label 0.9, tag 0.8, id 0.5,
 * idxpath 0.45, area 0.35, xpath 0.1; class names dropped). Factors it did
 * not have (test id, role, accessible name) are set by the same reading.
 * See the README for how the corpus was used (thresholds only).
 */
export const ASSAY_WEIGHTS = {
  testid: 2.5,
  id: 1,
  name: 2.5,
  text: 2.8,
  accessible_name: 1.5,
  tag: 0.8,
  role: 0.75,
  attributes: 2,
  classes: 0.5,
  neighbours: 1.45,
  path: 0.3,
  idxpath: 0.45,
  position: 1.2,
  size: 0.35,
  is_button: 0.25,
};

export type AssayWeights = typeof ASSAY_WEIGHTS;

/** Thresholds of Assay's decision (fitted with the weights). */
export const ASSAY_THRESHOLDS = {
  /** Below this best score nothing on the page is the element. */
  minScore: 0.425,
  /** Between this and minScore, a candidate that stands out (margin rule) is still the element. */
  standOutScore: 0.25,
  /** A pick closer than this to the runner-up is ambiguous. */
  minGap: 0.04,
  /** Overlap ratio making two boxes one visual element (VON Similo uses 0.85). */
  overlap: 0.85,
};

const CLICKABLE_TAGS = new Set(['a', 'button', 'input', 'summary']);
function tagSimilarity(t: Fingerprint, c: Fingerprint): number {
  const a = t.tag.toLowerCase();
  const b = c.tag.toLowerCase();
  if (a === b) return 1;
  const clickable = (fp: Fingerprint, tag: string) => CLICKABLE_TAGS.has(tag) || fp.is_button === true || fp.role === 'button' || fp.role === 'link';
  if (clickable(t, a) && clickable(c, b) && roleFamily(t) === roleFamily(c)) return 0.6;
  if (/^h[1-6]$/.test(a) && /^h[1-6]$/.test(b)) return 0.7;
  if (['div', 'span', 'p', 'section', 'li'].includes(a) && ['div', 'span', 'p', 'section', 'li'].includes(b)) return 0.4;
  return 0;
}

/** Identifier factor: renamed ids usually keep words; generated ids count for little. */
function identifier(t: string | null | undefined, c: string | null | undefined): number | null {
  if (!t) return null;
  return identifierSimilarity(t, c);
}

function hrefSimilarity(a: string, b: string): number {
  const path = (u: string) => u.replace(/^[a-z]+:\/\/[^/]+/i, '').replace(/[?#].*$/, '');
  if (a === b) return 1;
  const p = path(a);
  const q = path(b);
  if (p && p === q) return 0.9;
  return 0.8 * Math.max(dice(tokens(p), tokens(q)), editSimilarity(p, q));
}

const ATTRIBUTE_NAMES = ['href', 'type', 'placeholder', 'aria-label', 'alt', 'title', 'for', 'src', 'value'];
function attributeSimilarity(t: Fingerprint, c: Fingerprint): number | null {
  const ta = t.attributes ?? {};
  const ca = c.attributes ?? {};
  const present = ATTRIBUTE_NAMES.filter((n) => ta[n]);
  if (!present.length) return null;
  let sum = 0;
  for (const n of present) {
    const a = ta[n]!;
    const b = ca[n];
    if (b === undefined) continue;
    sum += n === 'href' || n === 'src' ? hrefSimilarity(a, b) : n === 'type' ? (a.toLowerCase() === b.toLowerCase() ? 1 : 0) : textSimilarity(a, b);
  }
  return sum / present.length;
}

const DIRECTIONS = ['above', 'below', 'left', 'right'] as const;
function neighbourSimilarity(t: Fingerprint, c: Fingerprint, words: WordWeights): number | null {
  const tn = t.neighbor_text ?? {};
  const cn = c.neighbor_text ?? {};
  const dirs = DIRECTIONS.filter((d) => tn[d]);
  if (!dirs.length) return null;
  const all = DIRECTIONS.map((d) => cn[d]).filter((x): x is string => !!x);
  let sum = 0;
  for (const d of dirs) {
    const same = words.similarity(tn[d], cn[d]);
    // A neighbour that moved to another side still says something.
    const elsewhere = Math.max(0, ...all.map((x) => words.similarity(tn[d], x)));
    sum += Math.max(same, 0.7 * elsewhere);
  }
  return sum / dirs.length;
}

function pathSimilarity(t: Fingerprint, c: Fingerprint): number | null {
  const a = xpathTags(t.xpath);
  if (!a.length) return null;
  const b = xpathTags(c.xpath);
  if (!b.length) return 0;
  const common = lcs(a, b);
  const tagsShare = common / Math.max(a.length, b.length);
  // Same indexes too: nothing moved around it.
  const exact = (t.xpath ?? '') === (c.xpath ?? '') ? 1 : 0;
  return 0.8 * tagsShare + 0.2 * exact;
}

/** The score of every factor for one candidate (null: the target does not have the property). */
export function assayFactors(t: Fingerprint, c: Fingerprint, words: WordWeights = new WordWeights([])): Record<keyof AssayWeights, number | null> {
  const tid = t.id && !isGeneratedName(t.id) ? t.id : undefined;
  const classesT = classTokens(t.classes);
  const position = t.bbox && c.bbox ? Math.exp(-centreDistance(t.bbox, c.bbox) / 250) : null;
  const size =
    t.bbox && c.bbox && t.bbox.width * t.bbox.height > 0 && c.bbox.width * c.bbox.height > 0
      ? Math.min(t.bbox.width * t.bbox.height, c.bbox.width * c.bbox.height) / Math.max(t.bbox.width * t.bbox.height, c.bbox.width * c.bbox.height)
      : null;
  return {
    testid: identifier(testIdOf(t), testIdOf(c)),
    id: identifier(tid, c.id),
    name: identifier(nameOf(t), nameOf(c)),
    text: norm(t.text) ? words.similarity(t.text, c.text) : null,
    accessible_name: norm(t.accessible_name) ? words.similarity(t.accessible_name, c.accessible_name ?? c.text) : null,
    tag: tagSimilarity(t, c),
    role: t.role ? (t.role === (c.role ?? '') ? 1 : 0) : null,
    attributes: attributeSimilarity(t, c),
    classes: classesT.length ? dice(classesT, classTokens(c.classes)) : null,
    neighbours: neighbourSimilarity(t, c, words),
    path: pathSimilarity(t, c),
    idxpath: t.idxpath && t.idxpath !== t.xpath ? editSimilarity(t.idxpath, c.idxpath ?? '') : null,
    position,
    size,
    is_button: t.is_button === undefined ? null : t.is_button === (c.is_button ?? false) ? 1 : 0,
  };
}

function weighted(factors: Record<string, number | null>, weights: AssayWeights, rarity: Record<string, number>): { score: number; factors: Record<string, number> } {
  let sum = 0;
  let total = 0;
  const shown: Record<string, number> = {};
  for (const [k, base] of Object.entries(weights)) {
    const v = factors[k];
    const w = base * (rarity[k] ?? 1);
    if (v === null || v === undefined || w <= 0) continue;
    sum += w * v;
    total += w;
    shown[k] = Math.round(v * 1000) / 1000;
  }
  return { score: total ? sum / total : 0, factors: shown };
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
  const position = t.bbox && c.bbox ? Math.exp(-centreDistance(t.bbox, c.bbox) / 250) : 0;
  return neighbours !== null && neighbours >= 0.9 && (position >= 0.8 || (pathSimilarity(t, c) ?? 0) >= 0.95);
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

/** Candidates drawn as one thing (VON Similo): boxes overlapping by `threshold`, centre inside. */
function visualGroups(candidates: Fingerprint[], threshold: number): number[][] {
  const groups = candidates.map((_, i) => [i]);
  for (let i = 0; i < candidates.length; i++) {
    const a = candidates[i]!.bbox;
    if (!a) continue;
    for (let j = i + 1; j < candidates.length; j++) {
      const b = candidates[j]!.bbox;
      if (b && overlapRatio(a, b) >= threshold && (containsCentre(a, b) || containsCentre(b, a))) {
        groups[i]!.push(j);
        groups[j]!.push(i);
      }
    }
  }
  return groups;
}

export interface AssayOptions {
  weights?: AssayWeights;
  thresholds?: typeof ASSAY_THRESHOLDS;
  /** Candidates never to pick (rejected suggestions), by index. */
  exclude?: ReadonlySet<number>;
}

/** Assay's relocation: scores, the VON grouping, the margin rule and contradictions. */
export function assayRelocate(target: Fingerprint, candidates: Fingerprint[], opts: AssayOptions = {}): Relocation {
  const weights = opts.weights ?? ASSAY_WEIGHTS;
  const th = opts.thresholds ?? ASSAY_THRESHOLDS;
  const words = new WordWeights(candidates.flatMap((c) => [c.text, c.accessible_name !== c.text ? c.accessible_name : undefined]));
  const all = candidates.map((c) => assayFactors(target, c, words));
  // A property half the page shares (the tag of twenty buttons, the text of six "Add to cart")
  // tells little about which one is meant: its weight shrinks with how many candidates match it.
  const rarity: Record<string, number> = {};
  for (const k of Object.keys(weights)) {
    const matching = all.filter((f) => (f[k as keyof AssayWeights] ?? 0) >= 0.9).length;
    rarity[k] = matching <= 1 ? 1 : 1 / (1 + Math.log(matching));
  }
  const own = all.map((f, index) => ({ index, ...weighted(f, weights, rarity) }));
  const groups = visualGroups(candidates, th.overlap);
  // VON: a candidate is as good as the best reading of the visual element it belongs to, but the
  // element's own score breaks the tie, so the member that is the control wins over its label.
  const scored: ScoredCandidate[] = own.map((o) => {
    const groupBest = Math.max(...groups[o.index]!.map((j) => own[j]!.score));
    return { index: o.index, score: Math.max(o.score, 0.97 * groupBest), factors: o.factors };
  });
  const contradiction = new Map<number, string>();
  const targetFamily = roleFamily(target);
  for (const s of scored) {
    // A control's stand-in should be a control, a field's a field (VON groups lift a control's label already).
    const family = roleFamily(candidates[s.index]!);
    if (family !== targetFamily) s.score *= targetFamily === 'other' || family === 'other' ? 0.8 : 0.6;
    const why = contradicts(target, candidates[s.index]!, words);
    if (why) {
      contradiction.set(s.index, why);
      s.score *= 0.6;
    }
    if (opts.exclude?.has(s.index)) s.score = 0;
  }
  const ranked = scored.sort(byScore);
  const best = ranked[0];
  if (!best || best.score < th.standOutScore) {
    return { ranked, best: undefined, confidence: 0, outlier: false, reason: best ? `no candidate is close enough (best ${best.score.toFixed(2)})` : 'no candidates on the page' };
  }
  const why = contradiction.get(best.index);
  if (why) return { ranked, best: undefined, confidence: 0, outlier: false, reason: `the closest candidate contradicts the step: ${why}` };

  // The margin rule, on visual elements (one entry per group) so a button and its label are not rivals.
  const seen = new Set<number>();
  const distinct: number[] = [];
  for (const r of ranked) {
    if (seen.has(r.index)) continue;
    for (const j of groups[r.index]!) seen.add(j);
    distinct.push(r.score);
    if (distinct.length === 10) break;
  }
  const second = distinct[1] ?? 0;
  const gap = best.score - second;
  let outlier: boolean;
  if (distinct.length >= 4) {
    const { q1, q3 } = quartiles(distinct);
    outlier = best.score > q3 + 1.5 * (q3 - q1) && gap >= th.minGap;
  } else outlier = gap >= 0.15;
  // A low score is a match only when nothing else comes near it and it sits in the element's old place (a reworded button).
  if (best.score < th.minScore && !(outlier && gap >= best.score / 2 && samePlace(target, candidates[best.index]!, words))) {
    return { ranked, best: undefined, confidence: 0, outlier: false, reason: `no candidate scores ${th.minScore} or more and none stands out (best ${best.score.toFixed(2)}, next ${second.toFixed(2)})` };
  }
  const confidence = Math.round(Math.min(1, best.score) * (outlier ? Math.min(1, 0.75 + gap) : 0.5) * 100) / 100;
  return {
    ranked,
    best,
    confidence,
    outlier,
    ...(outlier ? {} : { reason: `the best candidate (${best.score.toFixed(2)}) does not stand out from the next (${second.toFixed(2)})` }),
  };
}

export const assayScorer: Scorer = { name: 'Assay', relocate: (t, c) => assayRelocate(t, c) };

export const SCORERS: Scorer[] = [assayScorer, similoScorer, healeniumScorer];
