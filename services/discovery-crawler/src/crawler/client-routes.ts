import type { Page } from 'playwright-core';
import { IN_PAGE } from './in-page.js';
import type { PageState } from './page-state.js';

/** A page a client-side router reached from a click: its URL, and how to reach it in the app. */
export interface ClientRoute {
  url: string;
  /** The element clicked (a stable selector) on `from`. */
  selector: string;
  text: string;
}

/** Elements never clicked to find routes, by their accessible name: they may change data or end the session. */
export const RISKY_TEXT = /log ?out|sign ?out|unsubscribe|delete|remove|destroy|archive|close (my )?account|\bpay\b|buy|purchase|place order|checkout|empty cart|clear all|reset/i;

// Marks the visible link-like elements without an href not tried yet; answers them with a stable selector each.
const MARK = new Function(
  'tried',
  IN_PAGE +
    `
  const out = [];
  let n = 0;
  // The marks of an earlier look go: numbers are given afresh, and a stale 0 would be clicked for the new 0.
  for (const el of document.querySelectorAll('[data-assay-route]')) el.removeAttribute('data-assay-route');
  for (const el of document.querySelectorAll('[role=link]:not([href]), a:not([href]), [role=tab], [role=menuitem]:not([href])')) {
    if (!visible(el) || el.getAttribute('aria-disabled') === 'true' || el.closest('[inert]')) continue;
    const text = nameOf(el).slice(0, 80);
    const selector = selectorOf(el);
    const sig = text + ' ' + selector;
    if (tried.includes(sig)) continue;
    el.setAttribute('data-assay-route', String(n));
    out.push({ index: n++, text, selector, sig });
  }
  return out;`,
) as (tried: string[]) => Array<{ index: number; text: string; selector: string; sig: string }>;

/** A click that moved the page to a part of itself (its hash now names an element on it), not to another page. */
export interface SectionMove {
  selector: string;
  text: string;
  /** The hash the click set (`#tag/Books`). */
  target: string;
  /** The element it names, when there is one. */
  section?: string;
}

// The element a hash names (`#tag/Books` → the element with that id), as a selector.
const SECTION = new Function('hash', IN_PAGE + `
  let id = hash.slice(1);
  try { id = decodeURIComponent(id); } catch {}
  const el = id && document.getElementById(id);
  return el ? '[id="' + css(id) + '"]' : undefined;`) as (hash: string) => string | undefined;

/**
 * Clicks the page's link-like elements that have no href (and menu items), one at a time, and
 * records where a client-side router moved (pushState, replaceState, a hash
 * change); goes back after each. A click that only changed the hash to name a
 * part of the page (`#tag/Books`, not a `#/` route) is a move within the page. The caller holds document navigations while
 * this runs, so nothing leaves the page. `tried` (element text and selector)
 * spans the session, so a menu on every page is probed once. Elements whose
 * name reads like a destructive or session-ending action are never clicked.
 */
export async function probeClientRoutes(
  page: Page,
  tried: Set<string>,
  limits: { max: number; budgetMs: number },
  hooks: { settle(): Promise<PageState>; state(): Promise<PageState>; beforeClick?(): Promise<void> },
): Promise<{ routes: ClientRoute[]; sections: SectionMove[] }> {
  const deadline = Date.now() + limits.budgetMs;
  const found: ClientRoute[] = [];
  const sections: SectionMove[] = [];
  // Where the page is, read before the first click (a page with nothing left to try costs one look, not two).
  let home: string | undefined;
  for (let clicks = 0; clicks < limits.max && Date.now() < deadline; clicks++) {
    const marked = await page.evaluate(MARK, [...tried]).catch(() => []);
    for (const m of marked) if (RISKY_TEXT.test(m.text)) tried.add(m.sig);
    const next = marked.find((m) => !RISKY_TEXT.test(m.text));
    if (!next) break;
    tried.add(next.sig);
    home ??= (await hooks.state()).href;
    await hooks.beforeClick?.();
    try {
      await page.locator(`[data-assay-route="${next.index}"]`).first().click({ timeout: Math.max(100, Math.min(2000, deadline - Date.now())) });
    } catch {
      continue; // covered or gone: the next one
    }
    const after = await hooks.settle();
    if (after.href === home) continue;
    const hash = new URL(after.href).hash;
    if (after.href.replace(/#.*$/, '') === home.replace(/#.*$/, '') && !hash.startsWith('#/')) {
      const section = await page.evaluate(SECTION, hash).catch(() => undefined);
      sections.push({ selector: next.selector, text: next.text, target: hash, ...(section ? { section } : {}) });
      home = after.href;
      continue;
    }
    found.push({ url: after.href, selector: next.selector, text: next.text });
    await page.goBack({ timeout: 2000 }).catch(() => undefined);
    if ((await hooks.settle()).href !== home) break; // could not get back: the caller reloads the page
  }
  return { routes: found, sections };
}
