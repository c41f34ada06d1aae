import { inSpanFrom } from '@assay/telemetry';
import type { Topic } from '@assay/contracts';
import type { EventEnvelope, MessageHandler } from './types.js';

/**
 * Calls a consumer's handler in a consumer span continuing the message's
 * `traceparent`, so whatever the handler does (queries, calls, new outbox
 * rows) joins the trace of the request that caused the event.
 */
export function handleInSpan(
  handler: MessageHandler,
  envelope: EventEnvelope,
  meta: { topic: Topic; key: string; group: string; traceparent: string | undefined },
): Promise<void> {
  return inSpanFrom(
    meta.traceparent,
    `${meta.topic} process`,
    'consumer',
    {
      'messaging.operation.type': 'process',
      'messaging.destination.name': meta.topic,
      'messaging.consumer.group.name': meta.group,
      'messaging.message.id': envelope.id,
      'assay.event': envelope.event,
    },
    () => handler(envelope, { topic: meta.topic, key: meta.key }),
  );
}
