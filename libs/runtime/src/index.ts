import type { Server } from 'node:http';
import { createBus, startOutboxRelay, type Bus } from '@assay/bus';
import { ConfigError, type CommonConfig } from '@assay/config';
import { createDatabase, isDatabaseReachable, migrateToLatest, type Database, type Migration } from '@assay/db';
import { answerClientErrorsWithJson } from '@assay/http';
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
}

/**
 * The start-up every service with a schema shares: logger, pool, migrations,
 * bus, outbox relay, HTTP listener, and a clean stop on SIGTERM/SIGINT.
 */
export async function runService<DB>(opts: RunServiceOptions<DB>): Promise<void> {
  const { config } = opts;
  const logger = createLogger(config.service, config.logLevel);
  const database = createDatabase<DB>({ connectionString: config.databaseUrl, schema: config.schema, applicationName: `assay-${config.service}` });
  await migrateToLatest(database, opts.migrations);
  const bus = createBus({ kind: config.bus, databaseUrl: config.databaseUrl, kafkaBrokers: config.kafkaBrokers, clientId: `assay-${config.service}`, logger });
  await bus.start();
  const relay = startOutboxRelay({ db: database.db, listen: database.pool, schema: config.schema, bus, logger });
  const ready = async () => ({ database: await isDatabaseReachable(database.pool), bus: await bus.isHealthy() });
  const app = await opts.build({ database, bus, logger, ready });
  const server = app.listen(config.port, config.host, () => logger.info({ port: config.port }, `${config.service} listening`));
  answerClientErrorsWithJson(server);

  let stopping = false;
  const shutdown = async (signal: string) => {
    // A terminal's Ctrl-C and the launcher's SIGTERM may both arrive: stop once.
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // A close that hangs (a dead database, a stuck socket) must not leave the process behind.
    setTimeout(() => {
      logger.error('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000).unref();
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

/** Runs a service's main and exits 1 with a readable message when it fails to start. */
export function startMain(main: () => Promise<void>): void {
  main().catch((err) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  });
}
