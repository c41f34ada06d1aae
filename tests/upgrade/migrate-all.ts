import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createDatabase, pendingMigrations, type Migration } from '../../libs/db/src/index.js';
import { runMigrations } from '../../libs/runtime/src/index.js';

/**
 * What each service's `<service> migrate` (services/<name>/src/migrate.ts, the chart's migration Job)
 * does, for every service in one process: the drill's migration step while the FROM release serves.
 * Each service's schema is read from its migrate.ts, its migrations from its db/migrations index.
 * Prints one line per service: its name and the migrations it applied.
 */
const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

for (const service of readdirSync(path.join(REPO, 'services')).sort()) {
  const migrate = path.join(REPO, 'services', service, 'src', 'migrate.ts');
  if (!existsSync(migrate)) continue;
  const schema = /schema: '([a-z_]+)'/.exec(readFileSync(migrate, 'utf8'))?.[1];
  if (!schema) throw new Error(`${migrate} names no schema`);
  const { migrations } = (await import(pathToFileURL(path.join(REPO, 'services', service, 'src', 'db', 'migrations', 'index.ts')).href)) as { migrations: Record<string, Migration> };
  const database = createDatabase({ connectionString: process.env.DATABASE_URL!, schema });
  const pending = await pendingMigrations(database, migrations).finally(() => database.close());
  const before = Date.now();
  await runMigrations({ service, schema, migrations, env: { ...process.env, LOG_LEVEL: 'warn' } });
  process.stdout.write(`${service}${pending.length ? ` [${pending.join(', ')}]` : ''} (${Date.now() - before} ms)\n`);
}
