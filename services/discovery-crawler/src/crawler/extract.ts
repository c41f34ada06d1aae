import type { Page } from 'playwright-core';
import type { FormInfo, PageAnalysis } from '../db/database.js';

/** What the page script returns; the crawler adds the network side. */
export interface PageExtract extends Omit<PageAnalysis, 'reads' | 'writes'> {
  title: string;
  /** Write calls found in the page's inline scripts: method and raw path (ids appended as `{id}`). */
  script_writes: Array<{ method: string; path: string }>;
}

// Runs in the page. A plain-JS string turned into a function, so no transpiler
// helper leaks into it. Selectors prefer ids, data-testid, names, labels and
// link targets, and are checked to be unique; positional CSS is the last resort.
const EXTRACT = new Function(`
  const q = (s) => { try { return document.querySelectorAll(s).length; } catch { return 0; } };
  const css = (v) => v.replace(/["\\\\]/g, '\\\\$&');
  const IDENT = /^[A-Za-z][A-Za-z0-9_-]*$/;
  const positional = (el) => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && e !== document.body; e = e.parentElement) {
      if (e.id && IDENT.test(e.id) && q('#' + e.id) === 1) { parts.unshift('#' + e.id); break; }
      const same = Array.from(e.parentElement ? e.parentElement.children : []).filter((c) => c.tagName === e.tagName);
      parts.unshift(e.tagName.toLowerCase() + (same.length > 1 ? ':nth-of-type(' + (same.indexOf(e) + 1) + ')' : ''));
    }
    return parts.join(' > ');
  };
  const selectorOf = (el) => {
    const tag = el.tagName.toLowerCase();
    if (el.id && IDENT.test(el.id) && q('#' + el.id) === 1) return '#' + el.id;
    const testid = el.getAttribute('data-testid');
    if (testid && q('[data-testid="' + css(testid) + '"]') === 1) return '[data-testid="' + css(testid) + '"]';
    const name = el.getAttribute('name');
    if (name && q(tag + '[name="' + css(name) + '"]') === 1) return tag + '[name="' + css(name) + '"]';
    const aria = el.getAttribute('aria-label');
    if (aria && q(tag + '[aria-label="' + css(aria) + '"]') === 1) return tag + '[aria-label="' + css(aria) + '"]';
    if (tag === 'a') {
      const href = el.getAttribute('href');
      if (href && q('a[href="' + css(href) + '"]') === 1) return 'a[href="' + css(href) + '"]';
    }
    if (tag === 'form') {
      const action = el.getAttribute('action');
      if (action && q('form[action="' + css(action) + '"]') === 1) return 'form[action="' + css(action) + '"]';
    }
    return positional(el);
  };
  const labelOf = (el) => {
    if (el.id) { const l = document.querySelector('label[for="' + css(el.id) + '"]'); if (l) return l.textContent.trim(); }
    const wrap = el.closest('label');
    return wrap ? wrap.textContent.trim() : (el.getAttribute('aria-label') || el.getAttribute('placeholder') || '');
  };
  const visible = (el) => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  const links = [];
  const linkSelectors = {};
  for (const a of document.querySelectorAll('a[href]')) {
    const href = a.href;
    if (!href) continue;
    links.push(href);
    if (!(href in linkSelectors) && visible(a)) linkSelectors[href] = selectorOf(a);
  }
  const forms = Array.from(document.querySelectorAll('form')).map((f) => {
    const fields = Array.from(f.querySelectorAll('input, select, textarea'))
      .filter((i) => !['hidden', 'submit', 'button', 'image', 'reset'].includes((i.getAttribute('type') || '').toLowerCase()))
      .map((i) => ({
        tag: i.tagName.toLowerCase(),
        type: (i.getAttribute('type') || (i.tagName === 'INPUT' ? 'text' : i.tagName.toLowerCase())).toLowerCase(),
        name: i.getAttribute('name') || i.id || '',
        selector: selectorOf(i),
        label: labelOf(i).slice(0, 100),
        autocomplete: (i.getAttribute('autocomplete') || '').toLowerCase(),
      }));
    const submit = f.querySelector('button[type=submit], input[type=submit], button:not([type])');
    return {
      selector: selectorOf(f),
      method: (f.getAttribute('method') || 'get').toLowerCase(),
      action: f.getAttribute('action') === null ? '' : f.action,
      fields,
      submit: submit ? selectorOf(submit) : null,
    };
  });
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
  return { title: document.title, links, link_selectors: linkSelectors, forms, headings, lists, navs, modals, pagination, script_writes: scriptWrites };
`) as () => PageExtract;

/** Reads links, forms, headings, lists, navigation, modals and script-made write calls from a loaded page. */
export async function extractPage(page: Page): Promise<PageExtract> {
  return page.evaluate(EXTRACT);
}

export const isPasswordForm = (f: FormInfo) => f.fields.some((x) => x.type === 'password');
