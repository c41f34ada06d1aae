import { register } from 'node:module';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KafkaJsInstrumentation } from '@opentelemetry/instrumentation-kafkajs';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { FLUSH_TELEMETRY } from './flush.js';

/** Probes answer many times a minute and say nothing about a request's path through the services. */
const PROBES = new Set(['/healthz', '/readyz', '/livez']);

/** `assay-<service>` from `services/<service>/src/main.ts`; OTEL_SERVICE_NAME wins. */
export function serviceNameOf(env: NodeJS.ProcessEnv, mainScript: string | undefined): string {
  if (env.OTEL_SERVICE_NAME?.trim()) return env.OTEL_SERVICE_NAME.trim();
  const parts = (mainScript ?? '').split(path.sep);
  const at = parts.lastIndexOf('services');
  return at >= 0 && parts[at + 1] ? `assay-${parts[at + 1]}` : 'assay';
}

/**
 * Starts the OpenTelemetry Node SDK: OTLP trace export configured by the
 * standard OTEL_* variables (protocol, headers, sampler, batch delays), the
 * W3C trace-context propagator, and the http/express, pg, undici and kafkajs
 * instrumentations. Our modules are ES modules, so the instrumented packages
 * are hooked through import-in-the-middle's loader, told exactly which
 * modules the instrumentations patch (nothing else goes through it).
 */
export async function startTracing(env: NodeJS.ProcessEnv, mainScript: string | undefined): Promise<void> {
  // Traces only, unless the operator asks for more: our logs go to stdout with trace_id.
  env.OTEL_LOGS_EXPORTER ??= 'none';
  env.OTEL_METRICS_EXPORTER ??= 'none';
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  const sdk = new NodeSDK({
    serviceName: serviceNameOf(env, mainScript),
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req: IncomingMessage) => PROBES.has((req.url ?? '').split('?')[0]!),
      }),
      new ExpressInstrumentation(),
      // Only queries made for a traced request or message: the bus and relays poll all the time.
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation(),
      new KafkaJsInstrumentation(),
    ],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();

  const g = globalThis as Record<symbol, unknown>;
  g[FLUSH_TELEMETRY] = () => sdk.shutdown();
}
