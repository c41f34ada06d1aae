import type { Kysely } from 'kysely';
import type { EventEnvelope } from '@assay/bus';
import { EVENTS, isEvent, TOPICS, type Topic } from '@assay/contracts';
import type { WebhookDatabase } from '../db/database.js';
import { insertDeliveries } from '../deliveries/deliveries.repository.js';
import { newDelivery } from '../deliveries/envelope.js';
import { findEnabledWebhooks, rememberPlan } from '../webhooks/webhooks.repository.js';
import type { Clock } from '../shared/clock.js';
import { passesFilters, rulesHold } from '../webhooks/matching.js';
import { extendFailureStreak, findFailureStreak, resetFailureStreak } from './failure-streaks.repository.js';

type Db = Kysely<WebhookDatabase>;

/** Every public event type of the catalog, and the topics that carry them. */
export const PUBLIC_EVENTS = new Set(Object.entries(EVENTS).filter(([, c]) => c.visibility === 'public').map(([type]) => type));
export const PUBLIC_TOPICS: Topic[] = Object.values(TOPICS).filter((t) => Object.values(EVENTS).some((c) => c.topic === t && c.visibility === 'public'));
/** The public event types a topic carries: all the dispatcher asks the bus for (internal ones never become deliveries). */
export const publicEventsOf = (topic: Topic): string[] => Object.entries(EVENTS).flatMap(([type, c]) => (c.topic === topic && c.visibility === 'public' ? [type] : []));

/**
 * The webhook events one bus event becomes: itself, when it is public.
 * (`test.completed`, the spec's short summary, is an event of its own on the
 * bus now: the execution-runner emits it for every finished execution.)
 */
export function webhookEventsOf(envelope: EventEnvelope): Array<{ event: string; data: Record<string, unknown> }> {
  if (!PUBLIC_EVENTS.has(envelope.event)) return [];
  return [{ event: envelope.event, data: envelope.data }];
}

/** The test case a `test.execution.*` event is about, read off its data without trusting its shape. */
function testCaseIdOf(envelope: EventEnvelope): string | undefined {
  if (!envelope.event.startsWith('test.execution.')) return undefined;
  const execution = envelope.data.execution;
  if (typeof execution !== 'object' || execution === null) return undefined;
  const id = 'test_case_id' in execution ? execution.test_case_id : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Tracks consecutive failures per test case; returns the count after this
 * event. A passed or failed case always updates it; any other event of a case
 * reads it only when a webhook listens to that event (`listened`).
 */
async function updateFailureStreak(db: Db, orgId: string, envelope: EventEnvelope, listened: boolean): Promise<number | undefined> {
  const caseId = testCaseIdOf(envelope);
  if (!caseId) return undefined;
  if (envelope.event === 'test.execution.passed') {
    await resetFailureStreak(db, orgId, caseId);
    return 0;
  }
  if (envelope.event === 'test.execution.failed') return extendFailureStreak(db, orgId, caseId);
  return listened ? findFailureStreak(db, orgId, caseId) : undefined;
}

/**
 * Turns bus events into delivery rows for every enabled webhook of their
 * organization that subscribed to them and whose filters and rules let them
 * through. Runs inside the inbox transaction (`handleManyOnce`), so a
 * redelivered event fans out once. Returns the number of deliveries made.
 */
export async function fanOutMany(db: Db, envelopes: EventEnvelope[], clock: Clock, traceparents?: Map<string, string>): Promise<number> {
  const relevant = envelopes.filter((e) => PUBLIC_EVENTS.has(e.event));
  if (relevant.length === 0) return 0;
  const now = clock.now();
  // A plan change applies to this organization's deliveries at once, before its next API call.
  for (const e of relevant) if (isEvent(e, 'billing.subscription.updated')) await rememberPlan(db, e.organization_id, e.data.new_plan);
  const orgs = [...new Set(relevant.map((e) => e.organization_id))];
  const webhooks = await findEnabledWebhooks(db, orgs);
  const rows = [];
  for (const envelope of relevant) {
    const candidates = webhooks.get(envelope.organization_id) ?? [];
    // Streaks are kept whether or not a webhook listens now: a rule added later counts earlier failures.
    const streak = await updateFailureStreak(db, envelope.organization_id, envelope, candidates.some(({ webhook }) => webhook.events.includes(envelope.event)));
    for (const { event, data } of webhookEventsOf(envelope)) {
      for (const { webhook, plan } of candidates) {
        if (!webhook.events.includes(event)) continue;
        const input = { event, project_id: envelope.project_id, data, consecutiveFailures: streak, now };
        if (!passesFilters({ projects: webhook.filter_projects, priorities: webhook.filter_priorities }, input)) continue;
        if (!rulesHold(webhook.conditional_rules, input)) continue;
        const traceparent = traceparents?.get(envelope.id);
        rows.push(newDelivery(webhook, { event, eventId: envelope.id, timestamp: envelope.timestamp, data, ...(traceparent ? { traceparent } : {}) }, plan, now));
      }
    }
  }
  return (await insertDeliveries(db, rows)).length;
}

/** `fanOutMany` for one event. */
export function fanOut(db: Db, envelope: EventEnvelope, clock: Clock): Promise<number> {
  return fanOutMany(db, [envelope], clock);
}
