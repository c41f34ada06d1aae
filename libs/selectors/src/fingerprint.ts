/**
 * What is known about an element: the relocation corpus format's fingerprint,
 * which the runner's (`ElementFingerprint`, read in the page) extends. Every
 * field but `tag` may be missing in a corpus made by another tool.
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

/** The attributes read as an element's test id, in order. */
export const TESTID_ATTRIBUTES = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'];

/** The test id of an element, from the field or one of the usual attributes. */
export function testIdOf(fp: Fingerprint): string | undefined {
  if (fp.testid) return fp.testid;
  for (const a of TESTID_ATTRIBUTES) if (fp.attributes?.[a]) return fp.attributes[a];
  return undefined;
}

/** The element's `name` attribute, when it has one. */
export const nameOf = (fp: Fingerprint): string | undefined => fp.name ?? fp.attributes?.name ?? undefined;

// Generated names: hashes, counters and framework prefixes say nothing about the element.
const GENERATED = [
  /^[0-9a-f]{8}-[0-9a-f]{4}-/i, // uuids
  /^:[a-z0-9]+:$/i, // React useId
  /__[A-Za-z0-9_-]*(\d|[a-z][A-Z])[A-Za-z0-9_-]*$/, // CSS modules: Button_root__3xk9a
  /^(css|sc|jsx|emotion|svelte|styled|tw)-[A-Za-z0-9]+$/i, // css-in-js classes
  /\d{3,}/, // counters: ember123, field-1024
  /^(ember|ext-gen|yui_|gwt-|mui-|radix-|headlessui-|react-select-|mat-input-|cdk-)\S*\d/i,
  /(^|[-_])(?=[a-z0-9]*\d[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{6,}($|[-_])/i, // hash-like words: a1b2c3
];

/** True for an id or class a framework generated (it will change on the next build). */
export function isGeneratedName(name: string): boolean {
  return !!name && GENERATED.some((re) => re.test(name));
}
