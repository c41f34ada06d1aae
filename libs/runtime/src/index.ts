import type { Server } from 'node:http';
import { createBus, startOutboxRelay, type Bus } from '@assay/bus';
import { ConfigError, readConfig, type CommonConfig, type Env } from '@assay/config';
import { createDatabase, isDatabaseReachable, migrateToLatest, pendingMigrations, waitForDatabase, type Database, type Migration } from '@assay/db';
import { answerClientErrorsWithJson, drainServer, keepConnectionsAlive, type ReadinessResult } from '@assay/http';
import { createLogger, type Logger } from '@assay/logger';
import { flushTelemetry } from '@assay/telemetry';

export interface ServiceDeps<DB> {
  database: Database<DB>;
  bus: Bus;
  logger: Logger;
  /** `/readyz` checks: the database (critical) and the bus (degraded while down: writes wait in the outbox). */
  ready: () => Promise<Record<string, ReadinessResult>>;
}

export interface RunServiceOptions<DB> {
  config: CommonConfig & { schema: string };
  migrations: Record<string, Migration>;
  /** Builds the app (and starts any workers) once the schema is migrated and the bus is up. */
  build(deps: ServiceDeps<DB>): Listenable | Promise<Listenable>;
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
  const relay = startOutboxRelay({ db: database.db, listen: database.pool, schema: config.schema, bus, logger, lingerMs: config.outboxLingerMs });
  const ready = () => readinessChecks(database, bus);
  const app = await opts.build({ database, bus, logger, ready });
  listenUntilStopped(app, {
    port: config.port,
    host: config.host,
    logger,
    listening: `${config.service} listening`,
    ...(opts.shutdownTimeoutMs !== undefined ? { shutdownTimeoutMs: opts.shutdownTimeoutMs } : {}),
    stop: async () => {
      await opts.stop?.();
      await relay.stop();
      await bus.stop();
      await database.close();
    },
  });
}

/** An app that can listen: an express app, or anything with its `listen`. */
export interface Listenable {
  listen(port: number, host: string, cb: () => void): Server;
}

export interface ListenOptions {
  port: number;
  host: string;
  logger: Logger;
  /** The log line once it listens (with the port and `fields`). */
  listening: string;
  fields?: Record<string, unknown>;
  /** Stops what the process holds, once the listener is closed (telemetry is flushed after it). */
  stop: () => Promise<void>;
  /** Longest a stop may take before the process exits anyway (default 10 s). */
  shutdownTimeoutMs?: number;
}

/**
 * Serves `app` and stops the process cleanly on SIGTERM or SIGINT: once (a
 * terminal's Ctrl-C and the launcher's SIGTERM may both arrive), closing the
 * listener and answering the requests in flight (drainServer), then `stop`, then exporting the last spans; a stop that hangs (a
 * dead database, a stuck socket) exits after `shutdownTimeoutMs` all the same.
 * Returns the server (to tune its timeouts).
 */
export function listenUntilStopped(app: Listenable, opts: ListenOptions): Server {
  const { logger } = opts;
  const server = app.listen(opts.port, opts.host, () => logger.info({ port: opts.port, ...opts.fields }, opts.listening));
  answerClientErrorsWithJson(server);
  keepConnectionsAlive(server);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const limitMs = opts.shutdownTimeoutMs ?? 10_000;
    setTimeout(() => {
      logger.error({ limit_ms: limitMs }, 'shutdown took too long; exiting');
      process.exit(1);
    }, limitMs).unref();
    // Requests in flight are answered before the database and the bus close under them (2 s kept for the rest).
    await drainServer(server, Math.max(0, limitMs - 2000));
    await opts.stop();
    // The last spans (this shutdown's) are still buffered: export them before exiting.
    await flushTelemetry();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  return server;
}

/** The per-check answer time of `/readyz` (the whole answer is bounded by @assay/http's limit). */
const CHECK_LIMIT_MS = 800;

/**
 * `/readyz` of a service with a schema: the database is critical (nothing works without it); the
 * bus is not (every write goes through the outbox, which holds it until the bus is back), so a bus
 * outage reports `degraded` and the service stays ready. Neither check waits longer than 800 ms.
 */
export async function readinessChecks(database: { pool: Database<unknown>['pool'] }, bus: Pick<Bus, 'health'>): Promise<Record<string, ReadinessResult>> {
  const [db, b] = await Promise.all([
    withLimit(isDatabaseReachable(database.pool), CHECK_LIMIT_MS).then(
      (ok) => ({ status: ok ? ('up' as const) : ('down' as const), ...(ok ? {} : { detail: 'select 1 failed' }) }),
      () => ({ status: 'down' as const, detail: `no answer within ${CHECK_LIMIT_MS} ms` }),
    ),
    busReadiness(bus),
  ]);
  return { database: db, bus: b };
}

/** The bus as a non-critical dependency: `degraded` with the transport's reason while it is down. */
export async function busReadiness(bus: Pick<Bus, 'health'>): Promise<ReadinessResult> {
  const h = await withLimit(bus.health(), CHECK_LIMIT_MS).catch((err: Error) => ({ status: 'down' as const, detail: err.message }));
  return { status: h.status, critical: false, ...(h.detail ? { detail: h.detail } : {}) };
}

function withLimit<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
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
export { drainDue, DueScheduler, PeriodicTask, type DrainDueOptions, type DueOutcome } from './periodic.js';
