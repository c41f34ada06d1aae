/**
 * The properties Assay's relocation compares, one number in [0, 1] per
 * (element as it was, candidate on the changed page). Similo's fourteen
 * properties, each read two ways where the plain reading breaks on real
 * markup (equality and word/edit similarity; the XPath by characters and by
 * its steps), VON Similo's visual-overlap reading (a candidate is also read
 * through the elements drawn on top of it or around it: a label moved into a
 * span inside the link, an `a` that became an `svg` inside the link), and a
 * few page-relative readings (is this candidate the page's closest by text,
 * by position). A missing property reads 0 for every candidate of the page,
 * so it moves no ranking. The weights are fitted (see model.ts).
 */
import { nameOf, roleFamily, testIdOf, type Fingerprint } from './fingerprint.js';
import {
  centreDistance,
  classTokens,
  dice,
  editSimilarity,
  identifierSimilarity,
  isGeneratedName,
  lcs,
  norm,
  overlapRatio,
  tokens,
  WordWeights,
  xpathSteps,
  xpathTags,
  type Box,
} from './similarity.js';

/** A usable box: four finite numbers and an area (captures write `{}` for elements they could not measure). */
export function boxOf(fp: Fingerprint): Box | undefined {
  const b = fp.bbox as Partial<Box> | undefined;
  if (!b) return undefined;
  const { x, y, width, height } = b;
  if (![x, y, width, height].every((v) => typeof v === 'number' && Number.isFinite(v))) return undefined;
  if (width! <= 0 || height! <= 0) return undefined;
  return { x: x!, y: y!, width: width!, height: height! };
}

// --- Similo's comparisons (its replication package) ------------------------

const lower = (s: string | null | undefined) => (s ?? '').trim().toLowerCase();
const equal = (a: string | null | undefined, b: string | null | undefined) => (lower(a) && lower(a) === lower(b) ? 1 : 0);
/** Similo's string distance: edit similarity of the first 49 characters, floored to hundredths. */
export const similoDistance = (a: string | null | undefined, b: string | null | undefined): number => {
  if (!a || !b) return 0;
  return Math.floor(editSimilarity(a.slice(0, 49), b.slice(0, 49)) * 100) / 100;
};
/** Similo's integer closeness. */
export const similoInt = (a: number, b: number): number => {
  const max = Math.max(a, b);
  return max === 0 ? 1 : Math.floor(((max - Math.abs(a - b)) * 100) / max) / 100;
};
const containsWord = (w: string, words: string[]) =>
  words.some((x) => x === w || (w.length < x.length && (x.startsWith(w) || x.endsWith(w))) || (x.length < w.length && (w.startsWith(x) || w.endsWith(x))));
/** Similo's word-set comparison of neighbour texts. */
export const similoWordSet = (a: string, b: string): number => {
  if (!a || !b) return 0;
  const w1 = a.split(/\s+/);
  const w2 = b.split(/\s+/);
  const count = Math.max(a.length - w1.length + 1, b.length - w2.length + 1);
  let exists = 0;
  for (const w of w1) if (containsWord(w, w2)) exists += w.length;
  return Math.min((exists * 100) / count, 100) / 100;
};
export const seleniumXpath = (x: string | undefined): string => (x ?? '').replace(/\[1\]/g, '');
export const neighbourWords = (fp: Fingerprint): string => Object.values(fp.neighbor_text ?? {}).filter(Boolean).join(' ');
const area = (b: Box) => Math.round(b.width * b.height);
const shape = (b: Box) => Math.round((b.width * 100) / b.height);

// --- Assay's readings --------------------------------------------------------

const CLICKABLE_TAGS = new Set(['a', 'button', 'input', 'summary']);
const BLOCK_TAGS = new Set(['div', 'span', 'p', 'section', 'li', 'article', 'header', 'footer', 'nav', 'main', 'aside', 'figure', 'label']);
/** Tag compatibility: the same tag 1; both clickable of one family (a link restyled as a button), two headings, two blocks: partial. */
export function tagSimilarity(t: Fingerprint, c: Fingerprint): number {
  const a = t.tag.toLowerCase();
  const b = c.tag.toLowerCase();
  if (a === b) return 1;
  const clickable = (fp: Fingerprint, tag: string) => CLICKABLE_TAGS.has(tag) || fp.is_button === true || fp.role === 'button' || fp.role === 'link';
  if (clickable(t, a) && clickable(c, b) && roleFamily(t) === roleFamily(c)) return 0.6;
  if (/^h[1-6]$/.test(a) && /^h[1-6]$/.test(b)) return 0.7;
  if (BLOCK_TAGS.has(a) && BLOCK_TAGS.has(b)) return 0.4;
  return 0;
}

/** A link target by its path and query words (hosts and tracking parameters change, paths less). */
export function hrefSimilarity(a: string | undefined, b: string | undefined): number {
  if (!a || !b) return 0;
  if (a === b) return 1;
  const path = (u: string) => u.replace(/^[a-z]+:\/\/[^/]+/i, '').replace(/[?#].*$/, '').replace(/\/+$/, '');
  const p = path(a);
  const q = path(b);
  if (p && p === q) return 0.9;
  if (!p && !q) return 0.5;
  return 0.8 * Math.max(dice(tokens(p), tokens(q)), editSimilarity(p, q));
}

/** What else an element says about itself in words: aria-label, title, alt, placeholder, value. */
const LABEL_ATTRIBUTES = ['aria-label', 'title', 'alt', 'placeholder', 'value'];
const labelOf = (fp: Fingerprint) => {
  // The accessible name of an element with visible text is usually that text: it is no separate label then.
  const text = norm(fp.text);
  const labels = [fp.accessible_name, ...LABEL_ATTRIBUTES.map((a) => fp.attributes?.[a])].filter((x): x is string => !!x && !!norm(x) && norm(x) !== text);
  return [...new Set(labels)].join(' ');
};

const DIRECTIONS = ['above', 'below', 'left', 'right'] as const;
/** Neighbour texts per direction; one that moved to another side still says something. */
export function neighbourSimilarity(t: Fingerprint, c: Fingerprint, words: WordWeights): number {
  const tn = t.neighbor_text ?? {};
  const cn = c.neighbor_text ?? {};
  const dirs = DIRECTIONS.filter((d) => norm(tn[d]));
  if (!dirs.length) return 0;
  const all = DIRECTIONS.map((d) => cn[d]).filter((x): x is string => !!x);
  let sum = 0;
  for (const d of dirs) {
    const same = words.similarity(tn[d], cn[d]);
    const elsewhere = Math.max(0, ...all.map((x) => words.similarity(tn[d], x)));
    sum += Math.max(same, 0.7 * elsewhere);
  }
  return sum / dirs.length;
}

/** The DOM path by its tags (Healenium's LCS), and how many final steps (tag and index) agree. */
function pathReadings(t: Fingerprint, c: Fingerprint): { tags: number; tail: number } {
  const a = xpathTags(t.xpath);
  const b = xpathTags(c.xpath);
  if (!a.length || !b.length) return { tags: 0, tail: 0 };
  const sa = xpathSteps(t.xpath);
  const sb = xpathSteps(c.xpath);
  let tail = 0;
  while (tail < Math.min(sa.length, sb.length, 4) && sa[sa.length - 1 - tail] === sb[sb.length - 1 - tail]) tail++;
  return { tags: lcs(a, b) / Math.max(a.length, b.length), tail: tail / 4 };
}

const LANDMARKS = new Set(['header', 'nav', 'main', 'footer', 'aside', 'form', 'table', 'ul', 'ol', 'dialog', 'section', 'article', 'h1', 'h2', 'h3', 'label', 'button', 'a']);
/** The landmark tags above an element (generated `div` wrappers left out). */
const landmarksOf = (xpath: string | undefined) => xpathTags(xpath).filter((t) => LANDMARKS.has(t));
const REGIONS = new Set(['header', 'nav', 'main', 'footer', 'aside', 'form', 'dialog']);
/** The page region an element sits in: its outermost header, nav, main, footer, aside, form or dialog. */
const regionOf = (fp: Fingerprint) => [...xpathTags(fp.xpath), ...xpathTags(fp.idxpath)].find((t) => REGIONS.has(t));

/** The id an id-relative XPath hangs from: `id("nav")/…`, `//*[@id='nav']/…`. */
export function anchorId(idxpath: string | undefined): string | undefined {
  const m = /^(?:id\(["']([^"']+)["']\)|\/\/\*\[@id=["']([^"']+)["']\])/.exec(idxpath ?? '');
  return m ? (m[1] ?? m[2]) : undefined;
}
/** Attributes read elsewhere (classes, ids, link targets) or that say nothing about the element (style). */
const OTHER_SKIPPED = new Set(['class', 'id', 'href', 'style']);
const otherAttributes = (fp: Fingerprint) =>
  Object.entries(fp.attributes ?? {})
    .filter(([k, v]) => !OTHER_SKIPPED.has(k) && v !== '')
    .map(([k, v]) => `${k}=${v.trim().toLowerCase()}`);
const jaccard = (a: string[], b: string[]) => {
  if (!a.length || !b.length) return 0;
  const sb = new Set(b);
  const sa = new Set(a);
  let common = 0;
  for (const x of sa) if (sb.has(x)) common++;
  return common / (sa.size + sb.size - common);
};

/** The names of the features, in the order of `pairFeatures`' vector. */
export const FEATURES = [
  // Similo's fourteen, as Similo compares them.
  'tag',
  'classes',
  'name',
  'id',
  'href',
  'alt',
  'xpath',
  'idxpath',
  'is_button',
  'location',
  'area',
  'shape',
  'text',
  'neighbours',
  // Assay's readings of the same properties.
  'tag_family',
  'class_words',
  'id_words',
  'name_words',
  'testid',
  'href_path',
  'text_exact',
  'text_words',
  'text_in_label',
  'label_words',
  'neighbours_by_side',
  'path_tags',
  'path_tail',
  'near',
  'near_page_best',
  'text_page_best',
  'role_family',
  // VON Similo: the best reading of the visual element (overlapping boxes, or parent and child in the DOM).
  'von_text',
  'von_identity',
  'von_similo',
  // Structure that survives generated wrappers: the landmarks above the element, the id its XPath hangs from.
  'landmarks',
  'region',
  'anchor_id',
  'class_set',
  // Page-relative: the best on the page by this reading, and a match few candidates share.
  'xpath_page_best',
  'idxpath_page_best',
  'neighbours_page_best',
  'class_page_best',
  'text_rare',
  'neighbours_rare',
  'class_rare',
  'href_rare',
  // Two readings agreeing: the best by text and by neighbours, by text and by position in the DOM.
  'text_and_neighbours',
  'text_and_path',
  // Healenium's "other attributes": the element's remaining attribute values (type, value, placeholder, aria-*…), and a set few candidates share.
  'attributes',
  'attributes_rare',
] as const;

export type FeatureName = (typeof FEATURES)[number];
export type FeatureVector = Float64Array;

/** Per page: word rarities, the target's own readings, and which candidates are drawn as one. */
export interface PageContext {
  words: WordWeights;
  /** For each candidate, the other candidates drawn over it (box overlap ≥ 0.85, or direct parent/child with nearly the same box or no box). */
  groups: number[][];
}

export function pageContext(candidates: Fingerprint[]): PageContext {
  const words = new WordWeights(candidates.flatMap((c) => [c.text, c.accessible_name !== c.text ? c.accessible_name : undefined]));
  return { words, groups: visualGroups(candidates) };
}

const parentPath = (x: string | undefined) => (x ? x.replace(/\/[^/]+$/, '') : '');

/**
 * Candidates drawn as one thing (VON Similo): boxes overlapping by 0.85 or
 * more with one's centre inside the other; where a box is missing, a direct
 * parent and child by XPath (the capture could not measure it, but a link
 * around an icon is still one control).
 */
export function visualGroups(candidates: Fingerprint[], threshold = 0.85): number[][] {
  const groups = candidates.map(() => [] as number[]);
  const boxes = candidates.map(boxOf);
  const byPath = new Map<string, number>();
  candidates.forEach((c, i) => c.xpath && byPath.set(c.xpath, i));
  for (let i = 0; i < candidates.length; i++) {
    const a = boxes[i];
    if (a) {
      for (let j = i + 1; j < candidates.length; j++) {
        const b = boxes[j];
        if (b && overlapRatio(a, b) >= threshold) {
          groups[i]!.push(j);
          groups[j]!.push(i);
        }
      }
    }
    const parent = byPath.get(parentPath(candidates[i]!.xpath));
    if (parent !== undefined && parent !== i && (!a || !boxes[parent]) && !groups[i]!.includes(parent)) {
      groups[i]!.push(parent);
      groups[parent]!.push(i);
    }
  }
  return groups;
}

/** Similo's own score (its fourteen properties, weights 1.5 and 0.5, over 12), 0..1. */
export function similoScore(t: Fingerprint, c: Fingerprint): number {
  const f = similoReadings(t, c);
  return (1.5 * (f.tag + f.name + f.id + f.text + f.neighbours) + 0.5 * (f.classes + f.href + f.alt + f.xpath + f.idxpath + f.is_button + f.location + f.area + f.shape)) / 12;
}

function similoReadings(t: Fingerprint, c: Fingerprint) {
  const tb = boxOf(t);
  const cb = boxOf(c);
  return {
    tag: equal(t.tag, c.tag),
    classes: similoDistance((t.classes ?? []).join(' '), (c.classes ?? []).join(' ')),
    name: equal(nameOf(t), nameOf(c)),
    id: equal(t.id, c.id),
    href: similoDistance(t.attributes?.href, c.attributes?.href),
    alt: similoDistance(t.attributes?.alt, c.attributes?.alt),
    xpath: similoDistance(seleniumXpath(t.xpath), seleniumXpath(c.xpath)),
    idxpath: similoDistance(t.idxpath, c.idxpath),
    is_button: (t.is_button ?? false) === (c.is_button ?? false) ? 1 : 0,
    location: tb && cb ? Math.max(100 - Math.floor(Math.hypot(tb.x - cb.x, tb.y - cb.y)), 0) / 100 : 0,
    area: tb && cb ? similoInt(area(tb), area(cb)) : 0,
    shape: tb && cb ? similoInt(shape(tb), shape(cb)) : 0,
    text: similoDistance(t.text, c.text),
    neighbours: similoWordSet(neighbourWords(t), neighbourWords(c)),
  };
}

/** Every feature of every candidate of one page, in `FEATURES` order. */
export function pageFeatures(target: Fingerprint, candidates: Fingerprint[], ctx: PageContext = pageContext(candidates)): FeatureVector[] {
  const { words, groups } = ctx;
  const tb = boxOf(target);
  const tText = norm(target.text);
  const tLabel = labelOf(target);
  const tid = target.id && !isGeneratedName(target.id) ? target.id : undefined;
  const tClassWords = classTokens(target.classes);
  const tTestId = testIdOf(target);
  const tFamily = roleFamily(target);
  const tLandmarks = landmarksOf(target.xpath);
  const tAnchor = anchorId(target.idxpath);
  const tRegion = regionOf(target);
  const tAttributes = otherAttributes(target);
  const own = candidates.map((c) => {
    const s = similoReadings(target, c);
    const cb = boxOf(c);
    const path = pathReadings(target, c);
    const textWords = tText ? words.similarity(target.text, c.text) : 0;
    const cLabel = labelOf(c);
    return {
      s,
      similo: similoScore(target, c),
      tagFamily: tagSimilarity(target, c),
      classWords: tClassWords.length ? dice(tClassWords, classTokens(c.classes)) : 0,
      idWords: tid ? identifierSimilarity(tid, c.id) : 0,
      nameWords: identifierSimilarity(nameOf(target), nameOf(c)),
      testid: tTestId ? identifierSimilarity(tTestId, testIdOf(c)) : 0,
      hrefPath: hrefSimilarity(target.attributes?.href, c.attributes?.href),
      textExact: tText && tText === norm(c.text) ? 1 : 0,
      textWords,
      // The words moved into a label (an icon instead of the word), or out of one.
      textInLabel: Math.max(tText && cLabel ? words.similarity(target.text, cLabel) : 0, tLabel && norm(c.text) ? words.similarity(tLabel, c.text) : 0),
      labelWords: tLabel && cLabel ? words.similarity(tLabel, cLabel) : 0,
      neighboursBySide: neighbourSimilarity(target, c, words),
      pathTags: path.tags,
      pathTail: path.tail,
      distance: tb && cb ? centreDistance(tb, cb) : Infinity,
      roleFamily: roleFamily(c) === tFamily ? 1 : 0,
      landmarks: tLandmarks.length ? lcs(tLandmarks, landmarksOf(c.xpath)) / Math.max(tLandmarks.length, landmarksOf(c.xpath).length) : 0,
      region: tRegion && tRegion === regionOf(c) ? 1 : 0,
      anchorId: tAnchor && !isGeneratedName(tAnchor) && tAnchor === anchorId(c.idxpath) ? 1 : 0,
      classSet: jaccard(target.classes ?? [], c.classes ?? []),
      attributes: jaccard(tAttributes, otherAttributes(c)),
    };
  });
  const pageBest = (read: (x: (typeof own)[number]) => number) => {
    const max = Math.max(0, ...own.map(read));
    return (x: (typeof own)[number]) => (max > 0.3 && read(x) >= max - 1e-9 ? 1 : 0);
  };
  // A reading shared by many candidates (six "Add to cart" buttons) says less: 1 / how many match it.
  const rare = (read: (x: (typeof own)[number]) => number) => {
    const matching = own.filter((x) => read(x) >= 0.9).length;
    return (x: (typeof own)[number]) => (read(x) >= 0.9 ? 1 / matching : 0);
  };
  // The element's words: its text, or its text moved into a label (or out of one). An element without visible text
  // (an icon button named by aria-label or title) is known by its label, so there label to label is its words too.
  const byLabel = !tText;
  const textRead = (x: (typeof own)[number]) => Math.max(x.textWords, x.textInLabel, byLabel ? x.labelWords : 0);
  const xpathBest = pageBest((x) => x.s.xpath);
  const textBest = pageBest(textRead);
  const idxpathBest = pageBest((x) => x.s.idxpath);
  const neighboursBest = pageBest((x) => x.neighboursBySide);
  const classBest = pageBest((x) => x.classSet);
  const textRare = rare(byLabel ? textRead : (x) => x.textWords);
  const neighboursRare = rare((x) => x.neighboursBySide);
  const classRare = rare((x) => x.classSet);
  const hrefRare = rare((x) => x.hrefPath);
  const attributesRare = rare((x) => x.attributes);
  const maxText = Math.max(0, ...own.map(textRead));
  const minDistance = Math.min(...own.map((o) => o.distance));
  return own.map((o, i) => {
    const group = groups[i] ?? [];
    const best = (read: (x: (typeof own)[number]) => number) => Math.max(read(o), ...group.map((j) => read(own[j]!)));
    const v = new Float64Array(FEATURES.length);
    const put = (name: FeatureName, value: number) => {
      v[FEATURE_INDEX[name]] = Number.isFinite(value) ? value : 0;
    };
    for (const k of ['tag', 'classes', 'name', 'id', 'href', 'alt', 'xpath', 'idxpath', 'is_button', 'location', 'area', 'shape', 'text', 'neighbours'] as const) put(k, o.s[k]);
    put('tag_family', o.tagFamily);
    put('class_words', o.classWords);
    put('id_words', o.idWords);
    put('name_words', o.nameWords);
    put('testid', o.testid);
    put('href_path', o.hrefPath);
    put('text_exact', o.textExact);
    put('text_words', o.textWords);
    put('text_in_label', o.textInLabel);
    put('label_words', o.labelWords);
    put('neighbours_by_side', o.neighboursBySide);
    put('path_tags', o.pathTags);
    put('path_tail', o.pathTail);
    put('near', Number.isFinite(o.distance) ? Math.exp(-o.distance / 250) : 0);
    put('near_page_best', Number.isFinite(o.distance) && o.distance <= minDistance + 1 ? 1 : 0);
    put('text_page_best', maxText > 0.3 && textRead(o) >= maxText - 1e-9 ? 1 : 0);
    put('role_family', o.roleFamily);
    put('von_text', best(textRead) - textRead(o));
    put('von_identity', best((x) => Math.max(x.idWords, x.nameWords, x.testid, x.hrefPath)) - Math.max(o.idWords, o.nameWords, o.testid, o.hrefPath));
    put('von_similo', best((x) => x.similo) - o.similo);
    put('landmarks', o.landmarks);
    put('region', o.region);
    put('anchor_id', o.anchorId);
    put('class_set', o.classSet);
    put('xpath_page_best', xpathBest(o));
    put('idxpath_page_best', idxpathBest(o));
    put('neighbours_page_best', neighboursBest(o));
    put('class_page_best', classBest(o));
    put('text_rare', textRare(o));
    put('neighbours_rare', neighboursRare(o));
    put('class_rare', classRare(o));
    put('href_rare', hrefRare(o));
    put('text_and_neighbours', textBest(o) * neighboursBest(o));
    put('text_and_path', textBest(o) * xpathBest(o));
    put('attributes', o.attributes);
    put('attributes_rare', attributesRare(o));
    return v;
  });
}

export const FEATURE_INDEX = Object.fromEntries(FEATURES.map((f, i) => [f, i])) as Record<FeatureName, number>;
