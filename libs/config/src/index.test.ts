import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, readConfig, readCommonConfig, type ConfigReader, type Env } from './index.js';

const SECRET = 'x'.repeat(32);

/** Runs `build` on `env` and returns the ConfigError it throws (fails the test when none is thrown). */
function problemsOf<T>(env: Env, build: (r: ConfigReader) => T): string[] {
  try {
    readConfig(env, build);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected readConfig to throw a ConfigError');
}

describe('readConfig', () => {
  it('returns the value built from a valid environment', () => {
    const config = readConfig({ NAME: 'assay', COUNT: '3' }, (r) => ({ name: r.string('NAME'), count: r.int('COUNT') }));
    expect(config).toEqual({ name: 'assay', count: 3 });
  });

  it('collects every problem into one ConfigError instead of stopping at the first', () => {
    let caught: unknown;
    try {
      readConfig(
        { COUNT: 'many', FLAG: 'maybe', HOME_URL: 'not a url', MODE: 'turbo' },
        (r) => ({
          name: r.string('NAME'),
          count: r.int('COUNT'),
          flag: r.bool('FLAG'),
          home: r.url('HOME_URL'),
          mode: r.oneOf('MODE', ['fast', 'slow'] as const),
          key: r.secret('KEY'),
        }),
      );
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.name).toBe('ConfigError');
    expect(error.problems).toEqual([
      'NAME is required',
      'COUNT must be an integer (got "many")',
      'FLAG must be true or false (got "maybe")',
      'HOME_URL must be a URL (got "not a url")',
      'MODE must be one of fast, slow (got "turbo")',
      'KEY is required',
    ]);
    // The message lists each problem on its own line so one failed start shows them all.
    expect(error.message).toBe(
      'Invalid configuration:\n' +
        '  - NAME is required\n' +
        '  - COUNT must be an integer (got "many")\n' +
        '  - FLAG must be true or false (got "maybe")\n' +
        '  - HOME_URL must be a URL (got "not a url")\n' +
        '  - MODE must be one of fast, slow (got "turbo")\n' +
        '  - KEY is required',
    );
  });

  it('records problems added with fail() alongside the variable problems', () => {
    expect(
      problemsOf({}, (r) => {
        r.fail('A and B cannot both be set');
        return r.string('NAME');
      }),
    ).toEqual(['A and B cannot both be set', 'NAME is required']);
  });

  it('does not call the environment valid when only fail() was used', () => {
    expect(problemsOf({ NAME: 'x' }, (r) => r.fail('nope'))).toEqual(['nope']);
  });

  describe('string', () => {
    it('trims surrounding whitespace', () => {
      expect(readConfig({ NAME: '  assay \n' }, (r) => r.string('NAME'))).toBe('assay');
    });

    it('uses the default when the variable is unset, empty or blank', () => {
      for (const value of [undefined, '', '   ']) {
        expect(readConfig({ NAME: value }, (r) => r.string('NAME', { default: 'fallback' }))).toBe('fallback');
      }
    });

    it('calls a blank required variable missing', () => {
      expect(problemsOf({ NAME: '  ' }, (r) => r.string('NAME'))).toEqual(['NAME is required']);
    });

    it('prefers the variable over the default', () => {
      expect(readConfig({ NAME: 'set' }, (r) => r.string('NAME', { default: 'fallback' }))).toBe('set');
    });

    it('returns undefined from optionalString for an unset or blank variable and the trimmed value otherwise', () => {
      expect(readConfig({ A: ' ', C: ' c ' }, (r) => [r.optionalString('A'), r.optionalString('B'), r.optionalString('C')])).toEqual([
        undefined,
        undefined,
        'c',
      ]);
    });
  });

  describe('secret', () => {
    it('refuses a secret shorter than 32 characters by default', () => {
      expect(problemsOf({ KEY: 'x'.repeat(31) }, (r) => r.secret('KEY'))).toEqual(['KEY must be at least 32 characters']);
    });

    it('accepts a secret of exactly the minimum length', () => {
      expect(readConfig({ KEY: SECRET }, (r) => r.secret('KEY'))).toBe(SECRET);
    });

    it('honours a custom minimum length', () => {
      expect(readConfig({ KEY: 'abcd' }, (r) => r.secret('KEY', { minLength: 4 }))).toBe('abcd');
      expect(problemsOf({ KEY: 'abcd' }, (r) => r.secret('KEY', { minLength: 5 }))).toEqual(['KEY must be at least 5 characters']);
    });

    it('checks the default against the minimum length too', () => {
      expect(problemsOf({}, (r) => r.secret('KEY', { default: 'short' }))).toEqual(['KEY must be at least 32 characters']);
    });

    it('calls a missing secret required', () => {
      expect(problemsOf({}, (r) => r.secret('KEY'))).toEqual(['KEY is required']);
    });
  });

  describe('int', () => {
    it('parses an integer', () => {
      expect(readConfig({ N: ' 42 ' }, (r) => r.int('N'))).toBe(42);
      expect(readConfig({ N: '-7' }, (r) => r.int('N'))).toBe(-7);
    });

    it('uses the default when the variable is unset and requires it otherwise', () => {
      expect(readConfig({}, (r) => r.int('N', { default: 5 }))).toBe(5);
      expect(readConfig({}, (r) => r.int('N', { default: 0 }))).toBe(0);
      expect(problemsOf({}, (r) => r.int('N'))).toEqual(['N is required']);
    });

    it('refuses non-integers', () => {
      for (const value of ['1.5', 'ten', '12abc', 'NaN', 'Infinity']) {
        expect(problemsOf({ N: value }, (r) => r.int('N', { default: 1 }))).toEqual([`N must be an integer (got "${value}")`]);
      }
    });

    it('accepts values on the bounds and refuses values beyond them', () => {
      const build = (r: ConfigReader) => r.int('N', { min: 1, max: 10 });
      expect(readConfig({ N: '1' }, build)).toBe(1);
      expect(readConfig({ N: '10' }, build)).toBe(10);
      expect(problemsOf({ N: '0' }, build)).toEqual(['N must be >= 1']);
      expect(problemsOf({ N: '11' }, build)).toEqual(['N must be <= 10']);
    });

    it('does not check the default against the bounds', () => {
      // The default is the programmer's choice, not the operator's input.
      expect(readConfig({}, (r) => r.int('N', { default: 0, min: 1 }))).toBe(0);
    });
  });

  describe('bool', () => {
    it.each(['1', 'true', 'TRUE', 'yes', 'Yes', 'on', ' on '])('reads %p as true', (value) => {
      expect(readConfig({ B: value }, (r) => r.bool('B'))).toBe(true);
    });

    it.each(['0', 'false', 'False', 'no', 'NO', 'off'])('reads %p as false', (value) => {
      expect(readConfig({ B: value }, (r) => r.bool('B', { default: true }))).toBe(false);
    });

    it('uses the default when unset and requires the variable otherwise', () => {
      expect(readConfig({}, (r) => r.bool('B', { default: true }))).toBe(true);
      expect(readConfig({}, (r) => r.bool('B', { default: false }))).toBe(false);
      expect(problemsOf({}, (r) => r.bool('B'))).toEqual(['B is required']);
    });

    it('refuses anything else, naming the value', () => {
      const [problem] = problemsOf({ B: 'Enabled' }, (r) => r.bool('B', { default: true }));
      expect(problem).toMatch(/^B must be true or false \(got "enabled"\)$/i);
      expect(problemsOf({ B: '2' }, (r) => r.bool('B'))).toEqual(['B must be true or false (got "2")']);
    });
  });

  describe('url', () => {
    it('accepts http, https, postgres and redis URLs', () => {
      for (const value of [
        'http://localhost:8080',
        'https://assay.example.com/api',
        'postgres://u:p@db:5432/assay',
        'postgresql://db/assay',
        'redis://cache:6379',
        'rediss://cache:6380',
      ]) {
        expect(readConfig({ U: value }, (r) => r.url('U'))).toBe(value);
      }
    });

    it('trims trailing slashes', () => {
      expect(readConfig({ U: 'https://assay.example.com/' }, (r) => r.url('U'))).toBe('https://assay.example.com');
      expect(readConfig({ U: 'https://assay.example.com/base///' }, (r) => r.url('U'))).toBe('https://assay.example.com/base');
      expect(readConfig({}, (r) => r.url('U', { default: 'http://localhost:8080/' }))).toBe('http://localhost:8080');
    });

    it('refuses text that is not a URL and URLs of other protocols', () => {
      for (const value of ['localhost:8080', 'not a url', 'ftp://files.example.com', 'file:///etc/passwd', 'javascript:alert(1)']) {
        expect(problemsOf({ U: value }, (r) => r.url('U'))).toEqual([`U must be a URL (got "${value}")`]);
      }
    });

    it('requires the variable without a default', () => {
      expect(problemsOf({}, (r) => r.url('U'))).toEqual(['U is required']);
    });

    it('validates the default too', () => {
      expect(problemsOf({}, (r) => r.url('U', { default: 'nowhere' }))).toEqual(['U must be a URL (got "nowhere")']);
    });

    it('returns undefined from optionalUrl when unset and validates and trims it when set', () => {
      expect(readConfig({}, (r) => r.optionalUrl('U'))).toBeUndefined();
      expect(readConfig({ U: '' }, (r) => r.optionalUrl('U'))).toBeUndefined();
      expect(readConfig({ U: 'http://hooks.example.com/' }, (r) => r.optionalUrl('U'))).toBe('http://hooks.example.com');
      expect(problemsOf({ U: 'hooks' }, (r) => r.optionalUrl('U'))).toEqual(['U must be a URL (got "hooks")']);
    });
  });

  describe('oneOf', () => {
    const MODES = ['fast', 'slow'] as const;

    it('returns an allowed value', () => {
      expect(readConfig({ MODE: 'slow' }, (r) => r.oneOf('MODE', MODES))).toBe('slow');
    });

    it('uses the default when unset and requires the variable otherwise', () => {
      expect(readConfig({}, (r) => r.oneOf('MODE', MODES, { default: 'slow' }))).toBe('slow');
      expect(problemsOf({}, (r) => r.oneOf('MODE', MODES))).toEqual(['MODE is required']);
    });

    it('refuses a value outside the list, listing the allowed ones', () => {
      expect(problemsOf({ MODE: 'FAST' }, (r) => r.oneOf('MODE', MODES))).toEqual(['MODE must be one of fast, slow (got "FAST")']);
    });
  });

  describe('list', () => {
    it('splits on commas, trims the items and drops empty ones', () => {
      expect(readConfig({ L: ' a, b ,,c , ' }, (r) => r.list('L'))).toEqual(['a', 'b', 'c']);
    });

    it('is empty when unset, unless a default is given', () => {
      expect(readConfig({}, (r) => r.list('L'))).toEqual([]);
      expect(readConfig({ L: '  ' }, (r) => r.list('L', { default: ['x'] }))).toEqual(['x']);
    });

    it('never reports a problem, even when only commas are given', () => {
      expect(readConfig({ L: ',,,' }, (r) => r.list('L'))).toEqual([]);
    });
  });
});

describe('NAME_FILE', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'assay-config-'));
  const file = (name: string, text: string) => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('reads a variable from the file NAME_FILE names, trimmed, so a mounted Secret need not be in the environment', () => {
    const env: Env = { DATABASE_URL_FILE: file('db', 'postgres://a:b@db:5432/assay\n'), INTERNAL_TOKEN_SECRET_FILE: file('token', `${SECRET}\n`) };
    const config = readConfig(env, (r) => readCommonConfig(r, 'execution-runner', 8083));
    expect(config.databaseUrl).toBe('postgres://a:b@db:5432/assay');
    expect(config.internalTokenSecret).toBe(SECRET);
  });

  it('refuses a file it cannot read, both forms at once, and checks a value from a file as any other', () => {
    expect(problemsOf({ NAME_FILE: path.join(dir, 'absent') }, (r) => r.string('NAME'))).toEqual([`NAME_FILE: cannot read ${path.join(dir, 'absent')} (ENOENT)`, 'NAME is required']);
    expect(problemsOf({ NAME: 'a', NAME_FILE: file('n', 'b') }, (r) => r.string('NAME'))).toEqual(['NAME and NAME_FILE are both set: give one']);
    expect(problemsOf({ S_FILE: file('short', 'too-short') }, (r) => r.secret('S'))).toEqual(['S must be at least 32 characters']);
  });
});

describe('readCommonConfig', () => {
  const base: Env = { DATABASE_URL: 'postgres://assay:assay@localhost:5432/assay', INTERNAL_TOKEN_SECRET: SECRET };

  it('applies the defaults for everything but the database and the token secret', () => {
    expect(readConfig(base, (r) => readCommonConfig(r, 'auth', 3001))).toEqual({
      service: 'auth',
      host: '127.0.0.1',
      port: 3001,
      logLevel: 'info',
      databaseUrl: 'postgres://assay:assay@localhost:5432/assay',
      bus: 'pg',
      kafka: { brokers: [], partitions: 6, replicationFactor: 3, minInsyncReplicas: 2, provisionTopics: true, sessionTimeoutMs: 30_000, retryDelaysMs: [10_000, 60_000, 600_000] },
      internalTokenSecret: SECRET,
      publicBaseUrl: 'http://localhost:8080',
      migrateAtStart: true,
      outboxLingerMs: 250,
    });
  });

  it('reads every variable when set', () => {
    const config = readConfig(
      {
        ...base,
        HOST: '0.0.0.0',
        PORT: '9000',
        LOG_LEVEL: 'debug',
        BUS: 'kafka',
        KAFKA_BROKERS: 'k1:9092, k2:9092',
        KAFKA_PARTITIONS: '12',
        KAFKA_REPLICATION_FACTOR: '1',
        KAFKA_PROVISION_TOPICS: 'false',
        KAFKA_SESSION_TIMEOUT_MS: '45000',
        PUBLIC_BASE_URL: 'https://assay.example.com/',
        MIGRATE_AT_START: 'false',
        OUTBOX_LINGER_MS: '0',
      },
      (r) => readCommonConfig(r, 'gateway', 8080),
    );
    expect(config).toEqual({
      service: 'gateway',
      host: '0.0.0.0',
      port: 9000,
      logLevel: 'debug',
      databaseUrl: 'postgres://assay:assay@localhost:5432/assay',
      bus: 'kafka',
      // KAFKA_MIN_INSYNC_REPLICAS defaults to at most the replication factor.
      kafka: { brokers: ['k1:9092', 'k2:9092'], partitions: 12, replicationFactor: 1, minInsyncReplicas: 1, provisionTopics: false, sessionTimeoutMs: 45_000, retryDelaysMs: [10_000, 60_000, 600_000] },
      internalTokenSecret: SECRET,
      publicBaseUrl: 'https://assay.example.com',
      migrateAtStart: false,
      outboxLingerMs: 0,
    });
  });

  it('refuses Kafka settings the cluster could never satisfy', () => {
    expect(
      problemsOf({ ...base, KAFKA_REPLICATION_FACTOR: '2', KAFKA_MIN_INSYNC_REPLICAS: '3', KAFKA_PARTITIONS: '0' }, (r) => readCommonConfig(r, 'auth', 3001)),
    ).toEqual(['KAFKA_MIN_INSYNC_REPLICAS must be <= KAFKA_REPLICATION_FACTOR', 'KAFKA_PARTITIONS must be >= 1']);
  });

  describe('Kafka TLS and SASL', () => {
    const kafka = (env: Env) => readConfig({ ...base, BUS: 'kafka', KAFKA_BROKERS: 'k:9093', ...env }, (r) => readCommonConfig(r, 'auth', 3001)).kafka;
    const problems = (env: Env) => problemsOf({ ...base, BUS: 'kafka', KAFKA_BROKERS: 'k:9093', ...env }, (r) => readCommonConfig(r, 'auth', 3001));

    it('reads TLS with a CA bundle, mTLS and a server name, and SCRAM', () => {
      const k = kafka({
        KAFKA_TLS_CA_FILE: '/s/ca.pem',
        KAFKA_TLS_CERT_FILE: '/s/tls.crt',
        KAFKA_TLS_KEY_FILE: '/s/tls.key',
        KAFKA_TLS_SERVERNAME: 'broker.internal',
        KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
        KAFKA_SASL_USERNAME: 'assay',
        KAFKA_SASL_PASSWORD: 'pw',
      });
      // Any TLS file turns TLS on.
      expect(k.tls).toEqual({ rejectUnauthorized: true, caFile: '/s/ca.pem', certFile: '/s/tls.crt', keyFile: '/s/tls.key', serverName: 'broker.internal' });
      expect(k.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'assay', password: 'pw' });
    });

    it('reads TLS on the system trust store with PLAIN (Confluent Cloud), and OAUTHBEARER with a token file or a provider module', () => {
      expect(kafka({ KAFKA_TLS: 'true', KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'key', KAFKA_SASL_PASSWORD: 'secret' })).toMatchObject({
        tls: { rejectUnauthorized: true },
        sasl: { mechanism: 'plain', username: 'key', password: 'secret' },
      });
      expect(kafka({ KAFKA_TLS: 'true', KAFKA_SASL_MECHANISM: 'oauthbearer', KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: '/var/run/token' }).sasl).toEqual({ mechanism: 'oauthbearer', tokenFile: '/var/run/token' });
      expect(kafka({ KAFKA_TLS: 'true', KAFKA_SASL_MECHANISM: 'oauthbearer', KAFKA_SASL_OAUTHBEARER_PROVIDER: '/app/msk-iam.mjs' }).sasl).toEqual({ mechanism: 'oauthbearer', tokenProvider: '/app/msk-iam.mjs' });
      // SCRAM does not send the password: allowed without TLS (a private network).
      expect(kafka({ KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' })).toEqual(expect.not.objectContaining({ tls: expect.anything() }));
      expect(kafka({}).tls).toBeUndefined();
      expect(kafka({}).sasl).toBeUndefined();
    });

    it('refuses combinations that cannot work, naming the variables', () => {
      expect(problems({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' })).toEqual([
        'KAFKA_SASL_MECHANISM=plain sends the credential in clear: set KAFKA_TLS=true',
      ]);
      expect(problems({ KAFKA_TLS: 'true', KAFKA_SASL_MECHANISM: 'scram-sha-256' })).toEqual([
        'KAFKA_SASL_USERNAME is required with KAFKA_SASL_MECHANISM=scram-sha-256',
        'KAFKA_SASL_PASSWORD is required with KAFKA_SASL_MECHANISM=scram-sha-256',
      ]);
      expect(problems({ KAFKA_TLS: 'true', KAFKA_SASL_MECHANISM: 'gssapi' })).toEqual([
        'KAFKA_SASL_MECHANISM must be one of plain, scram-sha-256, scram-sha-512, oauthbearer (got "gssapi")',
      ]);
      expect(problems({ KAFKA_SASL_USERNAME: 'u' })).toEqual([
        'KAFKA_SASL_MECHANISM is required when KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD or KAFKA_SASL_OAUTHBEARER_* is set',
      ]);
      expect(problems({ KAFKA_TLS: 'true', KAFKA_SASL_MECHANISM: 'oauthbearer' })).toEqual([
        'KAFKA_SASL_MECHANISM=oauthbearer needs exactly one of KAFKA_SASL_OAUTHBEARER_TOKEN_FILE and KAFKA_SASL_OAUTHBEARER_PROVIDER',
      ]);
      expect(problems({ KAFKA_TLS_CERT_FILE: '/c.pem' })).toEqual(['KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE go together (mTLS needs both)']);
      expect(problems({ KAFKA_TLS: 'false', KAFKA_TLS_CA_FILE: '/ca.pem' })).toEqual([
        'KAFKA_TLS=false but KAFKA_TLS_CA_FILE, KAFKA_TLS_CERT_FILE, KAFKA_TLS_KEY_FILE or KAFKA_TLS_SERVERNAME is set',
      ]);
    });

    it('reads the retry ladder and refuses a bad one', () => {
      expect(kafka({ KAFKA_RETRY_DELAYS: '500ms, 5s,2m,1h,250' }).retryDelaysMs).toEqual([500, 5000, 120_000, 3_600_000, 250]);
      expect(problems({ KAFKA_RETRY_DELAYS: '10s,soon' })).toEqual(['KAFKA_RETRY_DELAYS must be a comma-separated list of durations such as 10s,1m,10m (got "soon")']);
    });
  });

  it('lets PORT override the service default port', () => {
    expect(readConfig({ ...base, PORT: '4321' }, (r) => readCommonConfig(r, 'auth', 3001)).port).toBe(4321);
    expect(readConfig({ ...base, PORT: '0' }, (r) => readCommonConfig(r, 'auth', 3001)).port).toBe(0);
  });

  it('refuses a PORT outside 0..65535 or not a number', () => {
    expect(problemsOf({ ...base, PORT: '65536' }, (r) => readCommonConfig(r, 'auth', 3001))).toEqual(['PORT must be <= 65535']);
    expect(problemsOf({ ...base, PORT: '-1' }, (r) => readCommonConfig(r, 'auth', 3001))).toEqual(['PORT must be >= 0']);
    expect(problemsOf({ ...base, PORT: 'http' }, (r) => readCommonConfig(r, 'auth', 3001))).toEqual([
      'PORT must be an integer (got "http")',
    ]);
  });

  it('calls BUS=kafka without KAFKA_BROKERS a problem', () => {
    expect(problemsOf({ ...base, BUS: 'kafka' }, (r) => readCommonConfig(r, 'auth', 3001))).toEqual([
      'KAFKA_BROKERS is required when BUS=kafka',
    ]);
    expect(problemsOf({ ...base, BUS: 'kafka', KAFKA_BROKERS: ' , ' }, (r) => readCommonConfig(r, 'auth', 3001))).toEqual([
      'KAFKA_BROKERS is required when BUS=kafka',
    ]);
  });

  it('ignores KAFKA_BROKERS being unset on the pg bus', () => {
    expect(readConfig({ ...base, BUS: 'pg' }, (r) => readCommonConfig(r, 'auth', 3001)).bus).toBe('pg');
  });

  it('refuses an unknown bus and an unknown log level', () => {
    expect(problemsOf({ ...base, BUS: 'rabbit', LOG_LEVEL: 'loud' }, (r) => readCommonConfig(r, 'auth', 3001))).toEqual([
      'BUS must be one of pg, kafka (got "rabbit")',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    ]);
  });

  it('refuses an INTERNAL_TOKEN_SECRET shorter than 32 characters', () => {
    expect(
      problemsOf({ ...base, INTERNAL_TOKEN_SECRET: 'too-short-secret' }, (r) => readCommonConfig(r, 'auth', 3001)),
    ).toEqual(['INTERNAL_TOKEN_SECRET must be at least 32 characters']);
  });

  it('lists every problem of an empty environment at once', () => {
    expect(problemsOf({ BUS: 'kafka' }, (r) => readCommonConfig(r, 'auth', 3001))).toEqual([
      'KAFKA_BROKERS is required when BUS=kafka',
      'DATABASE_URL is required',
      'INTERNAL_TOKEN_SECRET is required',
    ]);
  });

  it('refuses a DATABASE_URL that is not a URL', () => {
    expect(problemsOf({ ...base, DATABASE_URL: 'localhost:5432' }, (r) => readCommonConfig(r, 'auth', 3001))).toEqual([
      'DATABASE_URL must be a URL (got "localhost:5432")',
    ]);
  });
});
