import { Kysely, Migrator, PostgresDialect, sql, type ColumnType, type Migration, type MigrationProvider, type MigrationResultSet, type SelectQueryBuilder } from 'kysely';
import pg from 'pg';

export { sql, type Kysely, type Migration };
export { LeasedTable, type LeasedTableSpec, type RetryOrFail } from './leases.js';

/** Column types the services' table interfaces share (`timestamptz` reads as a Date, writes as a Date or an ISO string). */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamp the database fills in by default. */
export type DefaultTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** A jsonb column written as a JSON string. */
export type Json<T> = ColumnType<T, string, string>;

// Postgres int8 (count(*), bigint columns) as JS numbers: our counters stay far below 2^53.
pg.types.setTypeParser(20, (v: string) => Number(v));

const SCHEMA_NAME = /^[a-z][a-z0-9_]{0,62}$/;

export interface DatabaseOptions {
  connectionString: string;
  /** The service's own Postgres schema; every unqualified table lives there. */
  schema: string;
  /** Pool size (default 10). */
  max?: number;
  applicationName?: string;
}

export interface Database<DB> {
  db: Kysely<DB>;
  pool: pg.Pool;
  schema: string;
  close(): Promise<void>;
}

function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`Invalid schema name "${schema}"`);
}

/**
 * A Kysely handle whose connections have `search_path` set to the service's
 * schema, so queries name tables without a schema prefix.
 */
export function createDatabase<DB>(opts: DatabaseOptions): Database<DB> {
  assertSchemaName(opts.schema);
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? opts.schema,
    options: `-c search_path=${opts.schema}`,
    connectionTimeoutMillis: 10_000,
  });
  // A connection lost (Postgres restart, failover, terminated backend) must not
  // crash the process. Idle clients report it on the pool, which replaces them.
  // A client checked out but between queries (inside a transaction) reports it
  // on itself, where nothing listens: its next query fails instead, and the
  // pool drops it on release.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool, schema: opts.schema, close: () => db.destroy() };
}

class StaticMigrationProvider implements MigrationProvider {
  constructor(private readonly migrations: Record<string, Migration>) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return this.migrations;
  }
}

/**
 * Creates the schema when missing and applies every pending migration; the
 * migration table lives inside the schema. Safe to run from several replicas
 * at once: an advisory lock serialises them.
 * @throws the first migration error, after logging nothing (the caller decides).
 */
export async function migrateToLatest<DB>(
  database: Database<DB>,
  migrations: Record<string, Migration>,
): Promise<MigrationResultSet> {
  const { db, schema } = database;
  assertSchemaName(schema);
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(hashtext(${`assay.migrate.${schema}`}))`.execute(conn);
    try {
      await sql`create schema if not exists ${sql.id(schema)}`.execute(conn);
      // A schema newer than this code (a Deployment rolled back after the new release migrated): the migrations
      // this code does not know are taken as applied, not as a corrupted history (Kysely's refusal), so the
      // previous release starts on the new schema, which docs/upgrading.md's rules keep readable by it.
      const newer = await executedUnknown(conn, schema, migrations);
      const known = { ...migrations, ...Object.fromEntries(newer.map((name) => [name, APPLIED_ELSEWHERE])) };
      const migrator = new Migrator({
        db: conn,
        provider: new StaticMigrationProvider(known),
        migrationTableSchema: schema,
      });
      const result = await migrator.migrateToLatest();
      if (result.error) throw result.error;
      return result;
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${`assay.migrate.${schema}`}))`.execute(conn);
    }
  });
}

/** Stands for a migration a newer release applied: never run by this code (it is applied already). */
const APPLIED_ELSEWHERE: Migration = {
  up: async () => {
    throw new Error('a newer release applied this migration; this code cannot run it');
  },
};

/** Migrations the schema's migration table records that `migrations` does not name (a newer release's), oldest first. */
async function executedUnknown(db: Kysely<any>, schema: string, migrations: Record<string, Migration>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from ${sql.id(schema, 'kysely_migration')} order by name`
    .execute(db)
    .catch((err: { code?: string }) => {
      // No migration table yet: a new schema.
      if (err.code === '42P01') return { rows: [] as Array<{ name: string }> };
      throw err;
    });
  return rows.map((r) => r.name).filter((name) => !(name in migrations));
}

/** Names of the migrations not yet applied to the database's schema (all of them when it has none). */
export async function pendingMigrations<DB>(database: Database<DB>, migrations: Record<string, Migration>): Promise<string[]> {
  const { db, schema } = database;
  assertSchemaName(schema);
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider(migrations), migrationTableSchema: schema });
  const known = await migrator.getMigrations();
  return known.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/** True when a query reaches the database; used by `/readyz`. */
export async function isDatabaseReachable(pool: pg.Pool): Promise<boolean> {
  try {
    await pool.query('select 1');
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves once Postgres answers, trying every `stepMs` for at most `timeoutMs`; false when it never did.
 * A service started while Postgres restarts (a failover, a pod rescheduled beside its database) waits
 * for it instead of exiting at its first query (found by `make soak`: a runner restarted during a
 * Postgres restart exited with ECONNREFUSED, and `make run` would have stopped everything).
 */
export async function waitForDatabase(pool: pg.Pool, opts: { timeoutMs: number; stepMs?: number; onWait?: () => void }): Promise<boolean> {
  const deadline = Date.now() + opts.timeoutMs;
  let told = false;
  for (;;) {
    if (await isDatabaseReachable(pool)) return true;
    if (Date.now() >= deadline) return false;
    if (!told) opts.onWait?.();
    told = true;
    await new Promise((r) => setTimeout(r, opts.stepMs ?? 1000));
  }
}

/** Postgres unique-violation, for turning races into 409s. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === '23505';
}

/**
 * Runs `fn` in a transaction, joining the caller's when `db` is one already,
 * so service functions compose (Kysely refuses nested `transaction()` calls).
 */
export function withTransaction<DB, T>(db: Kysely<DB>, fn: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/** Postgres aborted the transaction to break a deadlock (40P01) or a serialization conflict (40001): running it again can succeed. */
export function isRetryableConflict(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: string }).code : undefined;
  return code === '40P01' || code === '40001';
}

/**
 * Runs `fn` again, up to `attempts` times in all with a short random pause,
 * when Postgres aborted it as a deadlock victim or a serialization failure.
 * Only for work that is safe to repeat: `fn` must do nothing outside the
 * database that a second run would do twice.
 * @throws the last error, or at once any error that is not such a conflict.
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, attempts = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (!isRetryableConflict(err) || i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 20 * i + Math.random() * 50));
    }
  }
}

/**
 * One page of a list and the number of rows its filters match, read in
 * parallel: `page` is the query of the page (columns, order, limit, offset),
 * `filtered` the same query with its filters only (it is counted).
 * Repositories of every service list this way.
 */
export async function selectPage<R>(page: { execute(): Promise<R[]> }, filtered: SelectQueryBuilder<any, any, any>): Promise<{ rows: R[]; total: number }> {
  const [rows, count] = await Promise.all([page.execute(), filtered.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()]);
  return { rows, total: Number((count as { n: number | string }).n) };
}

export { PgNotifier } from './notifier.js';
