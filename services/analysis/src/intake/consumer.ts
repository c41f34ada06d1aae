import type { Kysely } from 'kysely';
import { subscribeEach, type Bus, type EventEnvelope, type Subscription } from '@assay/bus';
import { TOPICS, isEvent } from '@assay/contracts';
import { isUuid } from '@assay/http';
import { markDue, recordWaiting } from '../analysis/analysis.repository.js';
import type { AnalysisDatabase } from '../db/database.js';
import { enqueueEnrichment } from '../discovery/enrichment.repository.js';

export const CONSUMER_GROUP = 'analysis';

/** The events handleEvent acts on; the bus delivers the service no others (a test case's own events are many). */
export const INTAKE_EVENTS = ['test.plan.started', 'test.plan.completed', 'test.completed', 'discovery.session.completed'] as const;

/**
 * What the analysis service takes from the bus. Every handler is an
 * idempotent upsert (redeliveries and any order are harmless): the runner's
 * plan events say when an execution starts and ends, a finished discovery
 * session may want enrichment. The evidence itself is read from the
 * services when the work runs.
 */
export async function handleEvent(db: Kysely<AnalysisDatabase>, e: EventEnvelope): Promise<'analysis' | 'enrichment' | null> {
  const projectId = typeof e.project_id === 'string' && isUuid(e.project_id) ? e.project_id : null;
  if (isEvent(e, 'test.plan.started')) {
    if (isUuid(e.data.execution_id)) await recordWaiting(db, { id: e.data.execution_id, org_id: e.organization_id, project_id: projectId });
    return null;
  }
  if (isEvent(e, 'test.plan.completed')) {
    if (!isUuid(e.data.execution_id)) return null;
    await markDue(db, { id: e.data.execution_id, org_id: e.organization_id, project_id: projectId });
    return 'analysis';
  }
  if (isEvent(e, 'test.completed')) {
    // A cancelled execution emits no test.plan.completed, only this summary: without it its analysis
    // waited for ever (found by `make soak`). Any other end also comes as test.plan.completed.
    if (e.data.status !== 'cancelled' || !isUuid(e.data.execution_id)) return null;
    await markDue(db, { id: e.data.execution_id, org_id: e.organization_id, project_id: projectId });
    return 'analysis';
  }
  if (isEvent(e, 'discovery.session.completed')) {
    if (!isUuid(e.data.session_id)) return null;
    await enqueueEnrichment(db, { session_id: e.data.session_id, org_id: e.organization_id, project_id: projectId });
    return 'enrichment';
  }
  return null;
}

export async function subscribeToEvents(opts: { bus: Bus; db: Kysely<AnalysisDatabase>; onWork(): void }): Promise<Subscription[]> {
  // One after the other on pg (pg-boss creating several queues at once can deadlock), at once on Kafka.
  return subscribeEach(
    opts.bus,
    [TOPICS.executionEvents, TOPICS.discoveryEvents].map((topic) => ({
      topic,
      group: CONSUMER_GROUP,
      concurrency: 20,
      events: INTAKE_EVENTS,
      handler: async (envelope: EventEnvelope) => {
        if (await handleEvent(opts.db, envelope)) opts.onWork();
      },
    })),
  );
}
