import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { RecordsInfo } from '../db/database.js';
import { IN_PAGE } from './in-page.js';

/**
 * Record editing, explored only where the session allows writes: a lone text
 * box with no button beside it (type, then Enter) that makes an item appear
 * with what was typed is a create; a double-click on the item that makes a
 * field appear holding its text is an edit; a button inside the item (shown on
 * hover, often without a name) that makes it disappear is a delete. The item
 * it made is edited and deleted again, so the app is left as it was found.
 */

// Lone text boxes: visible, editable, not a search box or a password, with no button in the group around them.
const FIND_ENTRY_BOXES = new Function(
  IN_PAGE +
    `
  const out = [];
  for (const el of document.querySelectorAll('input:not([type]), input[type=text], textarea')) {
    if (!visible(el) || el.disabled || el.readOnly || el.closest('[role=search], search, dialog, [role=dialog]')) continue;
    const hint = [el.getAttribute('placeholder'), labelOf(el), el.getAttribute('name'), el.getAttribute('aria-label')].join(' ');
    if (/search|find|filter|query|look ?up/i.test(hint)) continue;
    const group = el.closest('form') || el.parentElement;
    if (group && group.querySelector('button, input[type=submit], input[type=button], [role=button]')) continue;
    out.push({ selector: selectorOf(el), label: labelOf(el).slice(0, 100) });
  }
  return out.slice(0, 2);`,
) as () => Array<{ selector: string; label: string }>;

// The item showing `text`: the innermost visible element holding it, and the list item (or row) around it.
const FIND_ITEM = new Function(
  'text',
  IN_PAGE +
    `
  let best = null;
  for (const el of document.querySelectorAll('body *')) {
    if (el.children.length > 0 && Array.from(el.children).some((c) => textOf(c).includes(text))) continue;
    if (!textOf(el).includes(text) || el.matches('input, textarea') || !visible(el)) continue;
    best = el; break;
  }
  if (!best) return null;
  const item = best.closest('li, tr, [role=listitem], [role=row], article') || best.parentElement;
  return { text: selectorOf(best), item: item ? selectorOf(item) : selectorOf(best) };`,
) as (text: string) => { text: string; item: string } | null;

// A field holding `text` that a person can edit now (an edit box the double-click opened).
const FIND_EDITOR = new Function('text', IN_PAGE + `for (const el of document.querySelectorAll('input, textarea')) if (visible(el) && !el.readOnly && el.value === text) return selectorOf(el); return null;`) as (text: string) => string | null;

// The buttons inside the item a person can press now (after hovering it).
const ITEM_BUTTONS = new Function('item', IN_PAGE + `let root; try { root = document.querySelector(item); } catch { root = null; } if (!root) return []; return Array.from(root.querySelectorAll('button, [role=button]')).filter(visible).map((b) => ({ selector: selectorOf(b), name: nameOf(b) }));`) as (item: string) => Array<{ selector: string; name: string }>;

const PAGE_LINKS = new Function(`return Array.from(document.querySelectorAll('a[href]')).map((a) => a.href).slice(0, 50);`) as () => string[];

const STILL_THERE = new Function('text', `return (document.body.innerText || '').includes(text);`) as (text: string) => boolean;

/** Names a delete button may have; a button without a name inside an item is tried too (an icon: ×, a bin). */
const DELETE_NAME = /^$|delete|remove|destroy|trash|discard|^(×|✕|x)$/i;

export interface RecordHooks {
  settle(): Promise<unknown>;
  mark(cause: string): void;
}

/** Creates an item through a lone text box, edits it, deletes it; answers what each step was (or undefined when no box made an item appear). */
export async function exploreRecords(page: Page, hooks: RecordHooks, timeoutMs = 2000): Promise<RecordsInfo | undefined> {
  const boxes = await page.evaluate(FIND_ENTRY_BOXES).catch(() => []);
  for (const box of boxes) {
    const value = `Assay record ${randomBytes(2).toString('hex')}`;
    try {
      hooks.mark(`records ${box.selector}`);
      await page.locator(box.selector).first().fill(value, { timeout: timeoutMs });
      await page.locator(box.selector).first().press('Enter', { timeout: timeoutMs });
      await hooks.settle();
      const created = await page.evaluate(FIND_ITEM, value).catch(() => null);
      if (!created) continue;
      const out: RecordsInfo = { input: box.selector, label: box.label, value, item: created.item, links: await page.evaluate(PAGE_LINKS).catch(() => []) };
      // Edit: a double-click on its text that opens a field holding it.
      const edited = `${value} edited`;
      await page.locator(created.text).first().dblclick({ timeout: timeoutMs }).catch(() => undefined);
      await hooks.settle();
      const editor = await page.evaluate(FIND_EDITOR, value).catch(() => null);
      if (editor) {
        await page.locator(editor).first().fill(edited, { timeout: timeoutMs });
        await page.locator(editor).first().press('Enter', { timeout: timeoutMs });
        await hooks.settle();
        if (await page.evaluate(STILL_THERE, edited).catch(() => false)) out.edit = { open: created.text, editor, value: edited };
      }
      // Delete: a button inside the item, shown once it is hovered.
      const now = out.edit ? edited : value;
      const item = (await page.evaluate(FIND_ITEM, now).catch(() => null))?.item ?? created.item;
      await page.locator(item).first().hover({ timeout: timeoutMs }).catch(() => undefined);
      for (const b of (await page.evaluate(ITEM_BUTTONS, item).catch(() => [])).filter((x) => DELETE_NAME.test(x.name.trim()))) {
        await page.locator(b.selector).first().click({ timeout: timeoutMs }).catch(() => undefined);
        await hooks.settle();
        if (!(await page.evaluate(STILL_THERE, now).catch(() => true))) {
          out.delete = { hover: item, button: b.selector };
          break;
        }
      }
      return out;
    } catch {
      // Not a box that makes items after all: the next one.
    }
  }
  return undefined;
}
