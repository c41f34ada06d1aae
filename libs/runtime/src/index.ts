import type { Server } from 'node:http';
import { createBus, startOutboxRelay, type Bus } from '@assay/bus';
import { ConfigError, readConfig, type CommonConfig, type Env } from '@assay/config';
import { createDatabase, isDatabaseReachable, migrateToLatest, pendingMigrations, waitForDatabase, type Database, type Migration } from '@assay/db';
import { answerClientErrorsWithJson, keepConnectionsAlive } from '@assay/http';
import { createLogger, type Logger } from '@assay/logger';
import { flushTelemetry } from '@assay/telemetry';

export interface ServiceDeps<DB> {
  database: Database<DB>;
  bus: Bus;
  logger: Logger;
  /** `/readyz` checks: the database and the bus. */
  ready: () => Promise<Record<string, boolean>>;
}

export interface RunServiceOptions<DB> {
  config: CommonConfig & { schema: string };
  migrations: Record<string, Migration>;
  /** Builds the app (and starts any workers) once the schema is migrated and the bus is up. */
  build(deps: ServiceDeps<DB>): { listen(port: number, host: string, cb: () => void): Server } | Promise<{ listen(port: number, host: string, cb: () => void): Server }>;
  /** Stops what `build` started, before the bus and the pool close. */
  stop?: () => Promise<void>;
  /** Longest a stop on SIGTERM may take before the process exits anyway (default 10 s). */
  shutdownTimeoutMs?: number;
}

/**
 * The start-up every service with a schema shares: logger, pool, migrations,
 * bus, outbox relay, HTTP listener, and a clean stop on SIGTERM/SIGINT.
 */
export async function runService<DB>(opts: RunServiceOptions<DB>): Promise<void> {
  const { config } = opts;
  const logger = createLogger(config.service, config.logLevel);
  const database = createDatabase<DB>({ connectionString: config.databaseUrl, schema: config.schema, applicationName: `assay-${config.service}` });
  // Postgres restarting as we start: wait for it (a minute) rather than exit at the first query.
  await waitForDatabase(database.pool, { timeoutMs: 60_000, onWait: () => logger.warn('Postgres is not reachable yet; waiting for it (60 s at most)') });
  if (config.migrateAtStart) await migrateToLatest(database, opts.migrations);
  else {
    // Migrated beforehand (the chart's migration Job): never run on a schema older than this code.
    const pending = await pendingMigrations(database, opts.migrations);
    if (pending.length > 0) {
      await database.close();
      throw new ConfigError([
        `MIGRATE_AT_START=false but schema "${config.schema}" has ${pending.length} pending migration(s) (${pending.join(', ')}): run \`${config.service} migrate\` (the chart's migration Job) first, or unset MIGRATE_AT_START`,
      ]);
    }
  }
  const bus = createBus({ kind: config.bus, databaseUrl: config.databaseUrl, kafka: config.kafka, clientId: `assay-${config.service}`, logger });
  await bus.start();
  const relay = startOutboxRelay({ db: database.db, listen: database.pool, schema: config.schema, bus, logger });
  const ready = async () => ({ database: await isDatabaseReachable(database.pool), bus: await bus.isHealthy() });
  const app = await opts.build({ database, bus, logger, ready });
  const server = app.listen(config.port, config.host, () => logger.info({ port: config.port }, `${config.service} listening`));
  answerClientErrorsWithJson(server);
  keepConnectionsAlive(server);

  let stopping = false;
  const shutdown = async (signal: string) => {
    // A terminal's Ctrl-C and the launcher's SIGTERM may both arrive: stop once.
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // A close that hangs (a dead database, a stuck socket) must not leave the process behind.
    const limitMs = opts.shutdownTimeoutMs ?? 10_000;
    setTimeout(() => {
      logger.error({ limit_ms: limitMs }, 'shutdown took too long; exiting');
      process.exit(1);
    }, limitMs).unref();
    server.close();
    await opts.stop?.();
    await relay.stop();
    await bus.stop();
    await database.close();
    // The last spans (this shutdown's) are still buffered: export them before exiting.
    await flushTelemetry();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

/**
 * `<service> migrate`: brings the service's schema to its latest migration and
 * returns. Needs only DATABASE_URL (and LOG_LEVEL), so a pre-install Job can run
 * it before any other Secret of the release exists.
 */
export async function runMigrations(opts: { service: string; schema: string; migrations: Record<string, Migration>; env: Env }): Promise<void> {
  const config = readConfig(opts.env, (r) => ({
    databaseUrl: r.url('DATABASE_URL'),
    logLevel: r.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, { default: 'info' }),
  }));
  const logger = createLogger(opts.service, config.logLevel);
  const database = createDatabase({ connectionString: config.databaseUrl, schema: opts.schema, applicationName: `assay-${opts.service}-migrate` });
  try {
    const result = await migrateToLatest(database, opts.migrations);
    const applied = (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    logger.info({ schema: opts.schema, applied }, applied.length ? 'migrations applied' : 'schema already up to date');
  } finally {
    await database.close();
  }
}

/** Runs a service's main and exits 1 with a readable message when it fails to start. */
export function startMain(main: () => Promise<void>): void {
  main().catch((err) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  });
}
export { PeriodicTask } from './periodic.js';
