import type { FormInfo } from '../../db/database.js';
import { fillSteps, isPassword, isTextual, type Detection } from './context.js';

const confidenceOf = (form: FormInfo, user: boolean) => 0.5 + (user ? 0.25 : 0) + (form.submit ? 0.25 : 0);

/**
 * Authentication: a password field, on a page (one flow per page) or in a
 * dialog a button opens (single-page apps), whose click is then the flow's
 * first action; the same button on every page is one flow, on the first page
 * it was seen on.
 */
export function detectAuthentication(d: Detection): void {
  for (const p of d.pages) {
    const form = p.analysis.forms.find((f) => isPassword(f) && !f.hidden);
    if (!form) continue;
    d.claim(p, form);
    const user = form.fields.find((x) => isTextual(x));
    const evidence = ['password field'];
    if (user) evidence.push(`user field ${user.selector}`);
    if (form.submit) evidence.push('submit button');
    const target = form.action && form.action !== p.url ? [form.action] : [];
    d.add({
      key: `authentication ${p.url}`,
      type: 'authentication',
      pages: [p.url, ...target],
      steps: [{ action: 'navigate', url: p.url }, ...fillSteps(form), ...(form.submit ? [{ action: 'submit' as const, selector: form.submit }] : [])],
      confidence: confidenceOf(form, !!user),
      evidence,
    });
  }
  const dialogLogins = new Set<string>();
  for (const p of d.pages) {
    for (const panel of p.analysis.panels ?? []) {
      const form = panel.forms.find(isPassword);
      if (!form) continue;
      const key = `authentication ${panel.opener} ${form.fields.map((f) => f.selector).join(' ')}`;
      if (dialogLogins.has(key)) continue;
      dialogLogins.add(key);
      const user = form.fields.find((x) => isTextual(x));
      d.add({
        key,
        type: 'authentication',
        pages: [p.url],
        steps: [
          { action: 'navigate', url: p.url },
          ...(panel.before ?? []).map((selector) => ({ action: 'click' as const, selector })),
          { action: 'click', selector: panel.opener },
          // What the click renders: its first field (a field's own selector holds better than the dialog's generated one).
          { action: 'wait_for', selector: form.fields[0]?.selector ?? panel.selector },
          ...fillSteps(form),
          ...(form.submit ? [{ action: 'submit' as const, selector: form.submit }] : []),
        ],
        confidence: confidenceOf(form, !!user),
        evidence: [`password field in a ${panel.kind} that "${panel.opener_text || panel.opener}" opens`, ...(user ? [`user field ${user.selector}`] : []), ...(form.submit ? ['submit button'] : [])],
      });
    }
  }
}
