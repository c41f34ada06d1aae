import type { Kysely } from 'kysely';
import { handleManyOnce, MESSAGES_PER_JOB, subscribeEach, TickBatcher, type Bus, type EventEnvelope, type Subscription } from '@assay/bus';
import { TOPICS, billedBrowserSeconds, isEvent, usagePeriod, type QuotaType } from '@assay/contracts';
import type { Logger } from '@assay/logger';
import type { AuthDatabase } from '../db/database.js';
import { markExecutionsMetered } from './usage.repository.js';
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
 * Meters a batch of events exactly once each, in one transaction: their inbox
 * rows, one addition per organization, month and quota (the sum of the
 * batch's), and any quota alert. Events handled before, repeated in the batch
 * or counting for nothing add nothing; an execution counts once however many
 * `test.plan.started` it has.
 */
export async function meterEvents(db: Kysely<AuthDatabase>, schema: string, envelopes: EventEnvelope[]): Promise<void> {
  const metered = envelopes.flatMap((envelope) => {
    const m = meteredBy(envelope);
    return m ? [{ envelope, ...m }] : [];
  });
  if (metered.length === 0) return;
  await handleManyOnce(db, METERING_CONSUMER, metered.map((m) => m.envelope.id), async (trx, fresh) => {
    const t = trx as Kysely<AuthDatabase>;
    const once = [...new Map(metered.filter((m) => fresh.has(m.envelope.id)).map((m) => [m.envelope.id, m])).values()];
    const executions = once.flatMap((m) => (m.executionId ? [{ orgId: m.envelope.organization_id, executionId: m.executionId }] : []));
    const newExecutions = new Set(await markExecutionsMetered(t, executions));
    const sums = new Map<string, { orgId: string; quota: QuotaType; amount: number; at: Date }>();
    for (const m of once) {
      // An execution started again (a crashed run) counts once: its first start in this batch, if it is new.
      if (m.executionId && !newExecutions.delete(m.executionId)) continue;
      const at = eventTime(m.envelope);
      const key = `${m.envelope.organization_id} ${usagePeriod(at)} ${m.quota}`;
      const sum = sums.get(key);
      if (sum) {
        sum.amount += m.amount;
        if (at > sum.at) sum.at = at;
      } else sums.set(key, { orgId: m.envelope.organization_id, quota: m.quota, amount: m.amount, at });
    }
    // Counter rows in one order, so two batches never wait on each other's rows in a circle.
    for (const key of [...sums.keys()].sort()) await recordUsage(t, schema, sums.get(key)!);
  });
}

/** The event's own time (its month is the one it counts in); now when it has none. */
function eventTime(envelope: EventEnvelope): Date {
  const at = new Date(envelope.timestamp);
  return Number.isNaN(at.getTime()) ? new Date() : at;
}

/** Subscribes metering to the execution and discovery events. */
export async function subscribeMetering(opts: { bus: Bus; db: Kysely<AuthDatabase>; schema: string; logger: Logger }): Promise<Subscription[]> {
  // One counter row takes every event of a quota: one metering transaction per event had them queue on its lock.
  const batcher = new TickBatcher<EventEnvelope>((envelopes) => meterEvents(opts.db, opts.schema, envelopes));
  return subscribeEach(
    opts.bus,
    [TOPICS.executionEvents, TOPICS.discoveryEvents].map((topic) => ({
      topic,
      group: 'auth',
      // A whole bus job of events (up to MESSAGES_PER_JOB) is handed over at once and metered in one transaction.
      concurrency: MESSAGES_PER_JOB,
      events: METERED_EVENTS,
      handler: (envelope: EventEnvelope) => batcher.add(envelope),
    })),
  );
}
