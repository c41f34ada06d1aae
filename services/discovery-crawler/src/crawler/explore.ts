import { randomBytes, randomInt } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { FieldInfo, FormInfo, PanelInfo, RecordsInfo, TypeAheadInfo } from '../db/database.js';
import { exploreRecords } from './records.js';
import type { ClientRoute, SectionMove } from './client-routes.js';
import { IN_PAGE } from './in-page.js';
import type { ApiCall, PageState } from './page-state.js';

/**
 * Interactive exploration (sessions with `interactive: true`): what the app
 * does, not only what it links. Fills the page's visible forms with generated,
 * plausible values and submits them, and clicks its in-page buttons, so the
 * XHR/fetch calls and form posts they cause can be recorded.
 *
 * Safety, besides the session being opt-in: the page loader lets no GET
 * navigation leave the page while exploring (a button that navigates away is
 * not followed) and sends a form post without rendering its answer; every
 * connection goes through the context's egress proxy; the crawler explores
 * only pages robots.txt allows and the egress policy accepts; payment forms
 * (card fields) and sign-out, unsubscribe, purchase and account-deletion
 * buttons are never touched; each page gets at most `maxActions` actions
 * within `budgetMs`.
 */
export interface ExploreLimits {
  /** The session allows writes: records may be created, edited and deleted (and are, to find crud flows). */
  allowWrites?: boolean;
  /** Forms submitted plus buttons clicked, per page. */
  maxActions: number;
  /** Time for the whole page (ms). */
  budgetMs: number;
}

// The time cap only binds on a slow or busy machine (the action count binds first on a quiet one): 8 s left
// Verdaccio's sign-in dialog unexplored under a load average of 15 (fresh-clone CI, 2 cores).
export const DEFAULT_EXPLORE_LIMITS: ExploreLimits = { maxActions: 8, budgetMs: 15_000 };

/** One action taken: what it was and the selector it acted on. */
export interface ExploreAction {
  kind: 'form' | 'button' | 'search';
  selector: string;
}

/** What exploring found besides the calls: routes buttons led to, what they opened, search boxes that suggest. */
export interface ExploreFindings {
  routes: ClientRoute[];
  /** Clicks that moved the page to a part of itself (an in-page menu). */
  sections?: SectionMove[];
  /** Controls left untried when the page's action or time budget ran out. */
  untried?: number;
  /** Writes allowed: an item created, edited and deleted through the page. */
  records?: RecordsInfo;
  panels: PanelInfo[];
  typeahead: TypeAheadInfo[];
}

export interface ExploreHooks {
  /** Names the action about to happen: the calls it causes are recorded against it. */
  mark(action: ExploreAction): void;
  /** Waits until the page is still again; answers its state. */
  settle(): Promise<PageState>;
  state(): Promise<PageState>;
  /** Calls recorded so far (a count), and those recorded since a count. */
  callCount(): number;
  callsSince(n: number): ApiCall[];
}

const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Katherine', 'Linus', 'Margaret', 'Tim', 'Barbara'];
const LAST_NAMES = ['Lovelace', 'Hopper', 'Turing', 'Johnson', 'Torvalds', 'Hamilton', 'Berners-Lee', 'Liskov'];
const pick = <T>(xs: T[]) => xs[randomInt(xs.length)]!;

/**
 * A plausible value for a form field, from its type, autocomplete, name and
 * label. Secrets (passwords, one-time codes) are fresh random strings every
 * call: never the same secret twice.
 */
export function valueFor(field: Pick<FieldInfo, 'type' | 'name' | 'label' | 'autocomplete' | 'tag'>, now = new Date(), origin?: string): string {
  const hint = `${field.autocomplete} ${field.name} ${field.label}`.toLowerCase();
  const type = field.type.toLowerCase();
  if (type === 'password' || /password|one-time-code|secret|token|pin\b/.test(hint)) return `Aa1!${randomBytes(12).toString('base64url')}`;
  if (type === 'email' || /e-?mail|username/.test(hint)) return `${pick(FIRST_NAMES).toLowerCase()}.${randomBytes(3).toString('hex')}@example.com`;
  if (type === 'tel' || /phone|tel\b|mobile/.test(hint)) return `+1 555 01${String(randomInt(100)).padStart(2, '0')}`;
  // The page's own origin where there is one: an address field never points the app at another host.
  if (type === 'url' || /\burl\b|website/.test(hint)) return origin ? `${origin}/` : 'https://example.com/';
  if (type === 'date') return now.toISOString().slice(0, 10);
  if (type === 'datetime-local') return now.toISOString().slice(0, 16);
  if (type === 'time') return '10:30';
  if (type === 'month') return now.toISOString().slice(0, 7);
  if (type === 'number' || type === 'range' || /quantity|qty|amount|\bage\b|\bcount\b/.test(hint)) return String(randomInt(1, 10));
  if (/given-name|first.?name/.test(hint)) return pick(FIRST_NAMES);
  if (/family-name|last.?name|surname/.test(hint)) return pick(LAST_NAMES);
  if (/\bname\b|full.?name/.test(hint)) return `${pick(FIRST_NAMES)} ${pick(LAST_NAMES)}`;
  if (/postal|zip/.test(hint)) return String(randomInt(10000, 99999));
  if (/street|address/.test(hint)) return `${randomInt(1, 200)} Market Street`;
  if (/city|town/.test(hint)) return 'Springfield';
  if (/country/.test(hint)) return 'Ireland';
  if (type === 'search' || /search|\bq\b|query/.test(hint)) return 'test';
  if (field.tag === 'textarea' || /message|comment|note|description/.test(hint)) return 'Hello from an Assay discovery run.';
  return `Assay ${randomBytes(2).toString('hex')}`;
}

/** Card fields: a form with one is never submitted. */
const isPayment = (form: FormInfo) => form.fields.some((f) => /^cc-/.test(f.autocomplete) || /card|cvc|cvv/i.test(`${f.name} ${f.label}`));

/** Buttons never clicked, by their text. */
const RISKY = /log ?out|sign ?out|unsubscribe|delete (my )?account|close (my )?account|\bpay\b|buy|purchase|place order|checkout/i;

// Marks the visible, enabled in-page buttons outside forms not tried yet and answers their
// signatures; buttons that say they open something (aria-haspopup, aria-expanded, aria-controls)
// come first, then those in the page's header and navigation, then the rest.
const MARK_BUTTONS = new Function(
  'tried',
  IN_PAGE +
    `const out = [];
  // Links that go nowhere (href "#" or javascript:) are buttons by what they do: a menu or dialog opener.
  const all = document.querySelectorAll('button, input[type=button], [role=button], a[href="#"], a[href^="javascript:"]');
  const realLink = (el) => { const a = el.closest('a[href]'); return !!a && !/^(#$|javascript:)/i.test(a.getAttribute('href') || ''); };
  let n = 0;
  for (const old of document.querySelectorAll('[data-assay-explore]')) old.removeAttribute('data-assay-explore');
  for (const b of all) {
    // Not focusable (tabindex=-1): a widget's inner control (a combobox's arrow), not a button a person tabs to.
    if (b.closest('form') || realLink(b) || b.disabled || b.getAttribute('aria-disabled') === 'true' || b.getAttribute('tabindex') === '-1') continue;
    const r = b.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || (b.checkVisibility && !b.checkVisibility({ visibilityProperty: true }))) continue;
    const text = (b.innerText || b.value || b.getAttribute('aria-label') || b.getAttribute('title') || '').replace(/\\s+/g, ' ').trim().slice(0, 80);
    // Its text and stable selector: a class list changes with focus and state, so it would make one button two.
    const selector = selectorOf(b);
    const sig = text + ' ' + selector;
    if (tried.includes(sig)) continue;
    b.setAttribute('data-assay-explore', String(n));
    // A button that says it opens something, or that signs in (a dialog behind it, often with no ARIA to say so).
    const opens = b.hasAttribute('aria-haspopup') || b.getAttribute('aria-expanded') === 'false' || b.hasAttribute('aria-controls') || /^(sign ?in|log ?in|authori[sz]e|sign ?up|register)$/i.test(text);
    const chrome = !!b.closest('header, nav, [role=banner], [role=navigation], [role=toolbar]');
    out.push({ index: n++, text: text || nameOf(b).slice(0, 80), sig, selector, rank: opens ? 0 : chrome ? 1 : 2 });
  }
  return out.sort((a, b) => a.rank - b.rank || a.index - b.index);`,
) as (tried: string[]) => Array<{ index: number; text: string; sig: string; selector: string; rank: number }>;

const REQUEST_SUBMIT = new Function('form', 'form.requestSubmit()') as (form: unknown) => void;

// Marks what is open before an action (dialogs, menus, list boxes, the targets of aria-controls).
const OPEN_CONTAINERS = `document.querySelectorAll('dialog[open], [role=dialog], [aria-modal=true], [role=alertdialog], [role=menu], [role=listbox], [role=tabpanel], [role=region][aria-labelledby]')`;
const MARK_OPEN = new Function(IN_PAGE + `for (const el of ${OPEN_CONTAINERS}) if (visible(el)) el.setAttribute('data-assay-open', '');`) as () => void;

// After the button was clicked: what opened (visible now, not marked before), read like a page.
const READ_OPENED = new Function(
  'opener',
  IN_PAGE +
    `
  const button = document.querySelector('[data-assay-explore="' + opener + '"]');
  const fresh = [];
  for (const el of ${OPEN_CONTAINERS}) if (visible(el) && !el.hasAttribute('data-assay-open') && !fresh.some((f) => f.contains(el))) fresh.push(el);
  const controlled = button && button.getAttribute('aria-controls') && document.getElementById(button.getAttribute('aria-controls'));
  if (controlled && visible(controlled) && !controlled.hasAttribute('data-assay-open') && !fresh.some((f) => f.contains(controlled))) fresh.push(controlled);
  const el = fresh[0];
  if (!el) return null;
  const role = el.getAttribute('role') || (el.tagName === 'DIALOG' ? 'dialog' : '');
  const kind = role === 'dialog' || role === 'alertdialog' || el.tagName === 'DIALOG' || el.getAttribute('aria-modal') === 'true' ? 'dialog' : role === 'menu' ? 'menu' : role === 'listbox' ? 'listbox' : 'panel';
  const forms = readForms(el, true).filter((f) => f.fields.some((x) => !['checkbox', 'radio', 'select', 'range', 'file', 'hidden'].includes(x.type)));
  const links = Array.from(el.querySelectorAll('a[href]')).map((a) => a.href).slice(0, 100);
  const title = el.getAttribute('aria-label') || (el.getAttribute('aria-labelledby') && document.getElementById(el.getAttribute('aria-labelledby')) ? textOf(document.getElementById(el.getAttribute('aria-labelledby'))) : '') || (el.querySelector('h1, h2, h3, h4, h5, h6') ? textOf(el.querySelector('h1, h2, h3, h4, h5, h6')) : '');
  return { kind, selector: selectorOf(el), title: title.slice(0, 120), forms, links };`,
) as (opener: number) => { kind: PanelInfo['kind']; selector: string; title: string; forms: FormInfo[]; links: string[] } | null;

// Marks the fields a person can fill now, so fields a click makes appear (or editable) can be told apart.
const MARK_FIELDS = new Function(IN_PAGE + `for (const el of document.querySelectorAll('input, textarea, select')) if (visible(el) && !el.disabled && !el.readOnly) el.setAttribute('data-assay-seen', '');`) as () => void;

const IS_EXPANDED = new Function('index', `const b = document.querySelector('[data-assay-explore="' + index + '"]'); return !!b && b.getAttribute('aria-expanded') === 'true';`) as (index: number) => boolean;

// After a click that opened no dialog, menu or list box: fields that appeared or became editable, read as forms
// (those around them holding a button), with what holds them all.
const READ_NEW_FIELDS = new Function(
  IN_PAGE +
    `
  const fresh = Array.from(document.querySelectorAll('input, textarea, select')).filter((el) => visible(el) && !el.disabled && !el.readOnly && !el.hasAttribute('data-assay-seen') && isField(el));
  if (!fresh.length) return null;
  let root = fresh[0].parentElement;
  while (root && root !== document.body && !fresh.every((f) => root.contains(f))) root = root.parentElement;
  while (root && root !== document.body && !root.querySelector(BUTTONS)) root = root.parentElement;
  // Inside a form: read from around it, so the form itself is read.
  if (root && root.closest('form')) root = root.closest('form').parentElement;
  if (!root) return null;
  const forms = readForms(root, true).filter((f) => f.fields.some((x) => fresh.some((el) => selectorOf(el) === x.selector)));
  if (!forms.length) return null;
  const r = root.getBoundingClientRect();
  const heading = root.querySelector('h1, h2, h3, h4, h5, h6');
  return { kind: 'panel', selector: selectorOf(root), title: heading ? textOf(heading).slice(0, 120) : '', forms, links: [], covers: getComputedStyle(root).position === 'fixed' || r.width * r.height > 0.5 * innerWidth * innerHeight };`,
) as () => { kind: 'panel'; selector: string; title: string; forms: FormInfo[]; links: string[]; covers: boolean } | null;

const STILL_OPEN = new Function('selector', IN_PAGE + `try { const el = document.querySelector(selector); return !!el && visible(el); } catch { return false; } `) as (selector: string) => boolean;

// Search boxes: a search input or box, a combobox, or a text input whose label or placeholder says search; and a term from the page's own text.
const FIND_SEARCH_BOXES = new Function(
  IN_PAGE +
    `
  const SEARCHY = /search|find|filter|look ?up|query/i;
  const boxes = [];
  for (const el of document.querySelectorAll('input, textarea, [role=searchbox], [role=combobox]')) {
    if (el.tagName === 'SELECT' || !visible(el) || el.disabled || el.readOnly) continue;
    const type = (el.getAttribute('type') || 'text').toLowerCase();
    if (el.tagName === 'INPUT' && type !== 'text' && type !== 'search') continue;
    const role = roleOf(el);
    const hint = [el.getAttribute('placeholder'), el.getAttribute('aria-label'), labelOf(el), el.getAttribute('name'), el.id].join(' ');
    if (type === 'search' || role === 'searchbox' || role === 'combobox' || SEARCHY.test(hint)) boxes.push({ selector: selectorOf(el), label: labelOf(el).slice(0, 100) || (el.getAttribute('placeholder') || '') });
  }
  // A term from what the page shows: the first word of three letters or more in a link of its main content, else a heading.
  const texts = [];
  for (const a of document.querySelectorAll('main a[href], [role=main] a[href], article a[href], li a[href], a[href]')) {
    if (a.closest('header, nav, footer, [role=banner], [role=navigation]') || !visible(a)) continue;
    const t = textOf(a);
    if (t && t.length <= 60) texts.push(t);
    if (texts.length >= 20) break;
  }
  for (const h of document.querySelectorAll('h1, h2, h3')) if (visible(h)) texts.push(textOf(h));
  // Up to four words to try, a link's and a heading's in turn: a search that finds nothing for one may for the next.
  const words = (list) => { const out = []; for (const t of list) { const w = (t.match(/[\\p{L}\\p{N}]{3,}/u) || [])[0]; if (w) out.push(w.slice(0, 20)); } return out; };
  const headingTexts = Array.from(document.querySelectorAll('h1, h2, h3')).filter(visible).map(textOf);
  const fromLinks = words(texts.slice(0, texts.length - headingTexts.length)), fromHeadings = words(headingTexts);
  const terms = [];
  for (let i = 0; terms.length < 4 && (i < fromLinks.length || i < fromHeadings.length); i++) {
    for (const w of [fromLinks[i], fromHeadings[i]]) if (w && terms.length < 4 && !terms.some((x) => x.toLowerCase() === w.toLowerCase())) terms.push(w);
  }
  return { boxes: boxes.slice(0, 3), terms };`,
) as () => { boxes: Array<{ selector: string; label: string }>; terms: string[] };

// Watches what typing adds to the page (results rendered by script, with or without a call).
const WATCH_ADDED = new Function(`
  if (window.__assayAddedObserver) window.__assayAddedObserver.disconnect();
  const added = [];
  window.__assayAdded = added;
  window.__assayAddedObserver = new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) if (added.length < 500) added.push(n.nodeType === 1 ? n : n.parentElement);
  });
  window.__assayAddedObserver.observe(document.body, { subtree: true, childList: true, characterData: true });`) as () => void;

// The results typing rendered: the smallest element holding every visible element it added that mentions the term.
const READ_ADDED = new Function(
  'term',
  IN_PAGE +
    `
  if (window.__assayAddedObserver) window.__assayAddedObserver.disconnect();
  const t = term.toLowerCase();
  const hits = (window.__assayAdded || []).filter((el) => el && el.isConnected && el !== document.body && visible(el) && textOf(el).toLowerCase().includes(t) && !el.matches('input, textarea'));
  if (!hits.length) return null;
  // The list holding most of them (other parts of the page may re-render too); else what holds them all.
  const counts = new Map();
  const LISTS = 'ul, ol, [role=listbox], [role=menu], [role=list], [role=grid], table';
  // A list the hit sits in, or one it brought along (a block added whole, the list inside it).
  const listOf = (h) => h.closest(LISTS) || Array.from(h.querySelectorAll(LISTS)).find((l) => visible(l) && textOf(l).toLowerCase().includes(t));
  for (const h of hits) { const c = listOf(h); if (c) counts.set(c, (counts.get(c) || 0) + 1 + (c.contains(h) && c !== h ? 0 : 1)); }
  let box = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (!box) { box = hits[0]; while (box && box !== document.body && !hits.every((h) => box.contains(h))) box = box.parentElement; }
  if (!box || box === document.body || box.querySelector('input[type=search], input[type=text]:not([readonly])') && box.querySelectorAll('*').length > 400) return null;
  const items = box.querySelectorAll('li, a[href], [role=option], [role=menuitem], article').length;
  return { selector: selectorOf(box), options: Math.max(items, hits.length), text: textOf(box).slice(0, 300) };`,
) as (term: string) => { selector: string; options: number; text: string } | null;

// After typing: the suggestions shown for the box (its aria-controls/aria-owns target, else a visible list box) and their count.
const READ_SUGGESTIONS = new Function(
  'selector',
  IN_PAGE +
    `
  let input; try { input = document.querySelector(selector); } catch { input = null; }
  const ids = input ? [input.getAttribute('aria-controls'), input.getAttribute('aria-owns')].filter(Boolean) : [];
  let list = ids.map((id) => document.getElementById(id)).find((el) => el && visible(el));
  if (!list) list = Array.from(document.querySelectorAll('[role=listbox]')).find(visible);
  if (!list) return null;
  const options = list.querySelectorAll('[role=option]').length || list.querySelectorAll('li').length;
  return { selector: selectorOf(list), options, text: textOf(list).slice(0, 300) };`,
) as (selector: string) => { selector: string; options: number; text: string } | null;

/** Whether a call's URL carries a typed word (in its path or query, encoded or not). */
function carries(url: string, word: string): boolean {
  let decoded = url;
  try {
    decoded = decodeURIComponent(url.replace(/\+/g, ' '));
  } catch {
    // A malformed escape: the URL as it is.
  }
  return decoded.toLowerCase().includes(word.toLowerCase());
}

/**
 * The calls typing `term` made: not documents, and not a call that carries a word typed before (`tried`)
 * and not this one, which is that typing's, made late (a debounced type-ahead on a busy machine).
 */
export function callsOfTyping<C extends { url: string; document?: boolean }>(calls: C[], term: string, tried: string[]): C[] {
  return calls.filter((c) => !c.document && (carries(c.url, term) || !tried.some((t) => carries(c.url, t))));
}

/**
 * Types a word of the page's own text into each search box (at most two), key
 * by key as a person does, so a type-ahead calls its API or a script renders
 * results; records the calls and the results shown (a list box the box
 * controls, else what typing added that mentions the word), trying up to three
 * words until one shows something, then clears the box. `opener`: the click
 * that made the boxes appear (a search dialog).
 */
async function exploreSearchBoxes(page: Page, hooks: ExploreHooks, done: ExploreAction[], limits: ExploreLimits, left: () => number, sessionTried: Set<string>, opener?: { selector: string; known: Set<string> }): Promise<TypeAheadInfo[]> {
  const found: TypeAheadInfo[] = [];
  const { boxes, terms } = await page.evaluate(FIND_SEARCH_BOXES).catch(() => ({ boxes: [], terms: [] as string[] }));
  if (!terms.length) return found;
  for (const box of boxes.slice(0, 2)) {
    if (done.length >= limits.maxActions || left() <= 0) break;
    // The same box in every page's header is typed into once per session; one a click opened, only if it was not there before.
    if (sessionTried.has(`search ${box.selector}`) || opener?.known.has(box.selector)) continue;
    sessionTried.add(`search ${box.selector}`);
    const action: ExploreAction = { kind: 'search', selector: box.selector };
    try {
      const input = page.locator(box.selector).first();
      const tried: string[] = [];
      for (const term of terms) {
        if (left() <= 0) break;
        await input.click({ timeout: 2000 });
        hooks.mark(action);
        const before = hooks.callCount();
        await page.evaluate(WATCH_ADDED).catch(() => undefined);
        await input.pressSequentially(term, { delay: 60, timeout: 5000 });
        done.push(action);
        await hooks.settle();
        const calls = callsOfTyping(hooks.callsSince(before), term, tried);
        tried.push(term);
        const shown = (await page.evaluate(READ_SUGGESTIONS, box.selector).catch(() => null)) ?? (await page.evaluate(READ_ADDED, term).catch(() => null));
        await input.fill('', { timeout: 2000 });
        const suggestions = shown && shown.options > 0 ? { selector: shown.selector, options: shown.options, matches_term: shown.text.toLowerCase().includes(term.toLowerCase()) } : null;
        if (!calls.length && !suggestions && term !== terms[terms.length - 1]) continue;
        found.push({ selector: box.selector, label: box.label, term, calls: calls.map((c) => ({ method: c.method, url: c.url, status: c.status })), suggestions, ...(opener ? { opener: opener.selector } : {}) });
        break;
      }
      if (!opener) {
        await page.keyboard.press('Escape');
        await hooks.settle();
      }
    } catch {
      // Covered, gone or not editable after all: on to the next one.
    }
  }
  return found;
}

/**
 * Fills and submits the page's forms (from the extract), then clicks its
 * in-page buttons one at a time, calling `settle` after each action so the
 * calls it caused are recorded against it (`mark` names the action first).
 * Search boxes are typed into first. A button that opens something (a dialog,
 * a menu, a panel) has what it opened read (its forms and links) and closed
 * again; a button that moves a client-side router records the route and goes
 * back.
 */
export async function explorePage(page: Page, forms: FormInfo[], limits: ExploreLimits, sessionTried: Set<string>, hooks: ExploreHooks): Promise<ExploreFindings> {
  const deadline = Date.now() + limits.budgetMs;
  const left = () => deadline - Date.now();
  const timeout = () => Math.max(100, Math.min(2000, left()));
  const done: ExploreAction[] = [];
  const findings: ExploreFindings = { routes: [], panels: [], typeahead: [] };
  findings.typeahead = await exploreSearchBoxes(page, hooks, done, limits, left, sessionTried);
  if (limits.allowWrites && !sessionTried.has('records')) {
    const records = await exploreRecords(page, { settle: () => hooks.settle(), mark: (cause) => hooks.mark({ kind: 'form', selector: cause }) }, timeout());
    if (records) {
      // Once per session: the same box on every page is the same records.
      sessionTried.add('records');
      findings.records = records;
    }
  }
  // Boxes there from the start: one that appears after a click is a search the click opened.
  const known = new Set((await page.evaluate(FIND_SEARCH_BOXES).catch(() => ({ boxes: [] }))).boxes.map((b) => b.selector));
  for (const form of forms) {
    if (done.length >= limits.maxActions || left() <= 0) return { ...findings, untried: forms.length };
    if (!form.fields.length || isPayment(form)) continue;
    if (!(await page.locator(form.selector).first().isVisible().catch(() => false))) continue;
    await submitForm(page, form, hooks, done, timeout);
  }
  const tried: string[] = [];
  let home = (await hooks.state()).href;
  // Buttons clicked on this page that expanded something (aria-expanded): what a later opener may sit in.
  const expanders: string[] = [];
  while (done.length < limits.maxActions && left() > 0) {
    await page.evaluate(MARK_OPEN).catch(() => undefined);
    await page.evaluate(MARK_FIELDS).catch(() => undefined);
    const buttons = await page.evaluate(MARK_BUTTONS, tried).catch(() => []);
    // Buttons of the page's chrome (header, navigation) and openers are the same on every page: clicked once per session.
    const seen = (b: { rank: number; sig: string }) => b.rank <= 1 && sessionTried.has(`button ${b.sig}`);
    const next = buttons.find((b) => !RISKY.test(b.text) && !seen(b));
    for (const b of buttons) if (RISKY.test(b.text) || seen(b)) tried.push(b.sig);
    if (!next) break;
    tried.push(next.sig);
    if (next.rank <= 1) sessionTried.add(`button ${next.sig}`);
    const action: ExploreAction = { kind: 'button', selector: `[data-assay-explore="${next.index}"]` };
    hooks.mark({ kind: 'button', selector: next.text || next.selector });
    try {
      await page.locator(action.selector).first().click({ timeout: timeout() });
      done.push(action);
      const after = await hooks.settle();
      if (after.href !== home) {
        findings.routes.push({ url: after.href, selector: next.selector, text: next.text });
        await page.goBack({ timeout: timeout() }).catch(() => undefined);
        const back = (await hooks.settle()).href;
        // A route set with replaceState leaves no step to go back to: still the same document, so on from there.
        if (back !== home && back.replace(/#.*$/, '') !== home.replace(/#.*$/, '')) break;
        home = back;
        continue;
      }
      if (!(await afterClick(page, next, findings, { hooks, done, limits, left, timeout, sessionTried, known, expanders }))) break;
    } catch {
      // Gone or covered after an earlier click: try the next one.
    }
  }
  // The budget ran out with buttons still to try: the page was not explored whole.
  if (done.length >= limits.maxActions || left() <= 0) {
    const rest = (await page.evaluate(MARK_BUTTONS, tried).catch(() => [])).filter((b) => !RISKY.test(b.text)).length;
    if (rest) findings.untried = rest;
  }
  return findings;
}

interface ClickContext {
  hooks: ExploreHooks;
  done: ExploreAction[];
  limits: ExploreLimits;
  left: () => number;
  timeout: () => number;
  sessionTried: Set<string>;
  /** Search boxes on the page before any click. */
  known: Set<string>;
  expanders: string[];
}

/**
 * What a click that kept the page where it was did: a search box it made appear is typed into; what it opened (a
 * dialog, a menu, a panel, or fields that appeared or became editable: a form behind "Try it out") is read, its
 * non-password form filled and submitted (its calls recorded against it; writes held unless allowed), and a
 * dialog closed again. Answers false when what opened could not be closed (the page is left then).
 */
async function afterClick(page: Page, next: { index: number; selector: string; text: string }, findings: ExploreFindings, c: ClickContext): Promise<boolean> {
  const before = c.expanders.filter((e) => e !== next.selector);
  if (await page.evaluate(IS_EXPANDED, next.index).catch(() => false)) c.expanders.push(next.selector);
  // A search box the click made appear (a search dialog): typed into before it is closed.
  const opens = await exploreSearchBoxes(page, c.hooks, c.done, c.limits, c.left, c.sessionTried, { selector: next.selector, known: c.known });
  findings.typeahead.push(...opens);
  const opened = (await page.evaluate(READ_OPENED, next.index).catch(() => null)) ?? (await page.evaluate(READ_NEW_FIELDS).catch(() => null));
  if (!opened) {
    if (opens.length) await page.keyboard.press('Escape').catch(() => undefined);
    return true;
  }
  const { covers, ...panel } = { covers: false, ...opened };
  findings.panels.push({ ...panel, opener: next.selector, opener_text: next.text, ...(before.length ? { before } : {}) });
  for (const form of opened.forms) {
    if (form.fields.some((f) => f.type === 'password') || !form.submit || c.done.length >= c.limits.maxActions || c.left() <= 0) continue;
    await submitForm(page, form, c.hooks, c.done, c.timeout);
  }
  // Left open, a dialog, a menu or a list box would cover what the next clicks aim at; a part of the page it showed may stay.
  const covering = opened.kind !== 'panel' || ('covers' in opened && covers);
  return covering ? closePanel(page, opened.selector, c.hooks, c.timeout) : true;
}

/** Fills a form's visible, editable fields with plausible values and submits it, recording the calls against it. */
async function submitForm(page: Page, form: FormInfo, hooks: ExploreHooks, done: ExploreAction[], timeout: () => number): Promise<void> {
  const action: ExploreAction = { kind: 'form', selector: form.selector };
  try {
    for (const field of form.fields) {
      const el = page.locator(field.selector).first();
      if (!(await el.isVisible().catch(() => false)) || !(await el.isEditable().catch(() => false))) continue;
      const type = field.type.toLowerCase();
      if (type === 'checkbox' || type === 'radio') await el.check({ timeout: timeout() });
      else if (type === 'file') continue;
      else if (field.tag === 'select') await el.selectOption({ index: (await el.locator('option').count()) > 1 ? 1 : 0 }, { timeout: timeout() });
      // A value the page put there (a default, the address of what it shows) is kept, as a person keeps it.
      else if (!(await el.inputValue({ timeout: timeout() }).catch(() => ''))) await el.fill(valueFor(field, new Date(), new URL(page.url()).origin), { timeout: timeout() });
    }
    hooks.mark(action);
    if (form.submit) await page.locator(form.submit).first().click({ timeout: timeout() });
    else await page.locator(form.selector).first().evaluate(REQUEST_SUBMIT, undefined, { timeout: timeout() });
    done.push(action);
    await hooks.settle();
  } catch {
    // A field that would not take a value, a button that never became clickable: on to the next form.
  }
}

/** Closes what a button opened: Escape, else its close button; answers whether it closed. */
async function closePanel(page: Page, selector: string, hooks: ExploreHooks, timeout: () => number): Promise<boolean> {
  await page.keyboard.press('Escape').catch(() => undefined);
  await hooks.settle();
  if (!(await page.evaluate(STILL_OPEN, selector).catch(() => false))) return true;
  const close = page.locator(selector).locator('button, [role=button]').filter({ hasText: /^(×|✕|x|close|cancel|dismiss)$/i });
  const byLabel = page.locator(selector).locator('[aria-label*="close" i], [title*="close" i], [data-testid*="close" i]');
  for (const candidate of [byLabel, close]) {
    if (!(await candidate.count().catch(() => 0))) continue;
    await candidate.first().click({ timeout: timeout() }).catch(() => undefined);
    await hooks.settle();
    if (!(await page.evaluate(STILL_OPEN, selector).catch(() => false))) return true;
  }
  return false;
}
