import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { FLUSH_TELEMETRY } from './flush.js';

export { SERVICE_NODE_ARGS } from './preload.js';
export { tracingRequested } from './enabled.js';

// Only @opentelemetry/api here: without the preload's SDK every call below is a no-op.
const tracer = () => trace.getTracer('@assay/telemetry');

export type MessageSpanKind = 'producer' | 'consumer' | 'internal';
const KINDS: Record<MessageSpanKind, SpanKind> = { producer: SpanKind.PRODUCER, consumer: SpanKind.CONSUMER, internal: SpanKind.INTERNAL };

/** The W3C `traceparent` of the active span, to store with work done later; undefined when none (or tracing is off). */
export function activeTraceparent(): string | undefined {
  return traceparentOf(context.active());
}

function traceparentOf(ctx: Context): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent;
}

/** The trace id of the active span, for log lines; undefined when no span is active. */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan()?.spanContext();
  return span && trace.isSpanContextValid(span) ? span.traceId : undefined;
}

/**
 * The context a stored or received `traceparent` continues. When the active
 * span already belongs to that trace (an instrumentation, kafkajs's, has
 * started a span from the same header), it continues the active span instead.
 */
export function contextOf(traceparent: string | null | undefined): Context {
  const active = context.active();
  if (!traceparent) return active;
  const remote = propagation.extract(ROOT_CONTEXT, { traceparent });
  const remoteTrace = trace.getSpanContext(remote)?.traceId;
  if (!remoteTrace) return active;
  return trace.getSpanContext(active)?.traceId === remoteTrace ? active : remote;
}

/** Runs `fn` in the context of a stored `traceparent` (no new span). */
export function withTraceparent<T>(traceparent: string | null | undefined, fn: () => T): T {
  return context.with(contextOf(traceparent), fn);
}

function ended(span: Span, err?: unknown): void {
  if (err !== undefined) {
    span.recordException(err instanceof Error ? err : new Error(String(err)));
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  }
  span.end();
}

/**
 * Runs `fn` in a new span whose parent is the stored or received
 * `traceparent` (or the active span, without one), ending it when `fn`
 * settles; a rejection marks the span failed and is rethrown.
 */
export async function inSpanFrom<T>(traceparent: string | null | undefined, name: string, kind: MessageSpanKind, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { kind: KINDS[kind], attributes }, contextOf(traceparent), async (span) => {
    try {
      const out = await fn();
      ended(span);
      return out;
    } catch (err) {
      ended(span, err);
      throw err;
    }
  });
}

export interface DetachedSpan {
  /** The span's own `traceparent`, to send along with the message; undefined when tracing is off. */
  traceparent: string | undefined;
  end(err?: unknown): void;
}

/**
 * Starts a span under a stored `traceparent` without making it active: for
 * work on many messages at once (a relay batch), one span per message.
 */
export function startSpanFrom(traceparent: string | null | undefined, name: string, kind: MessageSpanKind, attributes: Attributes): DetachedSpan {
  const parent = contextOf(traceparent);
  const span = tracer().startSpan(name, { kind: KINDS[kind], attributes }, parent);
  return { traceparent: traceparentOf(trace.setSpan(parent, span)), end: (err) => ended(span, err) };
}

/** Exports the spans still buffered and stops the SDK; a no-op when tracing is off. Call before process.exit. */
export async function flushTelemetry(): Promise<void> {
  const flush = (globalThis as Record<symbol, unknown>)[FLUSH_TELEMETRY] as (() => Promise<void>) | undefined;
  if (flush) await flush().catch(() => undefined);
}
