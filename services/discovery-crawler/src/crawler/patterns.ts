import type { AnalyzedPage } from './flows/index.js';

export interface UiPattern {
  pattern_id: string;
  type: 'form' | 'navigation' | 'table' | 'list' | 'modal' | 'pagination';
  occurrences: number;
  average_fields?: number;
  links?: number;
  location?: string;
  examples: string[];
}

const EXAMPLES = 5;

/**
 * Repeated UI structures across the crawled pages: forms (grouped by their
 * fields), navigation blocks (by place and links), tables, lists of three or
 * more items, modals and pagination. `examples` are page URLs.
 */
export function detectPatterns(pages: AnalyzedPage[]): UiPattern[] {
  const groups = new Map<string, { type: UiPattern['type']; pages: Set<string>; count: number; fields: number; links: number; location?: string }>();
  const note = (key: string, type: UiPattern['type'], url: string, extra: { fields?: number; links?: number; location?: string } = {}) => {
    const g = groups.get(key) ?? { type, pages: new Set<string>(), count: 0, fields: 0, links: 0, ...(extra.location ? { location: extra.location } : {}) };
    g.pages.add(url);
    g.count++;
    g.fields += extra.fields ?? 0;
    g.links = Math.max(g.links, extra.links ?? 0);
    groups.set(key, g);
  };
  for (const p of pages) {
    const a = p.analysis;
    for (const f of a.forms) note(`form ${f.fields.map((x) => `${x.type}:${x.name}`).join(',')}`, 'form', p.url, { fields: f.fields.length });
    for (const n of a.navs) note(`navigation ${n.location} ${n.selector}`, 'navigation', p.url, { links: n.links, location: n.location });
    for (const l of a.lists) if (l.kind === 'table' || l.items >= 3) note(`${l.kind} ${l.selector}`, l.kind, p.url);
    for (const m of a.modals) note(`modal ${m}`, 'modal', p.url);
    if (a.pagination.length) note('pagination', 'pagination', p.url);
  }
  let n = 0;
  return [...groups.values()]
    .sort((x, y) => y.count - x.count)
    .map((g) => ({
      pattern_id: `pattern_${++n}`,
      type: g.type,
      occurrences: g.count,
      ...(g.type === 'form' ? { average_fields: Math.round(g.fields / g.count) } : {}),
      ...(g.type === 'navigation' ? { links: g.links, location: g.location ?? 'main' } : {}),
      examples: [...g.pages].slice(0, EXAMPLES),
    }));
}
