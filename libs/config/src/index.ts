/**
 * Environment configuration: read once at start, validated, typed.
 * `readConfig(env, build)` collects every problem before throwing, so a bad
 * deployment learns all of its mistakes in one start.
 */

export type Env = Record<string, string | undefined>;

/** Thrown by `readConfig` with one line per bad or missing variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

interface Opts<T> {
  default?: T;
}

export interface ConfigReader {
  /** A required string unless a default is given. */
  string(name: string, opts?: Opts<string>): string;
  optionalString(name: string): string | undefined;
  /** A string of at least `minLength` characters, for secrets. */
  secret(name: string, opts?: Opts<string> & { minLength?: number }): string;
  int(name: string, opts?: Opts<number> & { min?: number; max?: number }): number;
  bool(name: string, opts?: Opts<boolean>): boolean;
  url(name: string, opts?: Opts<string>): string;
  optionalUrl(name: string): string | undefined;
  oneOf<T extends string>(name: string, values: readonly T[], opts?: Opts<T>): T;
  list(name: string, opts?: Opts<string[]>): string[];
  /** Records a problem that involves several variables. */
  fail(message: string): void;
}

/**
 * Builds a typed config with `build(reader)`.
 * @throws ConfigError naming every invalid variable.
 */
export function readConfig<T>(env: Env, build: (r: ConfigReader) => T): T {
  const problems: string[] = [];
  const raw = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const missing = <V>(name: string, fallback: V): V => {
    problems.push(`${name} is required`);
    return fallback;
  };

  const reader: ConfigReader = {
    string(name, opts = {}) {
      return raw(name) ?? opts.default ?? missing(name, '');
    },
    optionalString(name) {
      return raw(name);
    },
    secret(name, opts = {}) {
      const v = raw(name) ?? opts.default;
      if (v === undefined) return missing(name, '');
      const min = opts.minLength ?? 32;
      if (v.length < min) problems.push(`${name} must be at least ${min} characters`);
      return v;
    },
    int(name, opts = {}) {
      const v = raw(name);
      if (v === undefined) return opts.default ?? missing(name, 0);
      const n = Number(v);
      if (!Number.isInteger(n)) {
        problems.push(`${name} must be an integer (got "${v}")`);
        return opts.default ?? 0;
      }
      if (opts.min !== undefined && n < opts.min) problems.push(`${name} must be >= ${opts.min}`);
      if (opts.max !== undefined && n > opts.max) problems.push(`${name} must be <= ${opts.max}`);
      return n;
    },
    bool(name, opts = {}) {
      const v = raw(name)?.toLowerCase();
      if (v === undefined) return opts.default ?? missing(name, false);
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off'].includes(v)) return false;
      problems.push(`${name} must be true or false (got "${v}")`);
      return false;
    },
    url(name, opts = {}) {
      const v = raw(name) ?? opts.default;
      if (v === undefined) return missing(name, '');
      if (!isUrl(v)) problems.push(`${name} must be a URL (got "${v}")`);
      return v.replace(/\/+$/, '');
    },
    optionalUrl(name) {
      const v = raw(name);
      if (v === undefined) return undefined;
      if (!isUrl(v)) problems.push(`${name} must be a URL (got "${v}")`);
      return v.replace(/\/+$/, '');
    },
    oneOf(name, values, opts = {}) {
      const v = raw(name) ?? opts.default;
      if (v === undefined) return missing(name, values[0]!);
      if (!(values as readonly string[]).includes(v)) {
        problems.push(`${name} must be one of ${values.join(', ')} (got "${v}")`);
        return values[0]!;
      }
      return v as (typeof values)[number];
    },
    list(name, opts = {}) {
      const v = raw(name);
      if (v === undefined) return opts.default ?? [];
      return v.split(',').map((s) => s.trim()).filter(Boolean);
    },
    fail(message) {
      problems.push(message);
    },
  };

  const config = build(reader);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function isUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return ['http:', 'https:', 'postgres:', 'postgresql:', 'redis:', 'rediss:'].includes(u.protocol);
  } catch {
    return false;
  }
}

export type BusKind = 'pg' | 'kafka';

/** The `KAFKA_*` settings (used when `BUS=kafka`). */
export interface KafkaConfig {
  brokers: string[];
  /** Partitions of each topic: the ceiling on busy runner and crawler replicas. */
  partitions: number;
  replicationFactor: number;
  minInsyncReplicas: number;
  /** Create missing topics at start (false where ops own the topics). */
  provisionTopics: boolean;
  sessionTimeoutMs: number;
}

/** The settings every service process shares (DESIGN.md, Configuration). */
export interface CommonConfig {
  service: string;
  host: string;
  port: number;
  logLevel: string;
  databaseUrl: string;
  bus: BusKind;
  kafka: KafkaConfig;
  internalTokenSecret: string;
  publicBaseUrl: string;
  /** false (MIGRATE_AT_START=false): the schema was migrated beforehand (the chart's migration Job); start refuses a schema with pending migrations. */
  migrateAtStart: boolean;
}

/** Reads the shared variables; `PORT` overrides the service's default port. */
export function readCommonConfig(r: ConfigReader, service: string, defaultPort: number): CommonConfig {
  const bus = r.oneOf('BUS', ['pg', 'kafka'] as const, { default: 'pg' });
  const kafka = readKafkaConfig(r);
  if (bus === 'kafka' && kafka.brokers.length === 0) r.fail('KAFKA_BROKERS is required when BUS=kafka');
  const port = r.int('PORT', { default: defaultPort, min: 0, max: 65535 });
  return {
    service,
    host: r.string('HOST', { default: '127.0.0.1' }),
    port,
    logLevel: r.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, {
      default: 'info',
    }),
    databaseUrl: r.url('DATABASE_URL'),
    bus,
    kafka,
    internalTokenSecret: r.secret('INTERNAL_TOKEN_SECRET', { minLength: 32 }),
    publicBaseUrl: r.url('PUBLIC_BASE_URL', { default: 'http://localhost:8080' }),
    migrateAtStart: r.bool('MIGRATE_AT_START', { default: true }),
  };
}

/** Reads the `KAFKA_*` variables (README, Configuration); defaults suit a cluster of three or more brokers. */
export function readKafkaConfig(r: ConfigReader): KafkaConfig {
  const replicationFactor = r.int('KAFKA_REPLICATION_FACTOR', { default: 3, min: 1, max: 32 });
  const minInsyncReplicas = r.int('KAFKA_MIN_INSYNC_REPLICAS', { default: Math.min(2, replicationFactor), min: 1, max: 32 });
  if (minInsyncReplicas > replicationFactor) r.fail('KAFKA_MIN_INSYNC_REPLICAS must be <= KAFKA_REPLICATION_FACTOR');
  return {
    brokers: r.list('KAFKA_BROKERS'),
    partitions: r.int('KAFKA_PARTITIONS', { default: 6, min: 1, max: 10_000 }),
    replicationFactor,
    minInsyncReplicas,
    provisionTopics: r.bool('KAFKA_PROVISION_TOPICS', { default: true }),
    sessionTimeoutMs: r.int('KAFKA_SESSION_TIMEOUT_MS', { default: 30_000, min: 6000, max: 3_600_000 }),
  };
}
