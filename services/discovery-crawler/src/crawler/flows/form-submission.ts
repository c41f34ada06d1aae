import { fillSteps, type Detection } from './context.js';

/** Form submission: every form with fields and a submit button that no other flow took; interactive sessions add what submitting it called. */
export function detectFormSubmission(d: Detection): void {
  for (const p of d.pages) {
    for (const form of p.analysis.forms) {
      if (d.isClaimed(p, form) || !form.submit || form.fields.length === 0) continue;
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
