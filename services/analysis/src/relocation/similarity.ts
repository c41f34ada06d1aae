/** String and geometry similarities the scorers share; all in [0, 1]. */

export const norm = (s: string | null | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim().toLowerCase();

/** Levenshtein distance, on at most `cap` characters of each string. */
export function levenshtein(a: string, b: string, cap = 100): number {
  const s = a.length > cap ? a.slice(0, cap) : a;
  const t = b.length > cap ? b.slice(0, cap) : b;
  if (s === t) return 0;
  if (!s.length) return t.length;
  if (!t.length) return s.length;
  // Typed arrays and no global lookups in the loop: under jest's VM context a `Math.min` here costs 15×.
  let prev = new Int32Array(t.length + 1);
  let cur = new Int32Array(t.length + 1);
  for (let j = 0; j <= t.length; j++) prev[j] = j;
  for (let i = 1; i <= s.length; i++) {
    cur[0] = i;
    const si = s.charCodeAt(i - 1);
    for (let j = 1; j <= t.length; j++) {
      let v = prev[j]! + 1;
      const left = cur[j - 1]! + 1;
      if (left < v) v = left;
      const diagonal = prev[j - 1]! + (si === t.charCodeAt(j - 1) ? 0 : 1);
      if (diagonal < v) v = diagonal;
      cur[j] = v;
    }
    const swap = prev;
    prev = cur;
    cur = swap;
  }
  return prev[t.length]!;
}

/** 1 − edit distance / longer length (case-insensitive); 1 for two empty strings. */
export function editSimilarity(a: string, b: string, cap = 100): number {
  const s = a.toLowerCase().slice(0, cap);
  const t = b.toLowerCase().slice(0, cap);
  const len = Math.max(s.length, t.length);
  return len === 0 ? 1 : (len - levenshtein(s, t, cap)) / len;
}

/** Words of a string or an identifier: camelCase, kebab-case, snake_case and digits split apart, lower case. */
export function tokens(s: string | null | undefined): string[] {
  if (!s) return [];
  return s
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Za-z])(\d)/g, '$1 $2')
    .replace(/(\d)([A-Za-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9\u00c0-\uffff]+/)
    .filter(Boolean);
}

/** Dice coefficient of two token sets (0 when either is empty). */
export function dice(a: string[], b: string[]): number {
  if (!a.length || !b.length) return 0;
  const sa = new Set(a);
  const sb = new Set(b);
  let common = 0;
  for (const t of sa) if (sb.has(t)) common++;
  return (2 * common) / (sa.size + sb.size);
}

/** Text similarity: exact (normalised) 1, otherwise the better of word overlap and edit similarity, slightly discounted. */
export function textSimilarity(a: string | null | undefined, b: string | null | undefined): number {
  const s = norm(a);
  const t = norm(b);
  if (!s || !t) return 0;
  if (s === t) return 1;
  return 0.95 * Math.max(dice(tokens(s), tokens(t)), editSimilarity(s, t, 80));
}

// Words of interface copy that say what kind of thing an element is, not which one ("Add to cart", "Add to wishlist").
const FUNCTION_WORDS = new Set(
  'a an the to of for in on at by with and or your my our this that it is are be new all more see view go get add open show click here now please'.split(' '),
);

// Interface verbs that releases swap for one another; compared as one word.
const SYNONYMS: Record<string, string> = Object.fromEntries(
  [
    ['signin', 'sign in', 'log in', 'login', 'logon'],
    ['signup', 'sign up', 'register', 'create account', 'join'],
    ['signout', 'sign out', 'log out', 'logout'],
    ['next', 'continue', 'proceed', 'forward'],
    ['back', 'previous', 'prev', 'return'],
    ['cancel', 'discard', 'dismiss', 'abort'],
    ['delete', 'remove', 'trash', 'erase'],
    ['search', 'find', 'look up'],
    ['refresh', 'reload', 'sync'],
    ['submit', 'send', 'post', 'publish'],
    ['buy', 'purchase', 'order', 'checkout', 'pay'],
    ['save', 'update', 'apply'],
    ['edit', 'modify', 'change'],
    ['close', 'hide'],
    ['help', 'support'],
    ['settings', 'preferences', 'options'],
    ['cart', 'bag', 'basket'],
    ['email', 'e-mail', 'mail'],
  ].flatMap((group) => group.slice(1).map((w) => [w, group[0]!] as const).concat([[group[0]!, group[0]!]])),
);

const PHRASES = Object.entries(SYNONYMS).filter(([phrase]) => phrase.includes(' '));

/** Words with the usual interface synonyms folded together ("Log in" and "Sign in" both read `signin`). */
export function canonicalWords(s: string | null | undefined): string[] {
  let text = norm(s);
  for (const [phrase, canonical] of PHRASES) if (text.includes(phrase)) text = text.split(phrase).join(canonical);
  return tokens(text).map((w) => SYNONYMS[w] ?? w);
}

/** Inverse document frequencies of words over a page's texts: words every element carries weigh little. */
export class WordWeights {
  private readonly df = new Map<string, number>();
  private readonly n: number;
  // One relocation compares the same few texts thousands of times.
  private readonly words = new Map<string, Set<string>>();
  private readonly similarities = new Map<string, number>();

  constructor(texts: Array<string | null | undefined>) {
    this.n = texts.length;
    for (const t of texts) for (const w of new Set(canonicalWords(t))) this.df.set(w, (this.df.get(w) ?? 0) + 1);
  }

  weight(word: string): number {
    const idf = Math.log((this.n + 1) / ((this.df.get(word) ?? 0) + 1)) + 1;
    return FUNCTION_WORDS.has(word) ? 0.15 * idf : idf;
  }

  /** Weighted Dice of two texts' words: shared rare words count, shared common ones barely. */
  similarity(a: string | null | undefined, b: string | null | undefined): number {
    if (!a || !b) return 0;
    const key = `${a}\u0000${b}`;
    let v = this.similarities.get(key);
    if (v === undefined) {
      v = this.compute(a, b);
      this.similarities.set(key, v);
    }
    return v;
  }

  private wordsOf(s: string): Set<string> {
    let w = this.words.get(s);
    if (!w) {
      w = new Set(canonicalWords(s));
      this.words.set(s, w);
    }
    return w;
  }

  private compute(a: string, b: string): number {
    const s = norm(a);
    const t = norm(b);
    if (!s || !t) return 0;
    if (s === t) return 1;
    const ta = this.wordsOf(s);
    const tb = this.wordsOf(t);
    let shared = 0;
    let total = 0;
    for (const w of ta) {
      const x = this.weight(w);
      total += x;
      if (tb.has(w)) shared += 2 * x;
    }
    for (const w of tb) total += this.weight(w);
    const words = total ? shared / total : 0;
    const edit = editSimilarity(s, t, 80);
    return 0.95 * Math.max(words, edit >= 0.75 ? edit : 0);
  }
}

/** Identifier similarity (ids, names, test ids): exact 1, else word overlap with edit similarity as a tiebreak. */
export function identifierSimilarity(a: string | null | undefined, b: string | null | undefined): number {
  if (!a || !b) return 0;
  if (a === b) return 1;
  if (a.toLowerCase() === b.toLowerCase()) return 0.95;
  const d = dice(tokens(a), tokens(b));
  return 0.9 * Math.max(d, editSimilarity(a, b) >= 0.8 ? editSimilarity(a, b) : 0);
}

// Generated names are told apart by the selector ranking's own test (@assay/selectors).
export { isGeneratedName } from '@assay/selectors';
import { isGeneratedName } from '@assay/selectors';

/** The meaningful words of class names: CSS-module hashes stripped, generated classes dropped. */
export function classTokens(classes: string[] | undefined): string[] {
  const out: string[] = [];
  for (const c of classes ?? []) {
    // A CSS-module class keeps its readable part: Button_primary__3xk9a → button primary.
    const semantic = c.replace(/__[A-Za-z0-9_-]{4,}$/, '');
    if (!semantic || isGeneratedName(semantic)) continue;
    out.push(...tokens(semantic));
  }
  return out;
}

/** Tags of an XPath's steps: `/html[1]/body[1]/div[2]` → `['html', 'body', 'div']`. */
export function xpathTags(xpath: string | undefined): string[] {
  if (!xpath) return [];
  return xpath
    .split('/')
    .filter((s) => s && !s.startsWith('*[@id'))
    .map((s) => s.replace(/\[.*$/, '').toLowerCase());
}

/** Steps of an XPath with their indexes: `['html[1]', 'body[1]', 'div[2]']`. */
export function xpathSteps(xpath: string | undefined): string[] {
  if (!xpath) return [];
  return xpath.split('/').filter((s) => s && !s.startsWith('*[@id')).map((s) => (s.includes('[') ? s.toLowerCase() : `${s.toLowerCase()}[1]`));
}

/** Length of the longest common subsequence of two sequences. */
export function lcs<T>(a: T[], b: T[]): number {
  if (!a.length || !b.length) return 0;
  let prev = new Int32Array(b.length + 1);
  let cur = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : prev[j]! > cur[j - 1]! ? prev[j]! : cur[j - 1]!;
    const swap = prev;
    prev = cur;
    cur = swap;
    cur.fill(0);
  }
  return prev[b.length]!;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const center = (b: Box) => ({ x: b.x + b.width / 2, y: b.y + b.height / 2 });

/** Distance between box centres, in CSS pixels. */
export function centreDistance(a: Box, b: Box): number {
  const p = center(a);
  const q = center(b);
  return Math.hypot(p.x - q.x, p.y - q.y);
}

/** Intersection over union of two boxes. */
export function overlapRatio(a: Box, b: Box): number {
  const x1 = Math.max(a.x, b.x);
  const y1 = Math.max(a.y, b.y);
  const x2 = Math.min(a.x + a.width, b.x + b.width);
  const y2 = Math.min(a.y + a.height, b.y + b.height);
  const inter = Math.max(0, x2 - x1) * Math.max(0, y2 - y1);
  const union = a.width * a.height + b.width * b.height - inter;
  return union <= 0 ? 0 : inter / union;
}

/** True when b's centre lies inside a. */
export function containsCentre(a: Box, b: Box): boolean {
  const c = center(b);
  return c.x >= a.x && c.x <= a.x + a.width && c.y >= a.y && c.y <= a.y + a.height;
}

/** Quartiles (linear interpolation) of a list of numbers. */
export function quartiles(values: number[]): { q1: number; q3: number } {
  const v = [...values].sort((x, y) => x - y);
  const at = (p: number) => {
    if (!v.length) return 0;
    const pos = (v.length - 1) * p;
    const lo = Math.floor(pos);
    const hi = Math.ceil(pos);
    return v[lo]! + (v[hi]! - v[lo]!) * (pos - lo);
  };
  return { q1: at(0.25), q3: at(0.75) };
}
