import type { Page } from 'playwright-core';

/**
 * What the runner records about an element it acts on, for failure analysis
 * (relocation: finding the element again after the page changed). The
 * properties are the ones the published relocation work compares (Similo's
 * fourteen, Healenium's path and attributes): tag, id, name, classes, visible
 * text, key attributes, absolute and id-relative XPath, bounding box,
 * neighbouring texts, whether it is a button, its role and accessible name.
 */
export interface ElementFingerprint {
  tag: string;
  id: string | null;
  name?: string;
  classes: string[];
  /** Visible text, whitespace collapsed, at most 200 characters (a button input's value). */
  text: string;
  /** name, type, role, aria-label, data-testid (and data-test, data-qa, data-cy), placeholder, href, alt, title, for, src, value (button inputs, checkboxes, radios, options). */
  attributes: Record<string, string>;
  /** A short CSS path from the nearest ancestor with an id (kept for readers of the first format). */
  dom_path: string;
  /** Absolute XPath with every index: `/html[1]/body[1]/div[2]/button[1]`. */
  xpath: string;
  /** XPath from the nearest ancestor with an id: `//*[@id="login"]/div[1]/button[1]` (the absolute one when there is none). */
  idxpath: string;
  /** Page coordinates (CSS pixels, scroll included), rounded. */
  bbox: { x: number; y: number; width: number; height: number };
  /** The nearest visible text in each direction (within 200 px). */
  neighbor_text: { above?: string; below?: string; left?: string; right?: string };
  is_button: boolean;
  role?: string;
  accessible_name?: string;
  testid?: string;
  /** false for a disabled form control (or `aria-disabled="true"`). */
  enabled: boolean;
  /** Rendered with a box and not hidden by style. */
  visible: boolean;
}

/** The failing step's selector at the moment of failure: how many nodes it matched and the first one's state. */
export interface SelectorState {
  selector: string;
  count: number;
  visible?: boolean;
  enabled?: boolean;
  fingerprint?: ElementFingerprint;
}

// Shared in-page helpers. Kept as source text and compiled with new Function
// so no transpiler helper (esbuild's __name, say) leaks into the page.
const HELPERS = String.raw`
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const cut = (s, n) => (s.length > n ? s.slice(0, n) : s);
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'html', 'body', 'br', 'hr', 'path', 'g', 'defs', 'use', 'symbol', 'clippath', 'lineargradient', 'stop']);
  const TESTIDS = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'];
  const ATTRS = ['name', 'type', 'role', 'aria-label', 'placeholder', 'href', 'alt', 'title', 'for', 'src', ...TESTIDS];
  const tagOf = (el) => el.tagName.toLowerCase();
  const isVisible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    if (el.checkVisibility) return el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
    const st = getComputedStyle(el);
    return st.visibility !== 'hidden' && st.display !== 'none';
  };
  const isEnabled = (el) => !(el.disabled === true || el.getAttribute('aria-disabled') === 'true' || el.closest('fieldset[disabled]'));
  const isButtonInput = (el) => tagOf(el) === 'input' && ['submit', 'button', 'reset', 'image'].includes((el.getAttribute('type') || '').toLowerCase());
  const roleOf = (el) => {
    const explicit = el.getAttribute('role');
    if (explicit) return explicit.split(/\s+/)[0].toLowerCase();
    const t = tagOf(el);
    const type = (el.getAttribute('type') || 'text').toLowerCase();
    switch (t) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : undefined;
      case 'button': case 'summary': return 'button';
      case 'input':
        if (['submit', 'button', 'reset', 'image'].includes(type)) return 'button';
        if (type === 'checkbox') return 'checkbox';
        if (type === 'radio') return 'radio';
        if (type === 'range') return 'slider';
        if (type === 'number') return 'spinbutton';
        if (type === 'search') return 'searchbox';
        if (['text', 'email', 'tel', 'url', 'password'].includes(type)) return type === 'password' ? undefined : 'textbox';
        return undefined;
      case 'textarea': return 'textbox';
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'option': return 'option';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'img': return el.getAttribute('alt') === '' ? 'presentation' : 'img';
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'ul': case 'ol': return 'list';
      case 'li': return 'listitem';
      case 'table': return 'table';
      case 'tr': return 'row';
      case 'td': return 'cell';
      case 'th': return 'columnheader';
      case 'dialog': return 'dialog';
      case 'form': return el.hasAttribute('name') || el.hasAttribute('aria-label') ? 'form' : undefined;
      default: return undefined;
    }
  };
  const visibleText = (el) => {
    if (isButtonInput(el)) return norm(el.value || el.getAttribute('value') || '');
    return norm(el.innerText !== undefined ? el.innerText : el.textContent);
  };
  // Name from content as accname 1.2 computes it (and Playwright's role=…[name] matches it): CSS
  // ::before/::after text counts, hidden and aria-hidden children do not, a child that is not inline
  // is set off by spaces. innerText alone misses generated text (a list's bullet, an icon font's
  // glyph), and a role selector built from it would match nothing. Past 200 descendants the plain
  // text is kept: such an element is a section, and the walk would cost a style read per node.
  const pseudoText = (el, which) => {
    const st = getComputedStyle(el, which);
    if (!st || st.display === 'none') return '';
    const m = /^\s*"((?:[^"\\]|\\.)*)"\s*(?:\/\s*"((?:[^"\\]|\\.)*)"\s*)?$/.exec(st.content || '');
    if (!m) return '';
    const t = (m[2] !== undefined ? m[2] : m[1]).replace(/\\(.)/g, '$1');
    return st.display === 'inline' ? t : ' ' + t + ' ';
  };
  const contentName = (el) => {
    if (el.getElementsByTagName('*').length > 200) return visibleText(el);
    const walk = (n) => {
      let s = pseudoText(n, '::before');
      for (const c of n.childNodes) {
        if (c.nodeType === 3) { s += c.nodeValue; continue; }
        if (c.nodeType === 1 && tagOf(c) === 'br') { s += ' '; continue; }
        if (c.nodeType !== 1 || SKIP.has(tagOf(c)) || c.getAttribute('aria-hidden') === 'true') continue;
        const st = getComputedStyle(c);
        if (st.display === 'none' || st.visibility === 'hidden') continue;
        const label = norm(c.getAttribute('aria-label') || '');
        const inner = label || (tagOf(c) === 'img' ? c.getAttribute('alt') || '' : walk(c));
        s += st.display === 'inline' ? inner : ' ' + inner + ' ';
      }
      return s + pseudoText(n, '::after');
    };
    return norm(walk(el));
  };
  const accessibleName = (el) => {
    const byIds = el.getAttribute('aria-labelledby');
    if (byIds) {
      const parts = byIds.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean).map((n) => norm(n.textContent));
      if (parts.join('')) return norm(parts.join(' '));
    }
    const aria = el.getAttribute('aria-label');
    if (aria && norm(aria)) return norm(aria);
    const t = tagOf(el);
    if (t === 'input' || t === 'select' || t === 'textarea') {
      if (isButtonInput(el)) return norm(el.value || el.getAttribute('alt') || '');
      const labels = el.labels ? Array.from(el.labels).map((l) => norm(l.innerText)).filter(Boolean) : [];
      if (labels.length) return labels.join(' ');
      return norm(el.getAttribute('placeholder') || el.getAttribute('title') || '');
    }
    if (t === 'img') return norm(el.getAttribute('alt') || el.getAttribute('title') || '');
    const role = roleOf(el);
    if (['button', 'link', 'heading', 'tab', 'menuitem', 'option', 'checkbox', 'radio', 'cell', 'columnheader', 'listitem', 'row'].includes(role) || t === 'label') {
      const text = contentName(el);
      if (text) return text;
      const img = el.querySelector('img[alt]');
      if (img) return norm(img.getAttribute('alt'));
    }
    return norm(el.getAttribute('title') || '');
  };
  const indexAmongSameTag = (n) => {
    let i = 1;
    for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === n.tagName) i++;
    return i;
  };
  const step = (n) => tagOf(n).replace(/[^a-z0-9_-]/g, '*') + '[' + indexAmongSameTag(n) + ']';
  const xpathOf = (el) => {
    const parts = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) parts.unshift(step(n));
    return '/' + parts.join('/');
  };
  const idXpathOf = (el) => {
    const parts = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      if (n.id && !/["\s]/.test(n.id)) return '//*[@id="' + n.id + '"]' + (parts.length ? '/' + parts.join('/') : '');
      parts.unshift(step(n));
    }
    return '/' + parts.join('/');
  };
  const domPathOf = (el) => {
    const parts = [];
    for (let n = el; n && n.nodeType === 1 && parts.length < 12; n = n.parentElement) {
      let part = tagOf(n);
      if (n.id) { parts.unshift(part + '#' + n.id); break; }
      const parent = n.parentElement;
      if (parent) {
        const same = Array.from(parent.children).filter((c) => c.tagName === n.tagName);
        if (same.length > 1) part += ':nth-of-type(' + (same.indexOf(n) + 1) + ')';
      }
      parts.unshift(part);
    }
    return parts.join(' > ');
  };
  const ownText = (el) => {
    let s = '';
    for (const c of el.childNodes) if (c.nodeType === 3) s += c.nodeValue;
    return norm(s);
  };
  // Elements carrying text of their own, with their boxes: the neighbours every reading searches.
  const textLeaves = () => {
    const out = [];
    const all = document.body ? document.body.getElementsByTagName('*') : [];
    for (let i = 0; i < all.length && i < 4000; i++) {
      const n = all[i];
      if (SKIP.has(tagOf(n))) continue;
      let text = ownText(n);
      if (!text && (isButtonInput(n) || tagOf(n) === 'img')) text = norm(n.value || n.getAttribute('alt') || '');
      if (!text) continue;
      const r = n.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      out.push({ n, r, text: cut(text, 80) });
    }
    return out;
  };
  const MAX_GAP = 200;
  const neighbours = (el, leaves) => {
    const r = el.getBoundingClientRect();
    const best = {};
    const consider = (dir, gap, skew, text) => {
      if (gap < -2 || gap > MAX_GAP) return;
      const cur = best[dir];
      if (!cur || gap < cur.gap - 0.5 || (Math.abs(gap - cur.gap) <= 0.5 && skew < cur.skew)) best[dir] = { gap, skew, text };
    };
    for (const leaf of leaves) {
      const n = leaf.n;
      if (n === el || n.contains(el) || el.contains(n)) continue;
      const o = leaf.r;
      const hOverlap = o.right > r.left && o.left < r.right;
      const vOverlap = o.bottom > r.top && o.top < r.bottom;
      const dx = Math.abs((o.left + o.right) / 2 - (r.left + r.right) / 2);
      const dy = Math.abs((o.top + o.bottom) / 2 - (r.top + r.bottom) / 2);
      if (hOverlap) {
        consider('above', r.top - o.bottom, dx, leaf.text);
        consider('below', o.top - r.bottom, dx, leaf.text);
      }
      if (vOverlap) {
        consider('left', r.left - o.right, dy, leaf.text);
        consider('right', o.left - r.right, dy, leaf.text);
      }
    }
    const out = {};
    for (const dir of ['above', 'below', 'left', 'right']) if (best[dir]) out[dir] = best[dir].text;
    return out;
  };
  const fingerprintOf = (el, leaves) => {
    const attributes = {};
    for (const name of ATTRS) {
      const v = el.getAttribute(name);
      if (v !== null) attributes[name] = cut(v, 200);
    }
    // A button input's value is its text; a checkbox's or radio's tells it from the others of its group.
    const ownValue = isButtonInput(el) || (tagOf(el) === 'input' && ['checkbox', 'radio'].includes((el.getAttribute('type') || '').toLowerCase())) || tagOf(el) === 'option';
    if (ownValue && el.getAttribute('value') !== null) attributes.value = cut(el.getAttribute('value'), 200);
    const testid = TESTIDS.map((a) => el.getAttribute(a)).find((v) => v);
    const r = el.getBoundingClientRect();
    const t = tagOf(el);
    const role = roleOf(el);
    const name = accessibleName(el);
    const fp = {
      tag: t,
      id: el.id || null,
      classes: Array.from(el.classList).slice(0, 30),
      text: cut(visibleText(el), 200),
      attributes,
      dom_path: domPathOf(el),
      xpath: xpathOf(el),
      idxpath: idXpathOf(el),
      bbox: { x: Math.round(r.left + scrollX), y: Math.round(r.top + scrollY), width: Math.round(r.width), height: Math.round(r.height) },
      neighbor_text: neighbours(el, leaves),
      is_button: t === 'button' || isButtonInput(el) || role === 'button' || (t === 'a' && /(^|[-_ ])(btn|button)($|[-_ ])/i.test(el.className || '')),
      enabled: isEnabled(el),
      visible: isVisible(el),
    };
    if (el.getAttribute('name')) fp.name = el.getAttribute('name');
    if (role) fp.role = role;
    if (name) fp.accessible_name = cut(name, 200);
    if (testid) fp.testid = testid;
    return fp;
  };
`;

/** In-page: the fingerprint of one element (one round trip on the hot path of element steps). */
export const FINGERPRINT = new Function('el', `${HELPERS}\nreturn fingerprintOf(el, textLeaves());`) as (el: unknown) => ElementFingerprint;

/** Text in children up to this many characters makes an element a candidate; longer, it is a section, not one thing. */
const TEXT_BLOCK_MAX = 300;

// Elements a step could have meant: every visible element a user can see or
// act on, whatever its tag: interactive ones, images and media, anything with
// an id, a test id or a role, and any element with text, its own or in its
// children (a card whose words sit in a span, a pre, a strong), as
// long as that text is short enough to be one thing (not a whole section).
const CANDIDATES = new Function(
  'limit',
  `${HELPERS}
  const ACTABLE = new Set(['a', 'button', 'input', 'select', 'textarea', 'label', 'summary', 'option', 'img', 'svg', 'canvas', 'video', 'audio', 'iframe', 'details']);
  const leaves = textLeaves();
  const out = [];
  const all = document.body ? document.body.getElementsByTagName('*') : [];
  for (let i = 0; i < all.length && out.length < limit; i++) {
    const el = all[i];
    const t = tagOf(el);
    if (SKIP.has(t) || el.closest('svg') && t !== 'svg') continue;
    let interesting = ACTABLE.has(t)
      || el.hasAttribute('role') || el.hasAttribute('onclick') || el.hasAttribute('tabindex') || el.isContentEditable
      || el.id || TESTIDS.some((a) => el.hasAttribute(a)) || !!ownText(el);
    if (!interesting) {
      const text = norm(el.textContent);
      interesting = text.length > 0 && text.length <= ${TEXT_BLOCK_MAX};
    }
    if (!interesting || !isVisible(el)) continue;
    out.push(fingerprintOf(el, leaves));
  }
  return out;`,
) as (limit: number) => ElementFingerprint[];

/** Candidates read on failure at most (document order). */
export const MAX_CANDIDATES = 600;

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T | undefined> =>
  Promise.race([p, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms).unref())]);

/**
 * The expensive reading, done only when a step failed: the fingerprint of
 * every visible candidate on the page, and what the failing selector matches
 * now. Never throws: what cannot be read is left out.
 */
export async function captureFailureEvidence(page: Page, selector: string | undefined): Promise<{ candidates: ElementFingerprint[]; target?: SelectorState }> {
  const candidates = (await withTimeout(page.evaluate(CANDIDATES, MAX_CANDIDATES).catch(() => undefined), 5000)) ?? [];
  if (!selector) return { candidates };
  const locator = page.locator(selector);
  const count = await withTimeout(locator.count().catch(() => undefined), 2000);
  if (count === undefined) return { candidates };
  const target: SelectorState = { selector, count };
  if (count > 0) {
    const fp = await withTimeout(locator.first().evaluate(FINGERPRINT, undefined, { timeout: 1000 }).catch(() => undefined), 2000);
    if (fp) Object.assign(target, { fingerprint: fp, visible: fp.visible, enabled: fp.enabled });
  }
  return { candidates, target };
}
