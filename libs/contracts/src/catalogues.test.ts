import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as catalogues from './catalogues.js';
import * as full from './index.js';

const HEAVY = ['ajv', 'ajv-formats', 're2-wasm', 'cron-parser'];

/** Every package the file loads at run time (type-only imports are erased), followed through relative imports. */
function runtimeImports(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const m of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms)) {
    const target = m[1]!;
    if (target.startsWith('.')) runtimeImports(join(dirname(file), target.replace(/\.js$/, '.ts')), seen);
    else seen.add(target.startsWith('@') ? target.split('/').slice(0, 2).join('/') : target.split('/')[0]!);
  }
  return seen;
}

describe('the light entry of the contracts', () => {
  it('loads no validator: no ajv, no re2, no cron parser', () => {
    const loaded = [...runtimeImports(join(__dirname, 'catalogues.ts'))];
    expect(loaded.filter((m) => HEAVY.includes(m))).toEqual([]);
    // The full entry does load them: the check above can fail.
    expect([...runtimeImports(join(__dirname, 'index.ts'))].filter((m) => HEAVY.includes(m)).sort()).toEqual([...HEAVY].sort());
  });

  it('hands on the same catalogues as the full entry', () => {
    for (const [name, value] of Object.entries(catalogues)) expect(full[name as keyof typeof full]).toBe(value);
  });
});
