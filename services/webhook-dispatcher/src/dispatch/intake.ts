import type { Kysely } from 'kysely';
import type { EventEnvelope } from '@assay/bus';
import { EVENTS, TOPICS, type Topic } from '@assay/contracts';
import type { WebhookDatabase } from '../db/database.js';
import { insertDeliveries } from '../deliveries/deliveries.repository.js';
import { newDelivery } from '../deliveries/envelope.js';
import { findEnabledWebhooks, rememberPlan } from '../webhooks/webhooks.repository.js';
import type { Plan } from '@assay/principal';
import type { Clock } from '../shared/clock.js';
import { passesFilters, rulesHold } from './matching.js';

type Db = Kysely<WebhookDatabase>;

/** Every public event type of the catalog, and the topics that carry them. */
export const PUBLIC_EVENTS = new Set(Object.entries(EVENTS).filter(([, c]) => c.visibility === 'public').map(([type]) => type));
export const PUBLIC_TOPICS: Topic[] = (Object.values(TOPICS) as Topic[]).filter((t) => Object.values(EVENTS).some((c) => c.topic === t && c.visibility === 'public'));

/**
 * The webhook events one bus event becomes: itself, when it is public.
 * (`test.completed`, the spec's short summary, is an event of its own on the
 * bus now: the execution-runner emits it for every finished execution.)
 */
export function webhookEventsOf(envelope: EventEnvelope): Array<{ event: string; data: Record<string, unknown> }> {
  if (!PUBLIC_EVENTS.has(envelope.event)) return [];
  return [{ event: envelope.event, data: envelope.data }];
}

/** Tracks consecutive failures per test case; returns the count after this event. */
async function updateFailureStreak(db: Db, orgId: string, envelope: EventEnvelope): Promise<number | undefined> {
  const execution = envelope.data.execution as { test_case_id?: string } | undefined;
  const caseId = execution?.test_case_id;
  if (!caseId || !envelope.event.startsWith('test.execution.')) return undefined;
  if (envelope.event === 'test.execution.passed') {
    await db.deleteFrom('failure_streaks').where('org_id', '=', orgId).where('test_case_id', '=', caseId).execute();
    return 0;
  }
  if (envelope.event === 'test.execution.failed') {
    const row = await db
      .insertInto('failure_streaks')
      .values({ org_id: orgId, test_case_id: caseId, count: 1 })
      .onConflict((oc) => oc.columns(['org_id', 'test_case_id']).doUpdateSet((eb) => ({ count: eb('failure_streaks.count', '+', 1) })))
      .returning('count')
      .executeTakeFirstOrThrow();
    return row.count;
  }
  const row = await db.selectFrom('failure_streaks').select('count').where('org_id', '=', orgId).where('test_case_id', '=', caseId).executeTakeFirst();
  return row?.count ?? 0;
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
  for (const e of relevant) if (e.event === 'billing.subscription.updated') await rememberPlan(db, e.organization_id, e.data.new_plan as Plan);
  const orgs = [...new Set(relevant.map((e) => e.organization_id))];
  const webhooks = await findEnabledWebhooks(db, orgs);
  const rows = [];
  for (const envelope of relevant) {
    const candidates = webhooks.get(envelope.organization_id) ?? [];
    // Streaks are kept whether or not a webhook listens now: a rule added later counts earlier failures.
    const streak = await updateFailureStreak(db, envelope.organization_id, envelope);
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
