import { isGeneratedName, nameOf, testIdOf, TESTID_ATTRIBUTES, type Fingerprint } from './fingerprint.js';

/** A selector for an element and what it is built from, most robust first. */
export interface SelectorCandidate {
  selector: string;
  kind: 'test-id' | 'role-name' | 'id' | 'name' | 'label' | 'text' | 'xpath' | 'position';
}

const cssString = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
const xpathString = (v: string) => (v.includes('"') ? (v.includes("'") ? undefined : `'${v}'`) : `"${v}"`);
const CSS_IDENT = /^-?[A-Za-z_][A-Za-z0-9_-]*$/;
const tagOf = (fp: Fingerprint) => fp.tag.toLowerCase().replace(/[^a-z0-9-]/g, '');

/** An element around the one to name, as a page reads it: its tag and attributes. */
export interface AncestorAttributes {
  tag: string;
  attributes: Record<string, string>;
}

/**
 * In the page: the elements around a node, nearest first, up to five below
 * the body, with their attributes (for `anchoredSelectors`). Kept as source
 * text so no transpiler helper leaks into the page.
 */
export const ANCESTOR_ATTRIBUTES = new Function(
  'node',
  `const out = [];
  for (let n = node.parentElement; n && out.length < 5 && n !== document.body && n !== document.documentElement; n = n.parentElement) {
    const attributes = {};
    for (const a of n.attributes) attributes[a.name] = a.value;
    out.push({ tag: n.tagName.toLowerCase(), attributes });
  }
  return out;`,
) as (node: unknown) => AncestorAttributes[];

/**
 * A class written as words (`menu-button`, `tc-edit-field`, `card__title`), not a generated one: lower-case words
 * joined by hyphens or underscores. A CSS-in-JS hash such as `iACzre` passes `isGeneratedName` but not this.
 */
const wordClass = (c: string) => /^[a-z][a-z0-9]*(?:[-_]{1,2}[a-z0-9]+)*$/.test(c) && !isGeneratedName(c);

/** Attributes that say how an element is now (open, chosen, sorted, focusable), not which one it is. */
const STATE_ATTRIBUTES = new Set(['tabindex', 'aria-expanded', 'aria-selected', 'aria-checked', 'aria-pressed', 'aria-hidden', 'aria-sort', 'aria-busy', 'aria-current', 'aria-activedescendant', 'aria-owns', 'aria-controls', 'aria-describedby', 'aria-labelledby', 'width', 'height', 'value', 'checked', 'selected', 'disabled', 'hidden', 'draggable', 'contenteditable', 'spellcheck', 'lang', 'dir', 'xmlns', 'style', 'class']);

/**
 * Selectors that hang an element with nothing unique of its own (its tag and
 * stable classes) from an attribute of an element around it, nearest first
 * (`div[tabulator-field="price"] span.menu-button`, `li[aria-label="List
 * authors"] label`, or from its stable class, `div.search input`): what to
 * try before a positional path, which breaks when anything is added above it.
 * State attributes, handlers, generated values and long ones are left out.
 */
function anchoredSelectors(tag: string, classes: string[], ancestors: AncestorAttributes[]): SelectorCandidate[] {
  const own = (tag.toLowerCase().replace(/[^a-z0-9-]/g, '') || '*') + classes.filter(wordClass).slice(0, 2).map((c) => `.${c}`).join('');
  const out: SelectorCandidate[] = [];
  for (const a of ancestors.slice(0, 5)) {
    const around = a.tag.toLowerCase().replace(/[^a-z0-9-]/g, '');
    if (!around) continue;
    for (const [k, v] of Object.entries(a.attributes)) {
      if (!/^[a-z][a-z0-9_-]*$/i.test(k) || STATE_ATTRIBUTES.has(k.toLowerCase()) || k.toLowerCase().startsWith('on')) continue;
      if (!v.trim() || v.length > 60 || /[\n\r]/.test(v) || isGeneratedName(v)) continue;
      out.push({ selector: `${around}[${k}=${cssString(v)}] ${own}`, kind: 'xpath' });
    }
    // Then its stable classes (a styling name: weaker than an attribute, stronger than a position).
    for (const c of (a.attributes.class ?? '').split(/\s+/).filter(wordClass).slice(0, 3)) out.push({ selector: `${around}.${c} ${own}`, kind: 'xpath' });
  }
  return out;
}

/**
 * Selectors for an element in the order a maintainer would want them
 * (test id, role and accessible name, a stable id, its name, its label or
 * text, then a minimal Robula+-style XPath built from its attributes, then
 * the element hung from the elements around it (`ancestors`, read in the page
 * with `ANCESTOR_ATTRIBUTES`); a positional path only when nothing else
 * exists). Uniqueness is checked by the caller against the page.
 */
export function selectorCandidates(fp: Fingerprint, ancestorsWithId: string[] = [], ancestors: AncestorAttributes[] = []): SelectorCandidate[] {
  const out: SelectorCandidate[] = [];
  const tag = tagOf(fp) || '*';
  const attrs = fp.attributes ?? {};
  const testid = testIdOf(fp);
  if (testid) {
    const attr = TESTID_ATTRIBUTES.find((a) => attrs[a] === testid) ?? 'data-testid';
    out.push({ selector: `[${attr}=${cssString(testid)}]`, kind: 'test-id' });
  }
  const name = (fp.accessible_name ?? '').trim();
  if (fp.role && name && name.length <= 80 && !/["\n]/.test(name)) out.push({ selector: `role=${fp.role}[name="${name}"]`, kind: 'role-name' });
  if (fp.id && !isGeneratedName(fp.id)) out.push({ selector: CSS_IDENT.test(fp.id) ? `#${fp.id}` : `[id=${cssString(fp.id)}]`, kind: 'id' });
  const nameAttr = nameOf(fp);
  if (nameAttr) {
    const value = ['checkbox', 'radio'].includes((attrs.type ?? '').toLowerCase()) && attrs.value !== undefined ? `[value=${cssString(attrs.value)}]` : '';
    out.push({ selector: `${tag}[name=${cssString(nameAttr)}]${value}`, kind: 'name' });
  }
  for (const a of ['aria-label', 'placeholder', 'title', 'alt']) if (attrs[a]) out.push({ selector: `${tag}[${a}=${cssString(attrs[a]!)}]`, kind: 'label' });
  if (attrs.href && attrs.href.length <= 200 && !/^javascript:/i.test(attrs.href)) out.push({ selector: `${tag}[href=${cssString(attrs.href)}]`, kind: 'label' });
  const text = (fp.text ?? '').trim();
  const textLiteral = text && text.length <= 80 ? xpathString(text) : undefined;
  if (textLiteral) out.push({ selector: `xpath=//${tag}[normalize-space()=${textLiteral}]`, kind: 'text' });

  // Robula+: from the most general XPath, add one predicate at a time (attributes, then a stable class,
  // then an ancestor with an id) until it is unique; the caller keeps the first unique one.
  const predicates: string[] = [];
  for (const a of ['type', 'role', 'name', 'aria-label', 'placeholder', 'title', 'alt']) {
    const v = attrs[a];
    const lit = v ? xpathString(v) : undefined;
    if (lit) predicates.push(`@${a}=${lit}`);
  }
  for (const c of fp.classes ?? []) if (!isGeneratedName(c) && CSS_IDENT.test(c)) predicates.push(`contains(concat(" ",normalize-space(@class)," ")," ${c} ")`);
  if (textLiteral) predicates.push(`normalize-space()=${textLiteral}`);
  for (let i = 0; i < predicates.length; i++) {
    out.push({ selector: `xpath=//${tag}[${predicates[i]}]`, kind: 'xpath' });
    for (let j = i + 1; j < Math.min(predicates.length, i + 3); j++) out.push({ selector: `xpath=//${tag}[${predicates[i]} and ${predicates[j]}]`, kind: 'xpath' });
  }
  for (const id of ancestorsWithId.filter((x) => !isGeneratedName(x) && !x.includes('"'))) {
    out.push({ selector: `xpath=//*[@id="${id}"]//${tag}`, kind: 'xpath' });
    for (const p of predicates.slice(0, 4)) out.push({ selector: `xpath=//*[@id="${id}"]//${tag}[${p}]`, kind: 'xpath' });
  }
  out.push(...anchoredSelectors(fp.tag, fp.classes ?? [], ancestors));
  if (fp.idxpath && fp.idxpath !== fp.xpath) out.push({ selector: `xpath=${fp.idxpath}`, kind: 'position' });
  if (fp.xpath) out.push({ selector: `xpath=${fp.xpath}`, kind: 'position' });
  const seen = new Set<string>();
  return out.filter((c) => !seen.has(c.selector) && seen.add(c.selector));
}

/** How likely a kind of selector is to keep matching the same element as the app changes. */
export type Stability = 'high' | 'medium' | 'low';

const STABILITY: Record<SelectorCandidate['kind'], { stability: Stability; reason: string }> = {
  'test-id': { stability: 'high', reason: 'a test id is written for tests and survives redesigns' },
  'role-name': { stability: 'high', reason: 'the role and accessible name are what a user sees; they change when the user-facing text does' },
  id: { stability: 'medium', reason: 'a hand-written id; stable unless the markup is rewritten' },
  name: { stability: 'medium', reason: 'the form field name the server reads; stable unless the form changes' },
  label: { stability: 'medium', reason: 'a label, placeholder, title or link target; changes with the copy' },
  text: { stability: 'medium', reason: 'the element\u2019s text; changes with the copy' },
  xpath: { stability: 'low', reason: 'attributes and classes combined; breaks when the styling changes' },
  position: { stability: 'low', reason: 'a position in the page; breaks when anything is added above it' },
};

/**
 * How stable a selector of this kind is, and why. Text that holds a number
 * (a price, a count, a date) is rated low whatever the kind: it is data, not a name.
 */
export function stabilityOf(candidate: SelectorCandidate): { stability: Stability; reason: string } {
  const base = STABILITY[candidate.kind];
  if ((candidate.kind === 'role-name' || candidate.kind === 'text' || candidate.kind === 'label') && /\d/.test(candidate.selector.replace(/^[^"]*/, ''))) {
    return { stability: 'low', reason: 'the name holds a number (a price, count or date) that changes with the data' };
  }
  return base;
}
