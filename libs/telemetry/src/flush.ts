/** Where the preload leaves the SDK's shutdown, so `flushTelemetry` needs no import of the SDK. */
export const FLUSH_TELEMETRY = Symbol.for('assay.telemetry.flush');
