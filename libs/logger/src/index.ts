import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Paths whose values never reach a log line: credentials in headers and
 * secrets in bodies or objects we log.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-assay-principal"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.password',
  '*.secret',
  '*.key',
  '*.token',
];

/** A pino logger with the service name bound and secrets redacted. */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

/** A logger that writes nothing, for tests that do not read logs. */
export function createSilentLogger(): Logger {
  return pino({ level: 'silent' });
}
