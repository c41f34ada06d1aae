import type { FieldInfo, FormInfo } from '../../db/database.js';
import { isPassword, isTextual, type Detection } from './context.js';

const searchField = (f: FormInfo): FieldInfo | undefined => {
  const textual = f.fields.filter(isTextual);
  return textual.find((x) => x.type === 'search') ?? (f.method === 'get' && textual.length === 1 && f.fields.length <= 2 ? textual[0] : undefined);
};

/** Search: a search box, and results that load or change with it. */
export function detectSearch(d: Detection): void {
  const searches = new Set<string>();
  detectTypeAhead(d, searches);
  for (const p of d.pages) {
    for (const form of p.analysis.forms) {
      const field = searchField(form);
      if (!field || isPassword(form)) continue;
      const target = form.action || p.url;
      const targetPage = d.byUrl.get(target.split('?')[0]!) ?? p;
      const reads = targetPage.analysis.reads.filter((r) => new URL(r.url).searchParams.has(field.name) || /search|[?&]q=/.test(r.url));
      const results = targetPage.analysis.lists.some((l) => l.kind === 'list' || l.kind === 'table');
      if (!reads.length && !results) continue;
      d.claim(p, form);
      const key = `search ${new URL(target).pathname}`;
      if (searches.has(key)) continue;
      searches.add(key);
      const evidence = [field.type === 'search' ? 'search input' : 'single-field GET form'];
      if (reads.length) evidence.push(`results fetched from ${reads[0]!.endpoint}`);
      if (results) evidence.push('result list on the page');
      d.add({
        key,
        type: 'search',
        pages: [...new Set([p.url, targetPage.url])],
        steps: [{ action: 'navigate', url: p.url }, { action: 'fill_form', selector: field.selector, value: 'a' }, ...(form.submit ? [{ action: 'submit' as const, selector: form.submit }] : [])],
        confidence: 0.4 + (reads.length ? 0.3 : 0) + (results ? 0.2 : 0) + (field.type === 'search' ? 0.1 : 0),
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
        steps: [{ action: 'navigate', url: p.url }, { action: 'type', selector: t.selector, value: t.term }, ...(t.suggestions ? [{ action: 'wait_for' as const, selector: t.suggestions.selector, value: t.suggestions.matches_term ? t.term : undefined }] : [])],
        confidence: 0.4 + (t.calls.length ? 0.3 : 0) + (t.suggestions ? 0.2 : 0) + (t.suggestions?.matches_term ? 0.1 : 0),
        evidence: [
          `type-ahead search box${t.label ? ` "${t.label}"` : ''}`,
          ...(endpoints.length ? [`typing "${t.term}" called ${endpoints.join(', ')}`] : []),
          ...(t.suggestions ? [`${t.suggestions.options} suggestion(s) shown`] : []),
        ],
      });
    }
  }
}
