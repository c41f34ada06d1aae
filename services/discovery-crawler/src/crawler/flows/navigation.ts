import type { FlowStep, PageAnalysis } from '../../db/database.js';
import { segmentsOf } from '../endpoints.js';
import type { AnalyzedPage, Detection } from './context.js';

/** The kind of page a URL is: its origin and path with the last segment (a scoped name counts as one) made `{item}`; undefined for the root. */
function itemTemplate(url: string): string | undefined {
  const u = new URL(url);
  const segments = segmentsOf(u.pathname);
  if (segments.length < 2 || segments[segments.length - 1] === '') return undefined;
  return `${u.origin} ${[...segments.slice(0, -1), '{item}'].join('/')}`;
}

/** Navigation: menus several pages share, lists of links in a page's content, and lists of items of one kind opened from the list. */
export function detectNavigation(d: Detection): void {
  const menuTargets = detectMenus(d);
  // Lists of items of one kind first (the more telling evidence); a contents list they already stand for is not repeated.
  const listed = detectItemLists(d);
  detectContents(d, new Set([...menuTargets, ...listed]));
  detectInPageMenus(d);
  detectRouteGroups(d, menuTargets);
}

/** A menu whose entries move the page to its parts (a single-page reference's side menu): choose an entry, its part is shown. */
function detectInPageMenus(d: Detection): void {
  for (const p of d.pages) {
    const moves = (p.analysis.sections ?? []).filter((s) => s.section);
    if (moves.length < 2) continue;
    const first = moves[0]!;
    d.add({
      key: `navigation sections ${p.url}`,
      type: 'navigation',
      pages: [p.url],
      steps: [{ action: 'navigate', url: p.url }, { action: 'click', selector: first.selector }, { action: 'wait_for', selector: first.section! }],
      confidence: 0.5 + Math.min(0.3, 0.05 * moves.length) + 0.2,
      evidence: [`${moves.length} menu entries move the page to its parts (${moves.slice(0, 3).map((m) => m.target).join(', ')})`],
    });
  }
}

/** Elements of one page that each lead to a client-side route (tabs, operations, entries without links), the routes crawled. */
function detectRouteGroups(d: Detection, menuTargets: Set<string>): void {
  for (const p of d.pages) {
    const routes = (p.analysis.routes ?? []).filter((r) => r.url !== p.url && d.byUrl.has(r.url) && !menuTargets.has(r.url));
    if (routes.length < 2) continue;
    const first = routes[0]!;
    d.add({
      key: `navigation routes ${p.url}`,
      type: 'navigation',
      pages: [p.url, ...routes.map((r) => r.url)],
      steps: [{ action: 'navigate', url: p.url }, { action: 'click', selector: first.selector, url: first.url }],
      confidence: 0.5 + Math.min(0.3, 0.05 * routes.length) + 0.1,
      evidence: [`${routes.length} elements lead to client-side routes (${routes.slice(0, 3).map((r) => r.text || r.url).join(', ')})`],
    });
  }
}

type Nav = PageAnalysis['navs'][number];

/**
 * One menu across pages: the same place (selector) with the same entries. Entries are compared by their
 * visible names where the page read them, so a menu whose links carry the page's own id (`?id=<page>&do=recent`)
 * is still one menu.
 */
const menuKey = (n: Nav) => `${n.selector} ${(n.labels?.length ? n.labels : n.hrefs).join(' | ')}`;

/** A menu that several pages share, walked through its crawled targets (a menu inside another with the same targets is one); answers the targets of the menus found. */
function detectMenus(d: Detection): Set<string> {
  const byEntries = detectMenusBy(d, menuKey, () => true);
  // A landmark in the same place on several pages whose entries change with the page (a pager, a related bar) is a
  // menu too, where no menu was found there by its entries.
  const byPlace = detectMenusBy(d, (n) => `${n.selector} (entries by page)`, (n) => n.kind !== 'list' && !byEntries.places.has(n.selector));
  return new Set([...byEntries.targets, ...byPlace.targets]);
}

/** Menus grouped by `keyOf`; answers their targets and places (selectors). */
function detectMenusBy(d: Detection, keyOf: (n: Nav) => string, eligible: (n: Nav) => boolean): { targets: Set<string>; places: Set<string> } {
  const menus = new Map<string, { pages: AnalyzedPage[]; hrefs: Set<string>; location: string; first: Nav }>();
  for (const p of d.pages) {
    for (const n of p.analysis.navs) {
      if (!eligible(n)) continue;
      const key = keyOf(n);
      const m = menus.get(key) ?? { pages: [], hrefs: new Set<string>(), location: n.location, first: n };
      if (!m.pages.includes(p)) m.pages.push(p);
      for (const h of n.hrefs) m.hrefs.add(h);
      menus.set(key, m);
    }
  }
  const seenTargets = new Set<string>();
  const all = new Set<string>();
  const places = new Set<string>();
  for (const [key, m] of menus) {
    const start = m.pages[0]!;
    // The targets as the first page shows them (the walk starts there), then the other pages' own.
    const targets = [...new Set([...m.first.hrefs, ...m.hrefs])].filter((h) => d.byUrl.has(h));
    if (m.pages.length < 2 || targets.length < 2) continue;
    // A menu inside another with the same links and names (a nav in a header) is one menu.
    const signature = `${[...targets].sort().join(' ')} | ${[...(m.first.labels ?? [])].sort().join(' | ')}`;
    if (seenTargets.has(signature)) continue;
    const steps = walk(d, start, m.first);
    // A menu flow clicks its links: one whose links the first page does not show is not one (a collapsed tool menu).
    if (!steps.some((s) => s.action === 'click')) continue;
    seenTargets.add(signature);
    for (const t of targets) all.add(t);
    places.add(m.first.selector);
    d.add({
      key: `navigation ${key}`,
      type: 'navigation',
      pages: targets,
      steps,
      confidence: 0.4 + Math.min(0.3, 0.05 * m.pages.length) + Math.min(0.3, 0.05 * targets.length),
      evidence: [`${m.location} ${m.first.kind === 'list' ? 'list of links' : 'menu'} on ${m.pages.length} pages`, `${targets.length} crawled targets`],
    });
  }
  return { targets: all, places };
}

/**
 * From `start`, clicks one of the menu's crawled targets with the menu's own link (by its place and name), else the
 * page's link to it. One click: a walk through several pages met pagers whose links move with the page.
 */
function walk(d: Detection, start: AnalyzedPage, menu: Nav): FlowStep[] {
  const steps: FlowStep[] = [{ action: 'navigate', url: start.url }];
  let at = start;
  let clicks = 0;
  for (const [i, t] of menu.hrefs.entries()) {
    if (clicks >= 1) break;
    if (t === at.url || !d.byUrl.has(t)) continue; // a link to the page it is on leads nowhere new
    const own = at === start ? menu.selectors?.[i] : sameMenuLink(at, menu, menu.labels?.[i]);
    const selector = own || at.analysis.link_selectors[t];
    if (!selector) break;
    steps.push({ action: 'click', selector, url: t });
    at = d.byUrl.get(t)!;
    clicks++;
  }
  return steps;
}

/** The selector of the link named `label` in the same menu on another page. */
function sameMenuLink(p: AnalyzedPage, menu: Nav, label: string | undefined): string | undefined {
  const there = p.analysis.navs.find((n) => n.selector === menu.selector);
  const i = label === undefined || !there?.labels ? -1 : there.labels.indexOf(label);
  return i >= 0 ? there!.selectors?.[i] : undefined;
}

/**
 * A page's contents: a list of links in its main content (not a menu other pages share) leading to three or more
 * crawled pages, opened at its first entry as a person would.
 */
function detectContents(d: Detection, menuTargets: Set<string>): void {
  const done = new Set<string>();
  for (const p of d.pages) {
    for (const n of p.analysis.navs) {
      if (n.kind !== 'list' || n.location !== 'main') continue;
      const targets = [...new Set(n.hrefs)].filter((h) => h !== p.url && d.byUrl.has(h) && p.analysis.link_selectors[h]);
      if (targets.length < 3 || targets.every((t) => menuTargets.has(t))) continue;
      const signature = [...targets].sort().join(' ');
      if (done.has(signature)) continue;
      done.add(signature);
      const first = targets[0]!;
      const heading = d.byUrl.get(first)!.analysis.headings.length > 0;
      d.add({
        key: `navigation contents ${p.url} ${n.selector}`,
        type: 'navigation',
        pages: [p.url, ...targets],
        steps: [
          { action: 'navigate', url: p.url },
          { action: 'click', selector: p.analysis.link_selectors[first]!, url: first },
        ],
        confidence: 0.5 + Math.min(0.3, 0.05 * targets.length) + (heading ? 0.2 : 0),
        evidence: [`a list of ${targets.length} links in the page's content`, ...(heading ? ['the first leads to a page with a heading'] : [])],
      });
    }
  }
}

/**
 * Browsing a list: a page linking three or more crawled pages of one kind (`/products/{item}`), outside its menus,
 * opened from the list as a person would. The first page a kind is listed on stands for it.
 */
function detectItemLists(d: Detection): Set<string> {
  const listed = new Set<string>();
  const covered = new Set<string>();
  for (const p of d.pages) {
    // Links of the page's menus (landmarks), not of the lists of links the page reads as navs too.
    const menuLinks = new Set(p.analysis.navs.filter((n) => n.kind !== 'list').flatMap((n) => n.hrefs));
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
      for (const u of items.values()) covered.add(u);
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
  return covered;
}
