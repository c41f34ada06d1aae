/**
 * The tracing preload, loaded before a service's own modules:
 *
 *   node --import tsx --import ./libs/telemetry/src/register.ts services/<name>/src/main.ts
 *
 * Tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT (or the traces-only
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: then nothing below is imported,
 * so a service without tracing loads no SDK and patches no module.
 */
import { tracingRequested } from './enabled.js';

if (tracingRequested(process.env)) {
  const { startTracing } = await import('./sdk.js');
  await startTracing(process.env, process.argv[1]);
}
