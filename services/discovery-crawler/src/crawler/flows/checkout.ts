import type { FlowStep } from '../../db/database.js';
import { fillSteps, isAddress, isPayment, type AnalyzedPage, type Detection } from './context.js';

/** Checkout: a cart (items and a link on) → an address form → a card form; two of the three stages suffice. */
export function detectCheckout(d: Detection): void {
  const { pages } = d;
  const payments = pages.filter((p) => p.analysis.forms.some(isPayment));
  for (const pay of payments.length ? payments : [undefined]) {
    const leadsTo = (p: AnalyzedPage, url: string) => p.analysis.links.includes(url) || p.analysis.forms.some((f) => f.action === url);
    const checkout = pages.find((p) => p !== pay && p.analysis.forms.some((f) => isAddress(f) && !isPayment(f)) && (!pay || leadsTo(p, pay.url)));
    if (!checkout) continue;
    const cart = pages.find((p) => p !== checkout && p !== pay && p.analysis.lists.some((l) => l.items > 0) && p.analysis.link_selectors[checkout.url]);
    const stages = [cart, checkout, pay].filter((x): x is AnalyzedPage => !!x);
    if (stages.length < 2) continue;
    const addressForm = checkout.analysis.forms.find(isAddress)!;
    d.claim(checkout, addressForm);
    const steps: FlowStep[] = [];
    if (cart) steps.push({ action: 'navigate', url: cart.url }, { action: 'click', selector: cart.analysis.link_selectors[checkout.url]!, url: checkout.url });
    else steps.push({ action: 'navigate', url: checkout.url });
    steps.push(...fillSteps(addressForm));
    if (pay) {
      const payForm = pay.analysis.forms.find(isPayment)!;
      d.claim(pay, payForm);
      if (addressForm.action === pay.url && addressForm.submit) steps.push({ action: 'submit', selector: addressForm.submit, url: pay.url });
      else steps.push({ action: 'click', selector: checkout.analysis.link_selectors[pay.url] ?? addressForm.submit ?? 'button', url: pay.url });
      steps.push(...fillSteps(payForm));
    }
    const evidence = [...(cart ? ['cart with items links to checkout'] : []), 'address form', ...(pay ? ['card payment form'] : [])];
    d.add({ key: `checkout ${checkout.url}`, type: 'checkout', pages: stages.map((s) => s.url), steps, confidence: 0.3 * stages.length + 0.05, evidence });
  }
}
