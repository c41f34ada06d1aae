import type { FieldInfo, FormInfo } from '../../db/database.js';
import { isPassword, isTextual, type Detection } from './context.js';

/** The field a search form searches with: a search box, or the one text field of a form that says it searches. */
const searchField = (f: FormInfo): FieldInfo | undefined => {
  const textual = f.fields.filter(isTextual);
  return textual.find((x) => x.type === 'search') ?? (f.search && textual.length === 1 ? textual[0] : undefined);
};

/**
 * Search: a search form (by its role, or a search box by type, role, name, label or placeholder), with the results
 * its target fetches or lists when the crawl saw them; and (interactive) a box that showed results while a term was typed.
 */
export function detectSearch(d: Detection): void {
  const searches = new Set<string>();
  detectTypeAhead(d, searches);
  for (const p of d.pages) {
    for (const form of p.analysis.forms) {
      const field = searchField(form);
      if (!field || isPassword(form) || form.hidden) continue;
      d.claim(p, form);
      const target = form.action || p.url;
      const key = `search ${new URL(target).pathname}`;
      if (searches.has(key)) continue;
      searches.add(key);
      // A results page the crawl read with the field in its query (a GET form's target crawled with a term).
      const resultsPage = d.pages.find((x) => x.url.split('?')[0] === target.split('?')[0] && new URL(x.url).searchParams.has(field.name));
      // Where the form leads, as crawled (a GET form's action is a link the crawl follows).
      const targetPage = resultsPage ?? d.byUrl.get(target);
      const reads = (resultsPage ?? p).analysis.reads.filter((r) => new URL(r.url).searchParams.has(field.name));
      const evidence = [field.type === 'search' ? 'search input' : `search form (field "${field.label || field.name}")`];
      if (reads.length) evidence.push(`results fetched from ${reads[0]!.endpoint}`);
      if (resultsPage) evidence.push(`results page ${resultsPage.url} read`);
      d.add({
        key,
        type: 'search',
        pages: [...new Set([p.url, ...(targetPage ? [targetPage.url] : [])])],
        steps: [{ action: 'navigate', url: p.url }, { action: 'fill_form', selector: field.selector, value: 'a' }, ...(form.submit ? [{ action: 'submit' as const, selector: form.submit }] : [])],
        confidence: 0.5 + (reads.length ? 0.2 : 0) + (resultsPage ? 0.2 : 0) + (field.type === 'search' ? 0.1 : 0),
        evidence,
      });
    }
  }
}

/** Type-ahead (interactive sessions): a box that called an API or showed suggestions while a term was typed. */
function detectTypeAhead(d: Detection, searches: Set<string>): void {
  for (const p of d.pages) {
    for (const t of p.analysis.typeahead ?? []) {
      if (!t.calls.length && !t.suggestions) continue;
      const key = `search typeahead ${t.selector}`;
      if (searches.has(key)) continue;
      searches.add(key);
      const endpoints = [...new Set((p.analysis.observed ?? []).filter((o) => o.cause === `search ${t.selector}`).map((o) => `${o.method} ${o.endpoint}`))];
      d.add({
        key,
        type: 'search',
        pages: [p.url],
        steps: [
          { action: 'navigate', url: p.url },
          // A search dialog: the click that opens it, then its box once it is there.
          ...(t.opener ? [{ action: 'click' as const, selector: t.opener }, { action: 'wait_for' as const, selector: t.selector }] : []),
          { action: 'type', selector: t.selector, value: t.term },
          ...(t.suggestions ? [{ action: 'wait_for' as const, selector: t.suggestions.selector, value: t.suggestions.matches_term ? t.term : undefined }] : []),
        ],
        confidence: 0.4 + (t.calls.length ? 0.3 : 0) + (t.suggestions ? 0.2 : 0) + (t.suggestions?.matches_term ? 0.1 : 0),
        evidence: [
          `${t.opener ? 'search box a click opens' : 'type-ahead search box'}${t.label ? ` "${t.label}"` : ''}`,
          ...(endpoints.length ? [`typing "${t.term}" called ${endpoints.join(', ')}`] : []),
          ...(t.suggestions ? [t.calls.length ? `${t.suggestions.options} suggestion(s) shown` : `${t.suggestions.options} result(s) shown without a call (client-side)`] : []),
        ],
      });
    }
  }
}
