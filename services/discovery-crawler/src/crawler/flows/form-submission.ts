import { fillSteps, isPassword, isTextual, type Detection } from './context.js';

/** Form submission: every form with fields and a submit button that no other flow took; interactive sessions add what submitting it called. */
export function detectFormSubmission(d: Detection): void {
  detectPageForms(d);
  detectOpenedForms(d);
}

function detectPageForms(d: Detection): void {
  // The same form on every page (a header's, a footer's) is one flow, on the first page it was seen on.
  const seen = new Set<string>();
  for (const p of d.pages) {
    for (const form of p.analysis.forms) {
      if (d.isClaimed(p, form) || !form.submit || form.fields.length === 0 || form.hidden) continue;
      const identity = `${form.selector} ${form.action.split('?')[0]} ${form.fields.map((f) => f.name).join(',')}`;
      if (seen.has(identity)) continue;
      seen.add(identity);
      const labelled = form.fields.filter((f) => f.label).length;
      const calls = (p.analysis.observed ?? []).filter((o) => o.cause === `form ${form.selector}`);
      const submitted = [...new Set(calls.filter((o) => !o.held).map((o) => `${o.method} ${o.endpoint} ${o.status}`))].sort();
      const held = [...new Set(calls.filter((o) => o.held).map((o) => `${o.method} ${o.endpoint}`))].sort();
      d.add({
        key: `form ${p.url} ${form.selector}`,
        type: 'form_submission',
        pages: [p.url, ...(form.action && form.action !== p.url ? [form.action] : [])],
        steps: [{ action: 'navigate', url: p.url }, ...fillSteps(form), { action: 'submit', selector: form.submit }],
        confidence: Math.min(1, 0.5 + (labelled === form.fields.length ? 0.2 : 0) + (form.method === 'post' || !form.action ? 0.2 : 0) + (submitted.length || held.length ? 0.1 : 0)),
        evidence: [`form of ${form.fields.length} field(s)`, ...(labelled ? [`${labelled} labelled`] : []), ...(submitted.length ? [`submitted: ${submitted.join(', ')}`] : []), ...(held.length ? [`would submit: ${held.join(', ')} (held: the session does not allow writes)`] : [])],
      });
    }
  }
}

/**
 * Edit-then-submit controls: a form a click opened or made editable (a dialog's, or fields behind "Try it out"),
 * with the clicks that lead to it first; interactive sessions add the call submitting it made.
 */
export function detectOpenedForms(d: Detection): void {
  const seen = new Set<string>();
  for (const p of d.pages) {
    for (const panel of p.analysis.panels ?? []) {
      for (const form of panel.forms) {
        if (!form.submit || !form.fields.some(isTextual) || isPassword(form) || form.search) continue;
        const key = `form opened ${panel.opener} ${form.selector}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const calls = (p.analysis.observed ?? []).filter((o) => o.cause === `form ${form.selector}`);
        const submitted = [...new Set(calls.filter((o) => !o.held).map((o) => `${o.method} ${o.endpoint} ${o.status}`))].sort();
        d.add({
          key,
          type: 'form_submission',
          pages: [p.url],
          steps: [
            { action: 'navigate', url: p.url },
            ...(panel.before ?? []).map((selector) => ({ action: 'click' as const, selector })),
            { action: 'click', selector: panel.opener },
            { action: 'wait_for', selector: form.fields.find(isTextual)!.selector },
            ...fillSteps(form),
            { action: 'submit', selector: form.submit },
          ],
          confidence: Math.min(1, 0.6 + (submitted.length ? 0.3 : 0)),
          evidence: [`a form of ${form.fields.length} field(s) that "${panel.opener_text || panel.opener}" opens`, ...(submitted.length ? [`submitted: ${submitted.join(', ')}`] : [])],
        });
      }
    }
  }
}
