import type { Page } from 'playwright-core';

/** The page's HTML at a failure, made to fit: what was left out to fit it, and whether it still had to be cut. */
export interface HtmlSnapshot {
  html: string;
  /** What was emptied to fit: `scripts` (their bodies), `hidden` (subtrees not displayed). */
  fitted: Array<'scripts' | 'hidden'>;
  /** Still over the limit after both: cut at it (the snapshot check is then skipped). */
  truncated: boolean;
}

// In the page, from source text so no transpiler helper leaks in. A copy of the document is fitted, never the live one:
// script bodies emptied first, then the largest subtrees that are not displayed (display: none, checked on the live
// node), their children removed. Every element stays where it was, so the absolute XPath of each candidate the
// analysis reads still leads to it in the snapshot.
const FIT = new Function(
  'max',
  `const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
  const root = document.documentElement;
  if (!root) return { html: doctype, fitted: [] };
  const copy = root.cloneNode(true);
  const live = [root, ...root.querySelectorAll('*')];
  const mine = [copy, ...copy.querySelectorAll('*')];
  const fitted = [];
  for (const el of mine) {
    if (el.tagName !== 'SCRIPT' || !el.firstChild) continue;
    el.textContent = '';
    if (!fitted.length) fitted.push('scripts');
  }
  let size = doctype.length + copy.outerHTML.length;
  if (size > max && document.body) {
    const hidden = [];
    let inside = null;
    live.forEach((el, i) => {
      if (inside && inside.contains(el)) return;
      inside = null;
      if (!document.body.contains(el) || el === document.body || !mine[i].firstChild) return;
      if (getComputedStyle(el).display !== 'none') return;
      inside = el;
      hidden.push({ el: mine[i], length: mine[i].innerHTML.length });
    });
    hidden.sort((a, b) => b.length - a.length);
    for (const h of hidden) {
      if (size <= max) break;
      h.el.replaceChildren();
      size -= h.length;
      if (!fitted.includes('hidden')) fitted.push('hidden');
    }
  }
  return { html: doctype + copy.outerHTML, fitted };`,
) as (max: number) => { html: string; fitted: HtmlSnapshot['fitted'] };

/**
 * The page's HTML within `max` characters for the failure's snapshot: as it
 * is when it fits; else with script bodies emptied, then hidden subtrees,
 * until it fits (a wiki that keeps its whole store in the page); cut only if
 * it is still too large. Never throws: a page that cannot be read gives ''.
 */
export async function htmlSnapshot(page: Page, max: number): Promise<HtmlSnapshot> {
  const html = await page.content().catch(() => '');
  if (html.length <= max) return { html, fitted: [], truncated: false };
  const fit = await page.evaluate(FIT, max).catch(() => ({ html, fitted: [] as HtmlSnapshot['fitted'] }));
  return { html: fit.html.slice(0, max), fitted: fit.fitted, truncated: fit.html.length > max };
}
