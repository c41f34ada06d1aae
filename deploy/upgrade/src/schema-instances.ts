/**
 * Instances of a JSON Schema, for reading what one release writes with the
 * previous release's schema: the smallest one (required properties only) and
 * full ones (every property), one per variant index, so each enum value and
 * each type of a type list appears in some instance. Covers the keywords the
 * event catalogue uses (type, properties, required, items, enum, minimum,
 * maximum, pattern by a few candidates, additionalProperties as a schema,
 * minProperties).
 */
type Schema = Record<string, unknown>;

const PATTERN_CANDIDATES = ['1280x720', 'a', 'x', '1', 'a-b', 'https://example.test/', '2026-01-01T00:00:00.000Z'];

function variantsOf(schema: Schema): number {
  let n = 1;
  const walk = (s: unknown): void => {
    if (!s || typeof s !== 'object') return;
    const o = s as Schema;
    if (Array.isArray(o.enum)) n = Math.max(n, o.enum.length);
    if (Array.isArray(o.type)) n = Math.max(n, o.type.length);
    for (const v of Object.values((o.properties as Schema | undefined) ?? {})) walk(v);
    walk(o.items);
    if (typeof o.additionalProperties === 'object') walk(o.additionalProperties);
  };
  walk(schema);
  return n;
}

function instance(schema: Schema, full: boolean, k: number): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[k % schema.enum.length];
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [schema.type as string] : ['object'];
  const type = types[k % types.length];
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return k % 2 === 0;
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : typeof schema.maximum === 'number' ? Math.min(0, schema.maximum) : 1;
    case 'string': {
      if (typeof schema.pattern === 'string') {
        const re = new RegExp(schema.pattern);
        const fit = PATTERN_CANDIDATES.find((c) => re.test(c));
        if (fit === undefined) throw new Error(`no candidate string matches the pattern ${schema.pattern}`);
        return fit;
      }
      if (schema.format === 'date-time') return '2026-01-01T00:00:00.000Z';
      if (schema.format === 'uri') return 'https://example.test/';
      if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
      return 'text';
    }
    case 'array':
      return schema.items ? [instance(schema.items as Schema, full, k)] : [];
    default: {
      const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const out: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(properties)) if (full || required.has(name)) out[name] = instance(sub, full, k);
      // Required without a schema of its own: any value.
      for (const name of required) if (!(name in out)) out[name] = 'text';
      const extra = typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Schema) : {};
      if (full && typeof schema.additionalProperties === 'object') out.extra_key = instance(extra, full, k);
      for (let i = 0; Object.keys(out).length < Number(schema.minProperties ?? 0); i++) out[`extra_${i}`] = instance(extra, full, k);
      return out;
    }
  }
}

/** The smallest instance, then a full one per variant. */
export function instancesOf(schema: Schema): unknown[] {
  const n = variantsOf(schema);
  return [instance(schema, false, 0), ...Array.from({ length: n }, (_, k) => instance(schema, true, k))];
}
