import { randomBytes, randomInt } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { FieldInfo, FormInfo } from '../db/database.js';

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
  /** Forms submitted plus buttons clicked, per page. */
  maxActions: number;
  /** Time for the whole page (ms). */
  budgetMs: number;
}

export const DEFAULT_EXPLORE_LIMITS: ExploreLimits = { maxActions: 8, budgetMs: 8000 };

/** One action taken: what it was and the selector it acted on. */
export interface ExploreAction {
  kind: 'form' | 'button';
  selector: string;
}

const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Katherine', 'Linus', 'Margaret', 'Tim', 'Barbara'];
const LAST_NAMES = ['Lovelace', 'Hopper', 'Turing', 'Johnson', 'Torvalds', 'Hamilton', 'Berners-Lee', 'Liskov'];
const pick = <T>(xs: T[]) => xs[randomInt(xs.length)]!;

/**
 * A plausible value for a form field, from its type, autocomplete, name and
 * label. Secrets (passwords, one-time codes) are fresh random strings every
 * call: never the same secret twice.
 */
export function valueFor(field: Pick<FieldInfo, 'type' | 'name' | 'label' | 'autocomplete' | 'tag'>, now = new Date()): string {
  const hint = `${field.autocomplete} ${field.name} ${field.label}`.toLowerCase();
  const type = field.type.toLowerCase();
  if (type === 'password' || /password|one-time-code|secret|token|pin\b/.test(hint)) return `Aa1!${randomBytes(12).toString('base64url')}`;
  if (type === 'email' || /e-?mail|username/.test(hint)) return `${pick(FIRST_NAMES).toLowerCase()}.${randomBytes(3).toString('hex')}@example.com`;
  if (type === 'tel' || /phone|tel\b|mobile/.test(hint)) return `+1 555 01${String(randomInt(100)).padStart(2, '0')}`;
  if (type === 'url' || /\burl\b|website/.test(hint)) return 'https://example.com/';
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

// Marks the visible, enabled in-page buttons outside forms not tried yet and answers their signatures.
const MARK_BUTTONS = new Function(
  'tried',
  `const out = [];
  const all = document.querySelectorAll('button, input[type=button], [role=button]');
  let n = 0;
  for (const b of all) {
    if (b.closest('form') || b.closest('a[href]') || b.disabled || b.getAttribute('aria-disabled') === 'true') continue;
    const r = b.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || (b.checkVisibility && !b.checkVisibility({ visibilityProperty: true }))) continue;
    const text = (b.innerText || b.value || b.getAttribute('aria-label') || '').replace(/\\s+/g, ' ').trim().slice(0, 80);
    const sig = text + ' ' + (b.className || '') + ' ' + (b.id || '');
    if (tried.includes(sig)) continue;
    b.setAttribute('data-assay-explore', String(n));
    out.push({ index: n++, text, sig });
  }
  return out;`,
) as (tried: string[]) => Array<{ index: number; text: string; sig: string }>;

const REQUEST_SUBMIT = new Function('form', 'form.requestSubmit()') as (form: unknown) => void;

/**
 * Fills and submits the page's forms (from the extract), then clicks its
 * in-page buttons one at a time, calling `settle` after each action so the
 * calls it caused are recorded against it (`mark` names the action first).
 */
export async function explorePage(
  page: Page,
  forms: FormInfo[],
  limits: ExploreLimits,
  hooks: { mark(action: ExploreAction): void; settle(): Promise<void> },
): Promise<ExploreAction[]> {
  const deadline = Date.now() + limits.budgetMs;
  const left = () => deadline - Date.now();
  const timeout = () => Math.max(100, Math.min(2000, left()));
  const done: ExploreAction[] = [];
  for (const form of forms) {
    if (done.length >= limits.maxActions || left() <= 0) return done;
    if (!form.fields.length || isPayment(form)) continue;
    if (!(await page.locator(form.selector).first().isVisible().catch(() => false))) continue;
    const action: ExploreAction = { kind: 'form', selector: form.selector };
    try {
      for (const field of form.fields) {
        const el = page.locator(field.selector).first();
        if (!(await el.isVisible().catch(() => false)) || !(await el.isEditable().catch(() => false))) continue;
        const type = field.type.toLowerCase();
        if (type === 'checkbox' || type === 'radio') await el.check({ timeout: timeout() });
        else if (type === 'file') continue;
        else if (field.tag === 'select') await el.selectOption({ index: (await el.locator('option').count()) > 1 ? 1 : 0 }, { timeout: timeout() });
        else await el.fill(valueFor(field), { timeout: timeout() });
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
  const tried: string[] = [];
  while (done.length < limits.maxActions && left() > 0) {
    const buttons = await page.evaluate(MARK_BUTTONS, tried).catch(() => []);
    const next = buttons.find((b) => !RISKY.test(b.text));
    for (const b of buttons) if (RISKY.test(b.text)) tried.push(b.sig);
    if (!next) break;
    tried.push(next.sig);
    const action: ExploreAction = { kind: 'button', selector: `[data-assay-explore="${next.index}"]` };
    hooks.mark({ kind: 'button', selector: next.text || action.selector });
    try {
      await page.locator(action.selector).first().click({ timeout: timeout() });
      done.push(action);
      await hooks.settle();
    } catch {
      // Gone or covered after an earlier click: try the next one.
    }
  }
  return done;
}
