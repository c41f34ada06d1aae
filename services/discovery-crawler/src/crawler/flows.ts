import { createHash } from 'node:crypto';
import type { FieldInfo, FlowStep, FormInfo, PageAnalysis, SessionWarning } from '../db/database.js';
import { segmentsOf } from './endpoints.js';
import { confidenceFactor } from './warnings.js';

export type FlowType = 'authentication' | 'checkout' | 'search' | 'form_submission' | 'navigation' | 'crud';

export interface AnalyzedPage {
  url: string;
  title: string;
  analysis: PageAnalysis;
}

export interface DetectedFlow {
  /** Identity across re-detections: the same evidence gives the same key. */
  key: string;
  flow_id: string;
  type: FlowType;
  pages: string[];
  steps: FlowStep[];
  /** 0..1: how much independent evidence backs the flow. */
  confidence: number;
  evidence: string[];
}

const flowId = (key: string) => `flow_${createHash('sha1').update(key).digest('hex').slice(0, 12)}`;
const round = (n: number) => Math.round(Math.min(1, n) * 100) / 100;
const text = (f: FieldInfo) => `${f.name} ${f.label} ${f.autocomplete}`.toLowerCase();
const isTextual = (f: FieldInfo) => ['text', 'email', 'search', 'tel', 'url', 'number', 'textarea'].includes(f.type) || f.tag === 'textarea';

const isPassword = (f: FormInfo) => f.fields.some((x) => x.type === 'password');
const isPayment = (f: FormInfo) => f.fields.some((x) => /^cc-|card|cvc|cvv|expir/.test(text(x)) || x.autocomplete.startsWith('cc-'));
const isAddress = (f: FormInfo) => f.fields.some((x) => /street-address|address-line|shipping|postal-code|address/.test(text(x)));
const searchField = (f: FormInfo): FieldInfo | undefined => {
  const textual = f.fields.filter(isTextual);
  return textual.find((x) => x.type === 'search') ?? (f.method === 'get' && textual.length === 1 && f.fields.length <= 2 ? textual[0] : undefined);
};

/** Sample values a generated test fills into a field, chosen from the field's type. */
export function sampleValue(f: FieldInfo): string {
  const t = text(f);
  if (f.type === 'email' || /email/.test(t)) return 'tester@example.com';
  if (f.type === 'password') return 'Secret-123';
  if (f.type === 'number') return '1';
  if (f.type === 'tel') return '5550100';
  if (/cc-number|card.?num/.test(t)) return '4242424242424242';
  if (/exp/.test(t)) return '12/30';
  if (/cvc|cvv|csc/.test(t)) return '123';
  if (/postal|zip/.test(t)) return '10001';
  if (/address|street/.test(t)) return '1 Main St';
  if (/name/.test(t)) return 'Test User';
  return 'Test';
}

function fillSteps(form: FormInfo): FlowStep[] {
  return form.fields.filter((f) => isTextual(f) || f.type === 'password').map((f) => ({ action: 'fill_form' as const, selector: f.selector, value: sampleValue(f) }));
}

/** The kind of page a URL is: its origin and path with the last segment (a scoped name counts as one) made `{item}`; undefined for the root. */
function itemTemplate(url: string): string | undefined {
  const u = new URL(url);
  const segments = segmentsOf(u.pathname);
  if (segments.length < 2 || segments[segments.length - 1] === '') return undefined;
  return `${u.origin} ${[...segments.slice(0, -1), '{item}'].join('/')}`;
}

/** The resource of a templated endpoint: `/api/items/{id}` → `/api/items`. */
const resourceOf = (endpoint: string) => endpoint.replace(/\/\{id\}$/, '');

/**
 * Flows from page structure and network behaviour: a password form is a login,
 * a search field whose page reads results is a search, an address form leading
 * to a card form (with a cart before it) is a checkout, a list whose page
 * writes to one resource is CRUD, a menu shared by pages is navigation, and
 * any other submittable form is a form submission.
 */
export function detectFlows(pages: AnalyzedPage[]): DetectedFlow[] {
  const flows: DetectedFlow[] = [];
  const add = (f: Omit<DetectedFlow, 'flow_id' | 'confidence'> & { confidence: number }) => flows.push({ ...f, flow_id: flowId(f.key), confidence: round(f.confidence) });
  const byUrl = new Map(pages.map((p) => [p.url, p]));
  const claimed = new Set<string>(); // forms already part of a flow, as `url form-selector`
  const claim = (p: AnalyzedPage, f: FormInfo) => claimed.add(`${p.url} ${f.selector}`);

  // Authentication: one flow per page with a password form.
  for (const p of pages) {
    const form = p.analysis.forms.find(isPassword);
    if (!form) continue;
    claim(p, form);
    const user = form.fields.find((x) => isTextual(x));
    const evidence = ['password field'];
    if (user) evidence.push(`user field ${user.selector}`);
    if (form.submit) evidence.push('submit button');
    const target = form.action && form.action !== p.url ? [form.action] : [];
    add({
      key: `authentication ${p.url}`,
      type: 'authentication',
      pages: [p.url, ...target],
      steps: [{ action: 'navigate', url: p.url }, ...fillSteps(form), ...(form.submit ? [{ action: 'submit' as const, selector: form.submit }] : [])],
      confidence: 0.5 + (user ? 0.25 : 0) + (form.submit ? 0.25 : 0),
      evidence,
    });
  }

  // Authentication in a dialog a button opens (single-page apps): the click that opens it is the flow's first action.
  // The same button on every page is one flow, on the first page it was seen on.
  const dialogLogins = new Set<string>();
  for (const p of pages) {
    for (const panel of p.analysis.panels ?? []) {
      const form = panel.forms.find(isPassword);
      if (!form) continue;
      const key = `authentication ${panel.opener} ${form.fields.map((f) => f.selector).join(' ')}`;
      if (dialogLogins.has(key)) continue;
      dialogLogins.add(key);
      const user = form.fields.find((x) => isTextual(x));
      add({
        key,
        type: 'authentication',
        pages: [p.url],
        steps: [
          { action: 'navigate', url: p.url },
          { action: 'click', selector: panel.opener },
          // What the click renders: its first field (a field's own selector holds better than the dialog's generated one).
          { action: 'wait_for', selector: form.fields[0]?.selector ?? panel.selector },
          ...fillSteps(form),
          ...(form.submit ? [{ action: 'submit' as const, selector: form.submit }] : []),
        ],
        confidence: 0.5 + (user ? 0.25 : 0) + (form.submit ? 0.25 : 0),
        evidence: [`password field in a ${panel.kind} that "${panel.opener_text || panel.opener}" opens`, ...(user ? [`user field ${user.selector}`] : []), ...(form.submit ? ['submit button'] : [])],
      });
    }
  }

  // Search: a search field, and results that load or change with it.
  const searches = new Set<string>();
  // Type-ahead (interactive sessions): a box that called an API or showed suggestions while a term was typed.
  for (const p of pages) {
    for (const t of p.analysis.typeahead ?? []) {
      if (!t.calls.length && !t.suggestions) continue;
      const key = `search typeahead ${t.selector}`;
      if (searches.has(key)) continue;
      searches.add(key);
      const endpoints = [...new Set((p.analysis.observed ?? []).filter((o) => o.cause === `search ${t.selector}`).map((o) => `${o.method} ${o.endpoint}`))];
      add({
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
  for (const p of pages) {
    for (const form of p.analysis.forms) {
      const field = searchField(form);
      if (!field || isPassword(form)) continue;
      const target = form.action || p.url;
      const targetPage = byUrl.get(target.split('?')[0]!) ?? p;
      const reads = targetPage.analysis.reads.filter((r) => new URL(r.url).searchParams.has(field.name) || /search|[?&]q=/.test(r.url));
      const results = targetPage.analysis.lists.some((l) => l.kind === 'list' || l.kind === 'table');
      if (!reads.length && !results) continue;
      claim(p, form);
      const key = `search ${new URL(target).pathname}`;
      if (searches.has(key)) continue;
      searches.add(key);
      const evidence = [field.type === 'search' ? 'search input' : 'single-field GET form'];
      if (reads.length) evidence.push(`results fetched from ${reads[0]!.endpoint}`);
      if (results) evidence.push('result list on the page');
      add({
        key,
        type: 'search',
        pages: [...new Set([p.url, targetPage.url])],
        steps: [{ action: 'navigate', url: p.url }, { action: 'fill_form', selector: field.selector, value: 'a' }, ...(form.submit ? [{ action: 'submit' as const, selector: form.submit }] : [])],
        confidence: 0.4 + (reads.length ? 0.3 : 0) + (results ? 0.2 : 0) + (field.type === 'search' ? 0.1 : 0),
        evidence,
      });
    }
  }

  // Checkout: cart (items and a link on) → address form → card form.
  const payments = pages.filter((p) => p.analysis.forms.some(isPayment));
  for (const pay of payments.length ? payments : [undefined]) {
    const leadsTo = (p: AnalyzedPage, url: string) => p.analysis.links.includes(url) || p.analysis.forms.some((f) => f.action === url);
    const checkout = pages.find((p) => p !== pay && p.analysis.forms.some((f) => isAddress(f) && !isPayment(f)) && (!pay || leadsTo(p, pay.url)));
    if (!checkout || (!pay && !checkout)) continue;
    const cart = pages.find((p) => p !== checkout && p !== pay && p.analysis.lists.some((l) => l.items > 0) && p.analysis.link_selectors[checkout.url]);
    const stages = [cart, checkout, pay].filter((x): x is AnalyzedPage => !!x);
    if (stages.length < 2) continue;
    const addressForm = checkout.analysis.forms.find(isAddress)!;
    claim(checkout, addressForm);
    const steps: FlowStep[] = [];
    if (cart) steps.push({ action: 'navigate', url: cart.url }, { action: 'click', selector: cart.analysis.link_selectors[checkout.url]!, url: checkout.url });
    else steps.push({ action: 'navigate', url: checkout.url });
    steps.push(...fillSteps(addressForm));
    if (pay) {
      const payForm = pay.analysis.forms.find(isPayment)!;
      claim(pay, payForm);
      if (addressForm.action === pay.url && addressForm.submit) steps.push({ action: 'submit', selector: addressForm.submit, url: pay.url });
      else steps.push({ action: 'click', selector: checkout.analysis.link_selectors[pay.url] ?? addressForm.submit ?? 'button', url: pay.url });
      steps.push(...fillSteps(payForm));
    }
    const evidence = [...(cart ? ['cart with items links to checkout'] : []), 'address form', ...(pay ? ['card payment form'] : [])];
    add({ key: `checkout ${checkout.url}`, type: 'checkout', pages: stages.map((s) => s.url), steps, confidence: 0.3 * stages.length + 0.05, evidence });
  }

  // CRUD: a page listing records whose scripts write to the resource it reads.
  const cruds = new Set<string>();
  for (const p of pages) {
    const writes = p.analysis.writes;
    if (!writes.length || !p.analysis.lists.length) continue;
    const byResource = new Map<string, Set<string>>();
    for (const w of writes) byResource.set(resourceOf(w.endpoint), (byResource.get(resourceOf(w.endpoint)) ?? new Set()).add(w.method));
    for (const r of p.analysis.reads) if (byResource.has(resourceOf(r.endpoint))) byResource.get(resourceOf(r.endpoint))!.add('GET');
    for (const [resource, methods] of byResource) {
      if (methods.size < 2 || cruds.has(resource)) continue;
      cruds.add(resource);
      const form = p.analysis.forms.find((f) => !claimed.has(`${p.url} ${f.selector}`) && f.fields.some(isTextual));
      if (form) claim(p, form);
      // Interactive sessions saw the writes happen: the calls and what they answered back the flow.
      const seen = (p.analysis.observed ?? []).filter((o) => o.method !== 'GET' && resourceOf(o.endpoint) === resource);
      const answered = [...new Set(seen.map((o) => `${o.method} ${o.endpoint} ${o.status}`))].sort();
      add({
        key: `crud ${resource}`,
        type: 'crud',
        pages: [p.url],
        steps: [{ action: 'navigate', url: p.url }, ...(form ? [...fillSteps(form), ...(form.submit ? [{ action: 'submit' as const, selector: form.submit }] : [])] : [])],
        confidence: Math.min(1, 0.2 + 0.2 * methods.size + (answered.length ? 0.1 : 0)),
        evidence: [`${[...methods].sort().join(', ')} on ${resource}`, 'record list on the page', ...(answered.length ? [`observed ${answered.join(', ')}`] : [])],
      });
    }
  }

  // Navigation: a menu that several pages share.
  const menus = new Map<string, { pages: AnalyzedPage[]; hrefs: string[]; location: string }>();
  for (const p of pages) {
    for (const n of p.analysis.navs) {
      const key = `${n.selector} ${n.hrefs.join(' ')}`;
      const m = menus.get(key) ?? { pages: [], hrefs: n.hrefs, location: n.location };
      m.pages.push(p);
      menus.set(key, m);
    }
  }
  // A menu inside another with the same links (a nav in a header) is one menu.
  const sameLinks = new Set<string>();
  for (const [key, m] of menus) {
    const targets = [...new Set(m.hrefs)].filter((h) => byUrl.has(h));
    if (m.pages.length < 2 || targets.length < 2) continue;
    const links = [...new Set(m.hrefs)].sort().join(' ');
    if (sameLinks.has(links)) continue;
    sameLinks.add(links);
    const start = m.pages[0]!;
    const steps: FlowStep[] = [{ action: 'navigate', url: start.url }];
    let at = start;
    for (const t of targets.slice(0, 5)) {
      if (t === at.url) continue; // a link to the page it is on leads nowhere new
      const selector = at.analysis.link_selectors[t];
      if (!selector) break;
      steps.push({ action: 'click', selector, url: t });
      at = byUrl.get(t)!;
    }
    add({
      key: `navigation ${key}`,
      type: 'navigation',
      pages: targets,
      steps,
      confidence: 0.4 + Math.min(0.3, 0.05 * m.pages.length) + Math.min(0.3, 0.05 * targets.length),
      evidence: [`${m.location} menu on ${m.pages.length} pages`, `${targets.length} crawled targets`],
    });
  }

  // Browsing a list: a page linking three or more crawled pages of one kind (`/products/{item}`), outside its menus,
  // opened from the list as a person would. The first page a kind is listed on stands for it.
  const listed = new Set<string>();
  for (const p of pages) {
    const menuLinks = new Set(p.analysis.navs.flatMap((n) => n.hrefs));
    const kinds = new Map<string, Map<string, string>>(); // template → path → url
    for (const url of p.analysis.links) {
      if (url === p.url || menuLinks.has(url) || !byUrl.has(url) || !p.analysis.link_selectors[url]) continue;
      const template = itemTemplate(url);
      if (!template) continue;
      const items = kinds.get(template) ?? new Map<string, string>();
      if (!items.has(new URL(url).pathname)) items.set(new URL(url).pathname, url);
      kinds.set(template, items);
    }
    for (const [template, items] of kinds) {
      if (items.size < 3 || listed.has(template)) continue;
      listed.add(template);
      const first = [...items.values()][0]!;
      const heading = byUrl.get(first)!.analysis.headings.length > 0;
      add({
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

  // Form submission: every other form with fields and a submit button.
  for (const p of pages) {
    for (const form of p.analysis.forms) {
      if (claimed.has(`${p.url} ${form.selector}`) || !form.submit || form.fields.length === 0) continue;
      const labelled = form.fields.filter((f) => f.label).length;
      // Interactive sessions submitted it: what the submission called and what it answered.
      const submitted = [...new Set((p.analysis.observed ?? []).filter((o) => o.cause === `form ${form.selector}`).map((o) => `${o.method} ${o.endpoint} ${o.status}`))].sort();
      add({
        key: `form ${p.url} ${form.selector}`,
        type: 'form_submission',
        pages: [p.url, ...(form.action && form.action !== p.url ? [form.action] : [])],
        steps: [{ action: 'navigate', url: p.url }, ...fillSteps(form), { action: 'submit', selector: form.submit }],
        confidence: Math.min(1, 0.5 + (labelled === form.fields.length ? 0.2 : 0) + (form.method === 'post' || !form.action ? 0.2 : 0) + (submitted.length ? 0.1 : 0)),
        evidence: [`form of ${form.fields.length} field(s)`, ...(labelled ? [`${labelled} labelled`] : []), ...(submitted.length ? [`submitted: ${submitted.join(', ')}`] : [])],
      });
    }
  }
  return flows;
}

/**
 * The summary's discovery_confidence: the mean evidence of the flows (0
 * without any), lowered once for each kind of warning the session carries
 * (a crawl that saw only an empty shell is not confident, whatever it found).
 */
export function discoveryConfidence(flows: Array<{ confidence: number }>, warnings: SessionWarning[] = []): number {
  if (!flows.length) return 0;
  return round((flows.reduce((s, f) => s + f.confidence, 0) / flows.length) * confidenceFactor(warnings));
}
