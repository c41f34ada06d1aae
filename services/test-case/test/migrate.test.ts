import { spawn } from 'node:child_process';
import pg from 'pg';
import { createTestDatabase, eventually, freePortForTests, TEST_INTERNAL_SECRET, type TestDatabase } from '@assay/testing';
import { migrations } from '../src/db/migrations/index.js';

// `test-case migrate` (the chart's migration Job) and MIGRATE_AT_START=false
// (the services after it), as real processes on a real Postgres.
jest.setTimeout(180_000);

let database: TestDatabase;
const children: Array<ReturnType<typeof spawn>> = [];
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await database?.drop();
});

function start(file: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', `services/test-case/src/${file}`], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function appliedMigrations(): Promise<string[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `select name from testcase.kysely_migration order by name`,
    );
    return rows.map((r) => r.name);
  } catch {
    return [];
  } finally {
    await client.end();
  }
}

describe('migrations apart from start', () => {
  it('a service with MIGRATE_AT_START=false refuses a schema with pending migrations, naming them and the fix', async () => {
    const port = await freePortForTests();
    const main = start('main.ts', { MIGRATE_AT_START: 'false', INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, PORT: String(port), BUS: 'pg' });
    expect(await main.exited).toBe(1);
    const names = Object.keys(migrations);
    expect(main.output()).toContain(`schema "testcase" has ${names.length} pending migration(s) (${names.join(', ')})`);
    expect(main.output()).toContain('run `test-case migrate`');
    expect(await appliedMigrations()).toEqual([]);
  });

  it('`migrate` brings the schema up to date with only DATABASE_URL, twice without harm; then the service starts without migrating', async () => {
    const first = start('migrate.ts', {});
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('migrations applied');
    expect(await appliedMigrations()).toEqual(Object.keys(migrations).sort());
    const again = start('migrate.ts', {});
    expect(await again.exited).toBe(0);
    expect(again.output()).toContain('schema already up to date');

    const port = await freePortForTests();
    const main = start('main.ts', { MIGRATE_AT_START: 'false', INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, PORT: String(port), BUS: 'pg' });
    await eventually(() => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false), 120_000, 200);
    main.child.kill('SIGTERM');
    expect(await main.exited).toBe(0);
  });

  it('`migrate` without DATABASE_URL stops with a message naming it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/test-case/src/migrate.ts'], { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(output).toContain('DATABASE_URL is required');
  });
});
