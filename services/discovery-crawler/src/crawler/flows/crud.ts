import { fillSteps, isTextual, type Detection } from './context.js';

/** The resource of a templated endpoint: `/api/items/{id}` → `/api/items`. */
const resourceOf = (endpoint: string) => endpoint.replace(/\/\{id\}$/, '');

/** CRUD: a page listing records whose scripts write to the resource it reads; interactive sessions add the calls observed. */
export function detectCrud(d: Detection): void {
  const cruds = new Set<string>();
  for (const p of d.pages) {
    const writes = p.analysis.writes;
    if (!writes.length || !p.analysis.lists.length) continue;
    const byResource = new Map<string, Set<string>>();
    for (const w of writes) byResource.set(resourceOf(w.endpoint), (byResource.get(resourceOf(w.endpoint)) ?? new Set()).add(w.method));
    for (const r of p.analysis.reads) if (byResource.has(resourceOf(r.endpoint))) byResource.get(resourceOf(r.endpoint))!.add('GET');
    for (const [resource, methods] of byResource) {
      if (methods.size < 2 || cruds.has(resource)) continue;
      cruds.add(resource);
      const form = p.analysis.forms.find((f) => !d.isClaimed(p, f) && f.fields.some(isTextual));
      if (form) d.claim(p, form);
      // Interactive sessions saw the writes happen: the calls and what they answered back the flow.
      const seen = (p.analysis.observed ?? []).filter((o) => o.method !== 'GET' && resourceOf(o.endpoint) === resource);
      const answered = [...new Set(seen.filter((o) => !o.held).map((o) => `${o.method} ${o.endpoint} ${o.status}`))].sort();
      const held = [...new Set(seen.filter((o) => o.held).map((o) => `${o.method} ${o.endpoint}`))].sort();
      d.add({
        key: `crud ${resource}`,
        type: 'crud',
        pages: [p.url],
        steps: [{ action: 'navigate', url: p.url }, ...(form ? [...fillSteps(form), ...(form.submit ? [{ action: 'submit' as const, selector: form.submit }] : [])] : [])],
        confidence: Math.min(1, 0.2 + 0.2 * methods.size + (answered.length ? 0.1 : 0)),
        evidence: [
          `${[...methods].sort().join(', ')} on ${resource}`,
          'record list on the page',
          ...(answered.length ? [`observed ${answered.join(', ')}`] : []),
          ...(held.length ? [`held ${held.join(', ')} (the session does not allow writes)`] : []),
        ],
      });
    }
  }
}
