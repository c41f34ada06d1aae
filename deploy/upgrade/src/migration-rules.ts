import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The migration rules of docs/upgrading.md, checked on the source of every
 * service's migrations and of libs/bus's (the outbox and inbox tables, which
 * every service's migration list registers under an id of its own). During a rolling upgrade the new release's migrations
 * run while the previous release's pods still serve (and a Deployment may be
 * rolled back onto the new schema), so a migration a release introduces is
 * additive: it may create tables, add nullable columns or columns with a
 * default, add indexes, widen. What breaks the previous release's code waits a
 * release, as the contract step of an earlier expand, and says so with a
 * marker naming the expand migration, which an earlier release must have
 * shipped:
 *
 *     // assay-migration: contract of 20261122140000_create_execution_tables
 *
 * A migration an earlier release shipped is never edited (its file's hash is
 * in the previous release's snapshot).
 */

export type RuleName = 'no-drop' | 'no-rename' | 'no-required-column-without-default' | 'no-type-change' | 'contract-names-an-earlier-expand' | 'released-migration-unchanged';

export const RULE_TEXT: Record<RuleName, string> = {
  'no-drop': 'a release may not drop a table or column its previous release reads; drop it a release later, as the contract step of an earlier expand',
  'no-rename': 'a release may not rename a table or column (the previous release still uses the old name): add the new one, copy, and drop the old one a release later',
  'no-required-column-without-default': 'a release may not add a NOT NULL column without a default to an existing table (the previous release inserts rows without it), nor set NOT NULL on one',
  'no-type-change': "a release may not change a column's type (the previous release writes and reads the old one): add a column of the new type",
  'contract-names-an-earlier-expand': 'a contract step must name an expand migration an earlier release shipped',
  'released-migration-unchanged': 'a migration an earlier release shipped is never edited: write a new one',
};

export interface Violation {
  rule: RuleName;
  file: string;
  /** The statement or line that breaks it. */
  where: string;
}

export interface MigrationFile {
  /** The migration's id, as the index names it: its file name without `.ts`. */
  id: string;
  /** Path from the repository root. */
  file: string;
  source: string;
  /** The comments right above a migration object (libs/bus), where its contract marker goes; not part of `source`. */
  preamble?: string;
  /** A libs/bus migration's registrations: `<service> <id>` for each service's migration list that names it. */
  registeredAs?: string[];
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Every service's migration files (services/<name>/src/db/migrations/<id>.ts), by service. */
export function serviceMigrations(root: string): Record<string, MigrationFile[]> {
  const out: Record<string, MigrationFile[]> = {};
  for (const service of readdirSync(path.join(root, 'services'))) {
    const dir = path.join('services', service, 'src', 'db', 'migrations');
    if (!existsSync(path.join(root, dir))) continue;
    out[service] = readdirSync(path.join(root, dir))
      .filter((f) => /^\d{14}_.*\.ts$/.test(f) && !f.endsWith('.test.ts'))
      .sort()
      .map((f) => ({ id: f.replace(/\.ts$/, ''), file: path.join(dir, f), source: readFileSync(path.join(root, dir, f), 'utf8') }));
  }
  return out;
}

/** Where libs/bus's migrations are checked, in place of a service's name. */
export const BUS_MIGRATIONS = 'libs/bus';

/**
 * libs/bus's migrations (`export const <name>: Migration = { up, down }` in libs/bus/src), by export
 * name: their source is the object's text, so moving one to another file changes nothing. Each
 * service registers them in its migration list (services/<name>/src/db/migrations/index.ts) under
 * an id of its own; `registeredAs` says which.
 */
export function busMigrations(root: string): MigrationFile[] {
  const dir = path.join('libs', 'bus', 'src');
  const registrations = new Map<string, string[]>();
  for (const service of existsSync(path.join(root, 'services')) ? readdirSync(path.join(root, 'services')).sort() : []) {
    const index = path.join(root, 'services', service, 'src', 'db', 'migrations', 'index.ts');
    if (!existsSync(index)) continue;
    for (const m of readFileSync(index, 'utf8').matchAll(/['"`](\d{14}_\w+)['"`]\s*:\s*(\w+)\s*[,}\n]/g)) {
      registrations.set(m[2]!, [...(registrations.get(m[2]!) ?? []), `${service} ${m[1]}`]);
    }
  }
  const out: MigrationFile[] = [];
  if (!existsSync(path.join(root, dir))) return out;
  for (const f of readdirSync(path.join(root, dir)).filter((x) => x.endsWith('.ts') && !x.endsWith('.test.ts')).sort()) {
    const text = readFileSync(path.join(root, dir, f), 'utf8');
    const objects = /((?:^[ \t]*(?:\/\/[^\n]*|\/\*[\s\S]*?\*\/)[ \t]*\n)*)(^export const (\w+)\s*:\s*Migration\s*=\s*\{[\s\S]*?^\};)/gm;
    for (const m of text.matchAll(objects)) {
      out.push({ id: m[3]!, file: path.join(dir, f), source: m[2]!, preamble: m[1] ?? '', registeredAs: registrations.get(m[3]!) ?? [] });
    }
  }
  return out;
}

/** Every migration the rules read: each service's, and libs/bus's under BUS_MIGRATIONS. */
export function allMigrations(root: string): Record<string, MigrationFile[]> {
  return { ...serviceMigrations(root), [BUS_MIGRATIONS]: busMigrations(root) };
}

/** A migration file names its expand by id; a libs/bus migration may name a libs/bus one by its export. */
const CONTRACT_MARKER = /assay-migration:\s*contract of\s+(\d{14}_\w+|\w+Migration)\b/;

/**
 * The body of `up` (down() may drop what up() made), comments removed: a migration file's
 * `export function up`, or a migration object's `up` method (libs/bus).
 */
function upBody(source: string): string {
  const exported = source.search(/export\s+(async\s+)?function\s+up\b/);
  const start = exported >= 0 ? exported : source.search(/(?:^|[\s{,])(?:async\s+)?up\s*[(:]/m);
  if (start < 0) return '';
  const rest = source.slice(start);
  const down = exported >= 0 ? rest.search(/export\s+(async\s+)?function\s+down\b/) : rest.search(/(?:^|[\s{,])(?:async\s+)?down\s*[(:]/m);
  const body = down < 0 ? rest : rest.slice(0, down);
  return body.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

/** One statement per `.execute(` (the builder's and sql`...`'s), whitespace folded. */
function statements(body: string): string[] {
  return body
    .split(/\.execute\s*\(/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
}

/** Tables this migration creates: changing them is not changing what the previous release uses. */
function createdTables(body: string): Set<string> {
  const names = new Set<string>();
  for (const m of body.matchAll(/createTable\(\s*['"`](\w+)['"`]/g)) names.add(m[1]!);
  for (const m of body.matchAll(/create\s+table\s+(?:if\s+not\s+exists\s+)?(?:"?\w+"?\.)?"?(\w+)"?/gi)) names.add(m[1]!);
  return names;
}

function tableOf(statement: string): string | undefined {
  return /(?:alterTable|dropTable)\(\s*['"`](\w+)['"`]/.exec(statement)?.[1] ?? /(?:alter|drop)\s+table\s+(?:if\s+exists\s+)?(?:"?\w+"?\.)?"?(\w+)"?/i.exec(statement)?.[1];
}

/** The rules one statement of an up() breaks, tables it created itself aside. */
function statementViolations(s: string, created: Set<string>): RuleName[] {
  const table = tableOf(s);
  if (table && created.has(table)) return [];
  const found: RuleName[] = [];
  if (/\.dropTable\(|\.dropColumn\(|\bdrop\s+table\b|\bdrop\s+column\b/i.test(s)) found.push('no-drop');
  if (/\.renameColumn\(|\.renameTo\(|\brename\s+column\b|\brename\s+to\b|\brename\s+\w+\s+to\b/i.test(s)) found.push('no-rename');
  if (/\.setDataType\(|\balter\s+column\s+"?\w+"?\s+(set\s+data\s+)?type\b/i.test(s)) found.push('no-type-change');
  if (/\.setNotNull\(|\bset\s+not\s+null\b/i.test(s)) found.push('no-required-column-without-default');
  // A column added to an existing table: NOT NULL needs a default, or the previous release's inserts fail.
  if (/alterTable\(/.test(s)) {
    for (const column of s.split(/\.addColumn\(/).slice(1)) {
      const spec = column.split(/\.(?:addColumn|dropColumn|alterColumn|modifyColumn|addIndex|addUniqueConstraint|addCheckConstraint|addForeignKeyConstraint)\(/)[0]!;
      if (/notNull\(\)/.test(spec) && !/defaultTo\(|generatedAlwaysAs/.test(spec)) found.push('no-required-column-without-default');
    }
  }
  for (const m of s.matchAll(/\badd\s+column\s+(?:if\s+not\s+exists\s+)?[^,]*?(?=,\s*add\b|$)/gi)) {
    if (/\bnot\s+null\b/i.test(m[0]) && !/\bdefault\b|\bgenerated\b/i.test(m[0])) found.push('no-required-column-without-default');
  }
  return found;
}

/**
 * Violations of the rules by the migrations of `current` that `previous` (the
 * previous release's migration ids and file hashes, by service) did not ship.
 */
export function checkMigrations(current: Record<string, MigrationFile[]>, previous: Record<string, Record<string, string>>): Violation[] {
  const violations: Violation[] = [];
  const shippedEarlier = new Set(Object.values(previous).flatMap((m) => Object.keys(m)));
  for (const [service, files] of Object.entries(current)) {
    const released = previous[service] ?? {};
    for (const m of files) {
      // A libs/bus migration is named by its export (and the ids the services register it under).
      const registered = m.registeredAs?.length ? `, registered as ${m.registeredAs.join(', ')}` : '';
      const file = service === BUS_MIGRATIONS ? `${m.file} (${m.id}${registered})` : m.file;
      if (released[m.id] !== undefined) {
        if (released[m.id] !== sha256(m.source)) violations.push({ rule: 'released-migration-unchanged', file, where: `${m.id} differs from the one the previous release shipped` });
        continue;
      }
      const marker = CONTRACT_MARKER.exec(`${m.preamble ?? ''}${m.source}`);
      if (marker) {
        if (!shippedEarlier.has(marker[1]!)) violations.push({ rule: 'contract-names-an-earlier-expand', file, where: `names ${marker[1]}, which no earlier release shipped` });
        continue;
      }
      const body = upBody(m.source);
      const created = createdTables(body);
      for (const s of statements(body)) {
        for (const rule of statementViolations(s, created)) violations.push({ rule, file, where: s.slice(Math.max(0, s.length - 160)) });
      }
    }
  }
  return violations;
}

export function describeViolation(v: Violation): string {
  return `${v.file}: ${v.rule}: ${RULE_TEXT[v.rule]} (${v.where})`;
}
