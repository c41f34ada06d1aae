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
}

// Runs in the page (see in-page.ts for the selector rules). The body of a function answering a PageExtract.
export const EXTRACT_BODY =
  IN_PAGE +
  `
  const links = [];
  const linkSelectors = {};
  for (const a of document.querySelectorAll('a[href]')) {
    const href = a.href;
    if (!href) continue;
    links.push(href);
    if (!(href in linkSelectors) && visible(a)) linkSelectors[href] = selectorOf(a);
  }
  const forms = readForms(document, false);
  const headings = Array.from(document.querySelectorAll('h1, h2')).filter(visible).slice(0, 5)
    .map((h) => ({ selector: selectorOf(h), text: h.textContent.replace(/\\s+/g, ' ').trim().slice(0, 200) }))
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
  const navs = Array.from(document.querySelectorAll('nav, header, footer, [role=navigation]'))
    .map((n) => ({ selector: selectorOf(n), location: n.tagName === 'HEADER' ? 'header' : n.tagName === 'FOOTER' ? 'footer' : (n.closest('header') ? 'header' : n.closest('aside') ? 'sidebar' : 'main'), links: n.querySelectorAll('a[href]').length, hrefs: Array.from(n.querySelectorAll('a[href]')).slice(0, 20).map((a) => a.href) }))
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
  for (const el of document.querySelectorAll('[role=link]:not([href]), a:not([href]), [onclick]:not(a, button, input, [role=button])')) if (visible(el)) handlerLinks++;
  let buttons = 0;
  for (const b of document.querySelectorAll(BUTTONS)) if (!b.closest('form') && visible(b)) buttons++;
  const text = (document.body && document.body.innerText || '').replace(/\\s+/g, ' ').trim();
  return { title: document.title, links, link_selectors: linkSelectors, forms, headings, lists, navs, modals, pagination, script_writes: scriptWrites, text_chars: text.length, handler_links: handlerLinks, buttons };
`;
const EXTRACT = new Function(EXTRACT_BODY) as () => PageExtract;

/** Reads links, forms, headings, lists, navigation, modals and script-made write calls from a loaded page. */
export async function extractPage(page: Page): Promise<PageExtract> {
  return page.evaluate(EXTRACT);
}

export const isPasswordForm = (f: FormInfo) => f.fields.some((x) => x.type === 'password');
