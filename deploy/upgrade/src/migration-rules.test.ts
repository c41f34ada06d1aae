import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { allMigrations, BUS_MIGRATIONS, busMigrations, checkMigrations, describeViolation, serviceMigrations } from './migration-rules.js';
import { previousRelease } from './previous-release.js';
import { REPO_ROOT } from './versions.js';

const previous = previousRelease();

/**
 * The repository's services/*\/src/db/migrations and libs/bus/src copied into a temp tree, with `extra` files
 * written into the runner's migrations (a name) or at a path from the root (libs/bus/src/...).
 */
function withMigrations(extra: Record<string, string>, edit?: (dir: string, root: string) => void): string[] {
  const root = mkdtempSync(path.join(tmpdir(), 'assay-migrations-'));
  try {
    for (const [service] of Object.entries(serviceMigrations(REPO_ROOT))) {
      cpSync(path.join(REPO_ROOT, 'services', service, 'src', 'db', 'migrations'), path.join(root, 'services', service, 'src', 'db', 'migrations'), { recursive: true });
    }
    cpSync(path.join(REPO_ROOT, 'libs', 'bus', 'src'), path.join(root, 'libs', 'bus', 'src'), { recursive: true });
    const dir = path.join(root, 'services', 'execution-runner', 'src', 'db', 'migrations');
    for (const [name, source] of Object.entries(extra)) writeFileSync(name.includes('/') ? path.join(root, name) : path.join(dir, name), source);
    edit?.(dir, root);
    return checkMigrations(allMigrations(root), previous.migrations).map(describeViolation);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const migration = (up: string) => `import { sql, type Kysely } from 'kysely';\n\nexport async function up(db: Kysely<any>): Promise<void> {\n${up}\n}\n\nexport async function down(db: Kysely<any>): Promise<void> {\n  await db.schema.dropTable('whatever').execute();\n}\n`;

describe('migration rules (docs/upgrading.md)', () => {
  it('hold for every migration of every service since the previous release', () => {
    const current = serviceMigrations(REPO_ROOT);
    expect(Object.keys(current).sort()).toEqual(['analysis', 'auth', 'discovery-crawler', 'execution-runner', 'test-case', 'webhook-dispatcher']);
    expect(checkMigrations(allMigrations(REPO_ROOT), previous.migrations).map(describeViolation)).toEqual([]);
  });

  it("read libs/bus's outbox and inbox migrations, each with the ids the services register it under, and the previous release's", () => {
    const bus = busMigrations(REPO_ROOT);
    expect(bus.map((m) => m.id).sort()).toEqual(['outboxMigration', 'outboxTraceparentMigration']);
    const outbox = bus.find((m) => m.id === 'outboxMigration')!;
    expect(outbox.file).toBe(path.join('libs', 'bus', 'src', 'outbox.tables.ts'));
    expect(outbox.source).toMatch(/createTable\('outbox'\)[\s\S]*createTable\('inbox'\)/);
    expect(outbox.registeredAs).toEqual(expect.arrayContaining(['auth 20261122115900_create_outbox', 'execution-runner 20261122135900_create_outbox']));
    expect(Object.keys(previous.migrations[BUS_MIGRATIONS] ?? {}).sort()).toEqual(['outboxMigration', 'outboxTraceparentMigration']);
  });

  it('fail a destructive libs/bus migration, naming the rule, the file and the migration', () => {
    const dropAttempts = [
      "import { sql, type Kysely, type Migration } from 'kysely';",
      '',
      '/** The outbox without its attempts. */',
      'export const outboxDropAttemptsMigration: Migration = {',
      '  async up(db: Kysely<any>) {',
      "    await db.schema.alterTable('outbox').dropColumn('attempts').execute();",
      '    await sql`alter table inbox rename column handled_at to done_at`.execute(db);',
      '  },',
      '  async down(db: Kysely<any>) {',
      "    await db.schema.alterTable('outbox').addColumn('attempts', 'integer').execute();",
      '  },',
      '};',
      '',
    ].join('\n');
    const found = withMigrations({ 'libs/bus/src/outbox.trim.ts': dropAttempts });
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/^libs\/bus\/src\/outbox\.trim\.ts \(outboxDropAttemptsMigration\): no-drop: a release may not drop a table or column its previous release reads/);
    expect(found[1]).toMatch(/^libs\/bus\/src\/outbox\.trim\.ts \(outboxDropAttemptsMigration\): no-rename: /);
    // The same drop marked as the contract step of a migration the previous release shipped passes.
    expect(withMigrations({ 'libs/bus/src/outbox.trim.ts': dropAttempts.replace('/** The outbox without its attempts. */', '// assay-migration: contract of outboxMigration') })).toEqual([]);
  });

  it('fail an edit of a libs/bus migration the previous release shipped, wherever its file now is', () => {
    const found = withMigrations({}, (_dir, root) => {
      const file = path.join(root, 'libs', 'bus', 'src', 'outbox.tables.ts');
      writeFileSync(file, readFileSync(file, 'utf8').replace(".addColumn('last_error', 'text')", ".addColumn('last_error', 'text', (c) => c.notNull().defaultTo(''))"));
    });
    expect(found).toEqual([expect.stringMatching(/^libs\/bus\/src\/outbox\.tables\.ts \(outboxMigration, registered as .*\): released-migration-unchanged: /)]);
  });

  it('fail a dropped column, naming the rule', () => {
    const found = withMigrations({ '20270101000000_drop_trace.ts': migration("  await db.schema.alterTable('executions').dropColumn('trace_url').execute();") });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/20270101000000_drop_trace\.ts: no-drop: a release may not drop a table or column its previous release reads/);
  });

  it('fail a rename, a new NOT NULL column without a default, a type change and a dropped table in SQL', () => {
    const found = withMigrations({
      '20270101000001_rename.ts': migration("  await db.schema.alterTable('executions').renameColumn('status', 'state').execute();"),
      '20270101000002_required.ts': migration("  await db.schema.alterTable('executions').addColumn('tenant', 'text', (c) => c.notNull()).execute();"),
      '20270101000003_required_sql.ts': migration('  await sql`alter table executions add column tenant text not null`.execute(db);'),
      '20270101000004_type.ts': migration('  await sql`alter table executions alter column position type smallint`.execute(db);'),
      '20270101000005_drop_sql.ts': migration('  await sql`drop table test_runs`.execute(db);'),
    });
    expect(found.map((f) => /: ([a-z-]+):/.exec(f)![1])).toEqual(['no-rename', 'no-required-column-without-default', 'no-required-column-without-default', 'no-type-change', 'no-drop']);
  });

  it('pass what is additive: a new table, a nullable column, a NOT NULL column with a default, a column on a table made in the same migration', () => {
    const found = withMigrations({
      '20270101000006_additive.ts': migration(
        [
          "  await db.schema.createTable('shards').addColumn('id', 'uuid', (c) => c.primaryKey()).execute();",
          "  await db.schema.alterTable('shards').addColumn('state', 'text', (c) => c.notNull()).execute();",
          "  await db.schema.alterTable('executions').addColumn('note', 'text').addColumn('tries', 'integer', (c) => c.notNull().defaultTo(0)).execute();",
          '  await sql`alter table executions add column origin text not null default \'api\'`.execute(db);',
        ].join('\n'),
      ),
    });
    expect(found).toEqual([]);
  });

  it('pass a drop marked as the contract step of an expand an earlier release shipped, and fail one naming an expand no release shipped', () => {
    const drop = "  await db.schema.alterTable('executions').dropColumn('trace_url').execute();";
    expect(withMigrations({ '20270101000007_contract.ts': `// assay-migration: contract of 20261122160000_add_traces\n${migration(drop)}` })).toEqual([]);
    const found = withMigrations({ '20270101000008_contract.ts': `// assay-migration: contract of 20270101000000_expand_in_this_release\n${migration(drop)}` });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/contract-names-an-earlier-expand: .*names 20270101000000_expand_in_this_release, which no earlier release shipped/);
  });

  it('fail an edit of a migration the previous release shipped', () => {
    const found = withMigrations({}, (dir) => appendFileSync(path.join(dir, '20261122160000_add_traces.ts'), '\n// edited\n'));
    expect(found).toEqual([expect.stringMatching(/20261122160000_add_traces\.ts: released-migration-unchanged: /)]);
  });
});
