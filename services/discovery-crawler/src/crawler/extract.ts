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
  const attributeSelectors = (el) => {
    const tag = el.tagName.toLowerCase();
    const out = [];
    const testid = el.getAttribute('data-testid');
    if (testid) out.push('[data-testid="' + css(testid) + '"]');
    for (const attr of ['name', 'aria-label']) {
      const v = el.getAttribute(attr);
      if (v) out.push(tag + '[' + attr + '="' + css(v) + '"]');
    }
    const href = tag === 'a' ? el.getAttribute('href') : null;
    if (href) out.push('a[href="' + css(href) + '"]');
    const action = tag === 'form' ? el.getAttribute('action') : null;
    if (action) out.push('form[action="' + css(action) + '"]');
    return out;
  };
  const selectorOf = (el) => {
    if (el.id && IDENT.test(el.id) && q('#' + el.id) === 1) return '#' + el.id;
    const candidates = attributeSelectors(el);
    for (const c of candidates) if (q(c) === 1) return c;
    // Not unique on the page: scoped to the nearest ancestor with a unique id.
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (!(a.id && IDENT.test(a.id) && q('#' + a.id) === 1)) continue;
      for (const c of candidates) if (q('#' + a.id + ' ' + c) === 1) return '#' + a.id + ' ' + c;
      break;
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
