import type { Kysely } from 'kysely';
import { handleOnce, subscribeEach, type Bus, type EventEnvelope, type Subscription } from '@assay/bus';
import { TOPICS, billedBrowserSeconds, isEvent, type QuotaType } from '@assay/contracts';
import type { Logger } from '@assay/logger';
import type { AuthDatabase } from '../db/database.js';
import { markExecutionMetered } from './usage.repository.js';
import { recordUsage } from './usage.service.js';

/** Inbox consumer name (and bus group) of metering. */
export const METERING_CONSUMER = 'auth-metering';

type Metered = { quota: QuotaType; amount: number; executionId?: string };

/** The events metering reads (meteredBy); the bus delivers it no others. */
export const METERED_EVENTS = ['test.plan.started', 'test.execution.completed', 'discovery.pages.crawled', 'discovery.page.crawled'] as const;

/**
 * What an event adds to the quotas: an execution when its plan run starts
 * (once per execution, even if a crashed run starts again), the billed
 * browser time of each finished test case run, the pages a crawl reports
 * (`discovery.pages.crawled`; the older per-page event counts one).
 */
export function meteredBy(envelope: EventEnvelope): Metered | null {
  if (isEvent(envelope, 'test.plan.started')) return typeof envelope.data.execution_id === 'string' ? { quota: 'executions', amount: 1, executionId: envelope.data.execution_id } : null;
  if (isEvent(envelope, 'test.execution.completed')) {
    const ms = envelope.data.execution?.duration_ms;
    return typeof ms === 'number' ? { quota: 'browser_minutes', amount: billedBrowserSeconds(ms) } : null;
  }
  if (isEvent(envelope, 'discovery.pages.crawled')) return Number.isInteger(envelope.data.pages) && envelope.data.pages > 0 ? { quota: 'discovery_pages', amount: envelope.data.pages } : null;
  if (isEvent(envelope, 'discovery.page.crawled')) return { quota: 'discovery_pages', amount: 1 };
  return null;
}

/**
 * Meters one event exactly once: its inbox row, the counter and any quota
 * alert commit together, so a redelivered or replayed event adds nothing.
 * Returns false when the event counted before or counts for nothing.
 */
export async function meterEvent(db: Kysely<AuthDatabase>, schema: string, envelope: EventEnvelope): Promise<boolean> {
  const metered = meteredBy(envelope);
  if (!metered) return false;
  let counted = false;
  await handleOnce(db, METERING_CONSUMER, envelope.id, async (trx) => {
    const t = trx as Kysely<AuthDatabase>;
    if (metered.executionId && !(await markExecutionMetered(t, envelope.organization_id, metered.executionId))) return;
    await recordUsage(t, schema, { orgId: envelope.organization_id, quota: metered.quota, amount: metered.amount, at: eventTime(envelope) });
    counted = true;
  });
  return counted;
}

/** The event's own time (its month is the one it counts in); now when it has none. */
function eventTime(envelope: EventEnvelope): Date {
  const at = new Date(envelope.timestamp);
  return Number.isNaN(at.getTime()) ? new Date() : at;
}

/** Subscribes metering to the execution and discovery events. */
export async function subscribeMetering(opts: { bus: Bus; db: Kysely<AuthDatabase>; schema: string; logger: Logger }): Promise<Subscription[]> {
  return subscribeEach(
    opts.bus,
    [TOPICS.executionEvents, TOPICS.discoveryEvents].map((topic) => ({
      topic,
      group: 'auth',
      concurrency: 20,
      events: METERED_EVENTS,
      handler: async (envelope: EventEnvelope) => {
        await meterEvent(opts.db, opts.schema, envelope);
      },
    })),
  );
}
