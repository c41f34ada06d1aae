import type { FlowStep } from '../../db/database.js';
import { fillSteps, isTextual, type Detection } from './context.js';

/** The resource of a templated endpoint: `/api/items/{id}` → `/api/items`. */
const resourceOf = (endpoint: string) => endpoint.replace(/\/\{id\}$/, '');

/** CRUD: a page listing records whose scripts write to the resource it reads; interactive sessions add the calls observed. */
export function detectCrud(d: Detection): void {
  detectRecordEditing(d);
  detectScriptedResources(d);
}

function detectScriptedResources(d: Detection): void {
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

/**
 * Records kept through the page (interactive sessions that allow writes): an item typed into a lone box appears,
 * a double-click edits it, a button in it deletes it. The flow does all three, so it leaves the app as it found it.
 */
export function detectRecordEditing(d: Detection): void {
  const done = new Set<string>();
  for (const p of d.pages) {
    const r = p.analysis.records;
    if (!r || done.has(r.input)) continue;
    done.add(r.input);
    const steps: FlowStep[] = [
      { action: 'navigate', url: p.url },
      { action: 'fill_form', selector: r.input, value: r.value },
      { action: 'press', selector: r.input, value: 'Enter' },
      { action: 'wait_for', selector: r.item, value: r.value },
    ];
    if (r.edit) steps.push({ action: 'dblclick', selector: r.edit.open }, { action: 'fill_form', selector: r.edit.editor, value: r.edit.value }, { action: 'press', selector: r.edit.editor, value: 'Enter' }, { action: 'wait_for', selector: r.item, value: r.edit.value });
    if (r.delete) steps.push({ action: 'hover', selector: r.delete.hover }, { action: 'click', selector: r.delete.button }, { action: 'wait_gone', selector: r.delete.hover });
    d.add({
      key: `crud records ${p.url} ${r.input}`,
      type: 'crud',
      pages: [p.url],
      steps,
      confidence: 0.6 + (r.edit ? 0.2 : 0) + (r.delete ? 0.2 : 0),
      evidence: [`typing into "${r.label || r.input}" and Enter added an item showing it`, ...(r.edit ? ['a double-click on the item edited it'] : []), ...(r.delete ? ['a button in the item deleted it'] : [])],
    });
  }
}
