import { pino, type Logger } from 'pino';
import { activeTraceId } from '@assay/telemetry';

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

/** `trace_id` of the active span on every line written inside one (nothing when tracing is off). */
function traceMixin(): { trace_id?: string } {
  const traceId = activeTraceId();
  return traceId ? { trace_id: traceId } : {};
}

/**
 * A pino logger with the service name bound, secrets redacted and the active trace id on each line;
 * it writes to stdout unless given another destination (tests read their lines).
 */
export function createLogger(service: string, level = 'info', destination?: { write(line: string): void }): Logger {
  const options = {
    name: service,
    level,
    base: { service },
    mixin: traceMixin,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A logger that writes nothing, for tests that do not read logs. */
export function createSilentLogger(): Logger {
  return pino({ level: 'silent' });
}
