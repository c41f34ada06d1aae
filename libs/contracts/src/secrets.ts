/** What a secret's value is replaced by wherever a run's output could show it. */
export const SECRET_MASK = '••••••';

/** The `{{secret.name}}` references of a text (names without the prefix). */
export function secretReferences(text: string): string[] {
  return [...text.matchAll(/\{\{\s*secret\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}/g)].map((m) => m[1]!);
}

/**
 * The forms a value takes in what a browser run leaves behind: as typed, in
 * JSON (a trace's call parameters), in a URL or form body, in HTML.
 */
export function secretForms(value: string): string[] {
  const forms = new Set([
    value,
    JSON.stringify(value).slice(1, -1),
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
    value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
  ]);
  // Longest first: a form that contains another is replaced whole.
  return [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

/**
 * Masks secret values in text and in JSON-like data (every string, keys
 * included). Built once per run from the secrets it was given.
 */
export class SecretMasker {
  private readonly forms: string[];

  constructor(values: Iterable<string>) {
    this.forms = [...new Set([...values].flatMap(secretForms))].sort((a, b) => b.length - a.length);
  }

  get active(): boolean {
    return this.forms.length > 0;
  }

  /** The text with every form of every secret replaced by SECRET_MASK. */
  text(s: string): string {
    if (!this.forms.length || !s) return s;
    let out = s;
    for (const f of this.forms) if (out.includes(f)) out = out.split(f).join(SECRET_MASK);
    return out;
  }

  /** A copy of JSON-like data with every string masked. */
  deep<T>(value: T): T {
    if (!this.forms.length) return value;
    if (typeof value === 'string') return this.text(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.deep(v)) as T;
    if (value && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.text(k), this.deep(v)])) as T;
    }
    return value;
  }

  /** The bytes with every form of every secret replaced (traces: JSON lines, HTML, network bodies); the same buffer when none occurs. */
  bytes(data: Buffer): Buffer {
    let out = data;
    for (const f of this.forms) {
      const needle = Buffer.from(f, 'utf8');
      if (out.indexOf(needle) < 0) continue;
      const mask = Buffer.from(SECRET_MASK, 'utf8');
      const parts: Buffer[] = [];
      let from = 0;
      for (let at = out.indexOf(needle); at >= 0; at = out.indexOf(needle, from)) {
        parts.push(out.subarray(from, at), mask);
        from = at + needle.length;
      }
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    return out;
  }
}
