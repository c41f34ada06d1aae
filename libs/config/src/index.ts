/**
 * Environment configuration: read once at start, validated, typed.
 * `readConfig(env, build)` collects every problem before throwing, so a bad
 * deployment learns all of its mistakes in one start.
 */

import { readFileSync } from 'node:fs';

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
  const given = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  // NAME_FILE, the path of a file holding NAME's value (a mounted Secret): a secret then never sits in the environment.
  const raw = (name: string): string | undefined => {
    const file = name.endsWith('_FILE') ? undefined : given(`${name}_FILE`);
    if (file === undefined) return given(name);
    if (given(name) !== undefined) {
      problems.push(`${name} and ${name}_FILE are both set: give one`);
      return given(name);
    }
    try {
      const v = readFileSync(file, 'utf8').trim();
      return v === '' ? undefined : v;
    } catch (err) {
      problems.push(`${name}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      return undefined;
    }
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
  /** TLS to the brokers (`KAFKA_TLS*`); undefined: plaintext. */
  tls?: KafkaTlsConfig;
  /** SASL authentication (`KAFKA_SASL_*`); undefined: none. */
  sasl?: KafkaSaslConfig;
  /** Delays of the retry ladder (`KAFKA_RETRY_DELAYS`, ms): a failing message goes to retry topic n after delay n, then to the DLQ. */
  retryDelaysMs: number[];
}

/** File paths are read at start (mounted from Kubernetes Secrets); nothing secret is held in the environment. */
export interface KafkaTlsConfig {
  /** PEM CA bundle; unset: the system's trust store (public CAs of managed clusters). */
  caFile?: string;
  /** PEM client certificate and key for mTLS (both or neither). */
  certFile?: string;
  keyFile?: string;
  /** SNI and certificate host name when it differs from the broker address. */
  serverName?: string;
  /** false only for a test cluster with a self-signed certificate (default true). */
  rejectUnauthorized: boolean;
}

export type KafkaSaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512' | 'oauthbearer';

export type KafkaSaslConfig =
  | { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string }
  | {
      mechanism: 'oauthbearer';
      /** A file holding the current token, read at every (re)authentication (a sidecar or projected volume refreshes it). */
      tokenFile?: string;
      /** A module whose default export (or `tokenProvider`) returns `{ value }`: the hook for AWS MSK IAM and OIDC clients. */
      tokenProvider?: string;
    };

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
  /** OUTBOX_LINGER_MS: how long the outbox relay gathers events written close together before it publishes them as one batch. */
  outboxLingerMs: number;
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
    outboxLingerMs: r.int('OUTBOX_LINGER_MS', { default: 250, min: 0, max: 5000 }),
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
    ...readKafkaSecurity(r),
    retryDelaysMs: readDurations(r, 'KAFKA_RETRY_DELAYS', [10_000, 60_000, 600_000]),
  };
}

const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer'] as const satisfies readonly KafkaSaslMechanism[];

/**
 * `KAFKA_TLS*` and `KAFKA_SASL_*`: every combination a managed cluster needs, and a
 * problem for each one that cannot work (a password sent in clear, half an mTLS pair).
 */
function readKafkaSecurity(r: ConfigReader): { tls?: KafkaTlsConfig; sasl?: KafkaSaslConfig } {
  const caFile = r.optionalString('KAFKA_TLS_CA_FILE');
  const certFile = r.optionalString('KAFKA_TLS_CERT_FILE');
  const keyFile = r.optionalString('KAFKA_TLS_KEY_FILE');
  const serverName = r.optionalString('KAFKA_TLS_SERVERNAME');
  const anyTlsFile = Boolean(caFile || certFile || keyFile || serverName);
  const tlsOn = r.bool('KAFKA_TLS', { default: anyTlsFile });
  if (!tlsOn && anyTlsFile) r.fail('KAFKA_TLS=false but KAFKA_TLS_CA_FILE, KAFKA_TLS_CERT_FILE, KAFKA_TLS_KEY_FILE or KAFKA_TLS_SERVERNAME is set');
  if (Boolean(certFile) !== Boolean(keyFile)) r.fail('KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE go together (mTLS needs both)');
  const rejectUnauthorized = r.bool('KAFKA_TLS_REJECT_UNAUTHORIZED', { default: true });
  const tls: KafkaTlsConfig | undefined = tlsOn
    ? { rejectUnauthorized, ...(caFile ? { caFile } : {}), ...(certFile ? { certFile } : {}), ...(keyFile ? { keyFile } : {}), ...(serverName ? { serverName } : {}) }
    : undefined;

  const mechanismRaw = r.optionalString('KAFKA_SASL_MECHANISM')?.toLowerCase();
  const username = r.optionalString('KAFKA_SASL_USERNAME');
  const password = r.optionalString('KAFKA_SASL_PASSWORD');
  const tokenFile = r.optionalString('KAFKA_SASL_OAUTHBEARER_TOKEN_FILE');
  const tokenProvider = r.optionalString('KAFKA_SASL_OAUTHBEARER_PROVIDER');
  if (mechanismRaw === undefined) {
    if (username || password || tokenFile || tokenProvider) r.fail('KAFKA_SASL_MECHANISM is required when KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD or KAFKA_SASL_OAUTHBEARER_* is set');
    return tls ? { tls } : {};
  }
  if (!(SASL_MECHANISMS as readonly string[]).includes(mechanismRaw)) {
    r.fail(`KAFKA_SASL_MECHANISM must be one of ${SASL_MECHANISMS.join(', ')} (got "${mechanismRaw}")`);
    return tls ? { tls } : {};
  }
  const mechanism = mechanismRaw as KafkaSaslMechanism;
  let sasl: KafkaSaslConfig;
  if (mechanism === 'oauthbearer') {
    if (Boolean(tokenFile) === Boolean(tokenProvider)) r.fail('KAFKA_SASL_MECHANISM=oauthbearer needs exactly one of KAFKA_SASL_OAUTHBEARER_TOKEN_FILE and KAFKA_SASL_OAUTHBEARER_PROVIDER');
    if (username || password) r.fail('KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD are not used with oauthbearer: unset them');
    sasl = { mechanism, ...(tokenFile ? { tokenFile } : {}), ...(tokenProvider ? { tokenProvider } : {}) };
  } else {
    if (!username) r.fail(`KAFKA_SASL_USERNAME is required with KAFKA_SASL_MECHANISM=${mechanism}`);
    if (!password) r.fail(`KAFKA_SASL_PASSWORD is required with KAFKA_SASL_MECHANISM=${mechanism}`);
    if (tokenFile || tokenProvider) r.fail(`KAFKA_SASL_OAUTHBEARER_* is only used with KAFKA_SASL_MECHANISM=oauthbearer`);
    sasl = { mechanism, username: username ?? '', password: password ?? '' };
  }
  // PLAIN sends the password as it is, and a bearer token is as good as a password: only over TLS.
  if (!tls && (mechanism === 'plain' || mechanism === 'oauthbearer')) r.fail(`KAFKA_SASL_MECHANISM=${mechanism} sends the credential in clear: set KAFKA_TLS=true`);
  return { ...(tls ? { tls } : {}), sasl };
}

/** A comma-separated list of durations (`10s`, `1m`, `500ms`, or plain milliseconds), each > 0. */
function readDurations(r: ConfigReader, name: string, fallback: number[]): number[] {
  const items = r.list(name);
  if (items.length === 0) return fallback;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const out: number[] = [];
  for (const item of items) {
    const m = /^(\d+)(ms|s|m|h)?$/.exec(item);
    const ms = m ? Number(m[1]) * units[m[2] ?? 'ms']! : NaN;
    if (!Number.isFinite(ms) || ms <= 0) {
      r.fail(`${name} must be a comma-separated list of durations such as 10s,1m,10m (got "${item}")`);
      return fallback;
    }
    out.push(ms);
  }
  if (out.length > 10) r.fail(`${name} has at most 10 steps (got ${out.length})`);
  return out;
}
