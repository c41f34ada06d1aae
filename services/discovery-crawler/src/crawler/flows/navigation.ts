import type { FlowStep } from '../../db/database.js';
import { segmentsOf } from '../endpoints.js';
import type { AnalyzedPage, Detection } from './context.js';

/** The kind of page a URL is: its origin and path with the last segment (a scoped name counts as one) made `{item}`; undefined for the root. */
function itemTemplate(url: string): string | undefined {
  const u = new URL(url);
  const segments = segmentsOf(u.pathname);
  if (segments.length < 2 || segments[segments.length - 1] === '') return undefined;
  return `${u.origin} ${[...segments.slice(0, -1), '{item}'].join('/')}`;
}

/** Navigation: menus several pages share, and lists of items of one kind opened from the list. */
export function detectNavigation(d: Detection): void {
  detectMenus(d);
  detectItemLists(d);
}

/** A menu that several pages share, walked through its crawled targets (a menu inside another with the same links is one). */
function detectMenus(d: Detection): void {
  const menus = new Map<string, { pages: AnalyzedPage[]; hrefs: string[]; location: string }>();
  for (const p of d.pages) {
    for (const n of p.analysis.navs) {
      const key = `${n.selector} ${n.hrefs.join(' ')}`;
      const m = menus.get(key) ?? { pages: [], hrefs: n.hrefs, location: n.location };
      m.pages.push(p);
      menus.set(key, m);
    }
  }
  const sameLinks = new Set<string>();
  for (const [key, m] of menus) {
    const targets = [...new Set(m.hrefs)].filter((h) => d.byUrl.has(h));
    if (m.pages.length < 2 || targets.length < 2) continue;
    const links = [...new Set(m.hrefs)].sort().join(' ');
    if (sameLinks.has(links)) continue;
    sameLinks.add(links);
    const start = m.pages[0]!;
    const steps: FlowStep[] = [{ action: 'navigate', url: start.url }];
    let at = start;
    for (const t of targets.slice(0, 5)) {
      if (t === at.url) continue; // a link to the page it is on leads nowhere new
      const selector = at.analysis.link_selectors[t];
      if (!selector) break;
      steps.push({ action: 'click', selector, url: t });
      at = d.byUrl.get(t)!;
    }
    d.add({
      key: `navigation ${key}`,
      type: 'navigation',
      pages: targets,
      steps,
      confidence: 0.4 + Math.min(0.3, 0.05 * m.pages.length) + Math.min(0.3, 0.05 * targets.length),
      evidence: [`${m.location} menu on ${m.pages.length} pages`, `${targets.length} crawled targets`],
    });
  }
}

/**
 * Browsing a list: a page linking three or more crawled pages of one kind (`/products/{item}`), outside its menus,
 * opened from the list as a person would. The first page a kind is listed on stands for it.
 */
function detectItemLists(d: Detection): void {
  const listed = new Set<string>();
  for (const p of d.pages) {
    const menuLinks = new Set(p.analysis.navs.flatMap((n) => n.hrefs));
    const kinds = new Map<string, Map<string, string>>(); // template → path → url
    for (const url of p.analysis.links) {
      if (url === p.url || menuLinks.has(url) || !d.byUrl.has(url) || !p.analysis.link_selectors[url]) continue;
      const template = itemTemplate(url);
      if (!template) continue;
      const items = kinds.get(template) ?? new Map<string, string>();
      if (!items.has(new URL(url).pathname)) items.set(new URL(url).pathname, url);
      kinds.set(template, items);
    }
    for (const [template, items] of kinds) {
      if (items.size < 3 || listed.has(template)) continue;
      listed.add(template);
      const first = [...items.values()][0]!;
      const heading = d.byUrl.get(first)!.analysis.headings.length > 0;
      d.add({
        key: `navigation list ${template}`,
        type: 'navigation',
        pages: [p.url, first],
        steps: [
          { action: 'navigate', url: p.url },
          { action: 'click', selector: p.analysis.link_selectors[first]!, url: first },
        ],
        confidence: 0.5 + Math.min(0.3, 0.05 * items.size) + (heading ? 0.2 : 0),
        evidence: [`a list of ${items.size} items linking to ${template.split(' ')[1]}`, ...(heading ? ['each item page has a heading'] : [])],
      });
    }
  }
}
