/**
 * The relocation corpus format's fingerprint (and the runner's, which adds a
 * few fields): what is known about an element. Every field but `tag` may be
 * missing in a corpus made by another tool; scorers treat a missing property
 * as unknown, never as a mismatch of the target.
 */
export interface Fingerprint {
  tag: string;
  id?: string | null;
  name?: string | null;
  classes?: string[];
  text?: string;
  attributes?: Record<string, string>;
  xpath?: string;
  idxpath?: string;
  bbox?: { x: number; y: number; width: number; height: number };
  neighbor_text?: { above?: string; below?: string; left?: string; right?: string };
  is_button?: boolean;
  role?: string;
  accessible_name?: string;
  testid?: string;
  /** Runner fingerprints only. */
  enabled?: boolean;
  visible?: boolean;
}

/** One corpus case: the element as it was, the elements of the changed page, and which of them it became. */
export interface RelocationCase {
  name: string;
  target: Fingerprint;
  candidates: Fingerprint[];
  expected: number | null;
}

const TESTID_ATTRIBUTES = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'];

/** The test id of an element, from the field or one of the usual attributes. */
export function testIdOf(fp: Fingerprint): string | undefined {
  if (fp.testid) return fp.testid;
  for (const a of TESTID_ATTRIBUTES) if (fp.attributes?.[a]) return fp.attributes[a];
  return undefined;
}

export const nameOf = (fp: Fingerprint): string | undefined => fp.name ?? fp.attributes?.name ?? undefined;

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
