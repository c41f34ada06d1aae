import type { Page } from 'playwright-core';
import type { FormInfo, PageAnalysis } from '../db/database.js';
import { IN_PAGE } from './in-page.js';

/** What the page script returns; the crawler adds the network side. */
export interface PageExtract extends Omit<PageAnalysis, 'reads' | 'writes'> {
  title: string;
  /** Write calls found in the page's inline scripts: method and raw path (ids appended as `{id}`). */
  script_writes: Array<{ method: string; path: string }>;
  /** Characters of visible text on the page (0: it rendered nothing a person can read). */
  text_chars: number;
  /** Visible elements that act on a click without being a link with an href or a button (`role=link`, `<a>` without href, `onclick`). */
  handler_links: number;
  /** Visible buttons outside forms. */
  buttons: number;
  /** What most of the page is drawn in that the crawler does not read (`a frame`, `a canvas`). */
  opaque?: string;
}

// Runs in the page (see in-page.ts for the selector rules). The body of a function answering a PageExtract.
export const EXTRACT_BODY =
  IN_PAGE +
  `
  const links = [];
  const linkSelectors = {};
  const selectors = new Map();
  const selOf = (el) => { if (!selectors.has(el)) selectors.set(el, selectorOf(el)); return selectors.get(el); };
  for (const a of document.querySelectorAll('a[href]')) {
    const href = a.href;
    if (!href) continue;
    links.push(href);
    if (!(href in linkSelectors) && visible(a)) linkSelectors[href] = selOf(a);
  }
  const forms = readForms(document, false);
  const headings = Array.from(document.querySelectorAll('h1, h2')).filter(visible).slice(0, 5)
    // The text a person sees (innerText): a heading's hidden anchor sign is not in it, and blocks inside it are apart.
    .map((h) => ({ selector: selectorOf(h), text: textOf(h).slice(0, 200) }))
    .filter((h) => h.text);
  const lists = [];
  for (const t of document.querySelectorAll('table')) {
    const rows = t.querySelectorAll('tbody tr').length || t.querySelectorAll('tr').length;
    lists.push({ selector: selectorOf(t), items: rows, kind: 'table', has_actions: !!t.querySelector('button, a[href]') });
  }
  for (const l of document.querySelectorAll('ul, ol')) {
    if (l.closest('nav, header, footer')) continue;
    lists.push({ selector: selectorOf(l), items: l.children.length, kind: 'list', has_actions: !!l.querySelector('button') });
  }
  // Navigation: landmarks (nav, header, footer, aside, role=navigation), menus and tab lists, and lists that are
  // mostly links (a menu without a landmark): each with its links' targets and their visible names.
  const LANDMARKS = 'nav, header, footer, aside, [role=navigation], [role=banner], [role=contentinfo], [role=complementary], [role=menu], [role=menubar], [role=tablist]';
  const placeOf = (n) => n.matches('header, [role=banner]') ? 'header' : n.matches('footer, [role=contentinfo]') ? 'footer' : n.closest('header, [role=banner]') ? 'header' : n.closest('footer, [role=contentinfo]') ? 'footer' : n.closest('aside, [role=complementary]') || n.matches('aside, [role=complementary]') ? 'sidebar' : 'main';
  const groups = Array.from(document.querySelectorAll(LANDMARKS));
  for (const l of document.querySelectorAll('ul, ol')) {
    if (l.closest(LANDMARKS) || l.parentElement.closest('ul, ol')) continue;
    const items = Array.from(l.children).filter((li) => li.tagName === 'LI');
    const linked = items.filter((li) => li.querySelector('a[href]'));
    if (linked.length >= 2 && linked.length >= 0.6 * items.length) groups.push(l);
  }
  const navs = groups
    .map((n) => {
      const anchors = Array.from(n.querySelectorAll('a[href]')).filter((a) => !/^(javascript:|#$)/.test(a.getAttribute('href') || ''));
      const shown = anchors.slice(0, 20);
      // Each link's own selector, so a flow clicks the menu's link and not another one to the same place (a trail of pages visited).
      return { selector: selectorOf(n), location: placeOf(n), links: anchors.length, hrefs: shown.map((a) => a.href), labels: shown.map((a) => nameOf(a).slice(0, 60)), selectors: shown.map((a) => (visible(a) ? selOf(a) : '')), kind: n.matches('ul, ol') ? 'list' : 'landmark' };
    })
    .filter((n) => n.links > 0);
  const modals = Array.from(document.querySelectorAll('dialog, [role=dialog], [aria-modal=true], .modal')).map(selectorOf);
  const pagination = Array.from(document.querySelectorAll('[aria-label*=agination], .pagination, a[rel=next], link[rel=next]')).map(selectorOf);
  const scriptWrites = [];
  const WRITE = /fetch\\(\\s*(['"\`])([^'"\`]+)\\1\\s*(\\+)?[^)]*?method\\s*:\\s*['"](POST|PUT|PATCH|DELETE)['"]/gi;
  for (const s of document.querySelectorAll('script:not([src])')) {
    for (const m of s.textContent.matchAll(WRITE)) scriptWrites.push({ method: m[4].toUpperCase(), path: m[2] + (m[3] ? '{id}' : '') });
  }
  // Things that act on a click without being links or buttons: a client-side router's links made of other elements.
  let handlerLinks = 0;
  for (const el of document.querySelectorAll('[role=link]:not([href]), a:not([href]), [role=menuitem]:not([href]), [role=tab], [onclick]:not(a, button, input, [role=button])')) if (visible(el)) handlerLinks++;
  let buttons = 0;
  for (const b of document.querySelectorAll(BUTTONS)) if (!b.closest('form') && visible(b)) buttons++;
  const text = (document.body && document.body.innerText || '').replace(/\\s+/g, ' ').trim();
  // Content the crawler cannot read: frames and canvases covering most of the viewport.
  let opaque = '';
  const area = innerWidth * innerHeight;
  for (const el of document.querySelectorAll('iframe, frame, embed, object, canvas')) {
    const r = el.getBoundingClientRect();
    if (visible(el) && r.width * r.height > 0.4 * area) { opaque = el.tagName === 'CANVAS' ? 'a canvas' : 'a frame'; break; }
  }
  return { title: document.title, links, link_selectors: linkSelectors, forms, headings, lists, navs, modals, pagination, script_writes: scriptWrites, text_chars: text.length, handler_links: handlerLinks, buttons, ...(opaque ? { opaque } : {}) };
`;
const EXTRACT = new Function(EXTRACT_BODY) as () => PageExtract;

/** Reads links, forms, headings, lists, navigation, modals and script-made write calls from a loaded page. */
export async function extractPage(page: Page): Promise<PageExtract> {
  return page.evaluate(EXTRACT);
}

export const isPasswordForm = (f: FormInfo) => f.fields.some((x) => x.type === 'password');
