// The fingerprint, test ids and names live with the selector ranking they feed (@assay/selectors).
import type { Fingerprint } from '@assay/selectors';
export { nameOf, testIdOf, type Fingerprint } from '@assay/selectors';
import { nameOf, testIdOf } from '@assay/selectors';
import { norm } from './similarity.js';

/** One corpus case: the element as it was, the elements of the changed page, and which of them it became. */
export interface RelocationCase {
  name: string;
  /** The site or template the case comes from (cross-validation by site); optional. */
  site?: string;
  target: Fingerprint;
  candidates: Fingerprint[];
  expected: number | null;
}

/** Role families: a step that fills expects an input, one that clicks a control. */
export type RoleFamily = 'input' | 'control' | 'other';

const INPUT_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'spinbutton', 'checkbox', 'radio', 'slider', 'switch']);
const CONTROL_ROLES = new Set(['button', 'link', 'menuitem', 'tab', 'option', 'menuitemcheckbox', 'menuitemradio', 'treeitem']);

export function roleFamily(fp: Fingerprint): RoleFamily {
  const role = fp.role ?? fp.attributes?.role;
  if (role && INPUT_ROLES.has(role)) return 'input';
  if (role && CONTROL_ROLES.has(role)) return 'control';
  const tag = fp.tag.toLowerCase();
  const type = (fp.attributes?.type ?? '').toLowerCase();
  if (tag === 'input') return ['submit', 'button', 'reset', 'image'].includes(type) ? 'control' : 'input';
  if (tag === 'textarea' || tag === 'select') return 'input';
  if (tag === 'button' || tag === 'a' || tag === 'summary' || fp.is_button) return 'control';
  return 'other';
}

/** A stable identity of an element across analyses: what a rejection is remembered by. */
export function elementSignature(fp: Fingerprint): string {
  const text = (fp.text ?? fp.accessible_name ?? '').replace(/\s+/g, ' ').trim().toLowerCase().slice(0, 80);
  return [fp.tag.toLowerCase(), testIdOf(fp) ?? '', fp.id ?? '', nameOf(fp) ?? '', text].join('|');
}

/** What tells whether two candidates are one control nested: where it sits, the names it shows, and whether it is a control. */
export interface ControlKey {
  /** The absolute XPath, every step with its index (`/html[1]/body[1]/div[2]`). */
  path: string;
  /** Its visible text and accessible name, normalised; empty ones left out. */
  names: string[];
  /** Its role family (`roleFamily`): a control or field, or neither. */
  family?: RoleFamily;
}

export function controlKey(fp: Fingerprint): ControlKey {
  const path = (fp.xpath ?? '')
    .split('/')
    .map((s) => (s && !s.includes('[') ? `${s}[1]` : s))
    .join('/');
  return { path, names: [...new Set([norm(fp.text), norm(fp.accessible_name)].filter(Boolean))], family: roleFamily(fp) };
}

/**
 * The same control nested: one is the other's ancestor or descendant and they
 * show the same text or name (a `label` inside the `li` that took its role,
 * a `span` inside its button), or the inner one is no control of its own and
 * shows part of the outer control's text (a menu item's label beside its
 * shortcut: a click on it acts on the item). Not a rival for the element:
 * picking either acts on the same thing.
 */
export function sameControlNested(a: ControlKey, b: ControlKey): boolean {
  if (!a.path.startsWith('/') || !b.path.startsWith('/') || a.path === b.path) return false;
  const [outer, inner] = a.path.startsWith(`${b.path}/`) ? [b, a] : b.path.startsWith(`${a.path}/`) ? [a, b] : [];
  if (!outer || !inner) return false;
  if (a.names.some((n) => b.names.includes(n))) return true;
  const partOf = inner.family === 'other' && outer.family !== undefined && outer.family !== 'other';
  return partOf && inner.names.length > 0 && inner.names.every((n) => outer.names.some((o) => o.includes(n)));
}
