import type { Kysely } from 'kysely';
import type { Bus, EventEnvelope, Subscription } from '@assay/bus';
import { TOPICS } from '@assay/contracts';
import { isUuid } from '@assay/http';
import { markDue, recordWaiting } from '../analysis/analysis.repository.js';
import type { AnalysisDatabase } from '../db/database.js';
import { enqueueEnrichment } from '../discovery/enrichment.repository.js';

export const CONSUMER_GROUP = 'analysis';

/**
 * What the analysis service takes from the bus. Every handler is an
 * idempotent upsert (redeliveries and any order are harmless): the runner's
 * plan events say when an execution starts and ends, a finished discovery
 * session may want enrichment. The evidence itself is read from the
 * services when the work runs.
 */
export async function handleEvent(db: Kysely<AnalysisDatabase>, e: EventEnvelope): Promise<'analysis' | 'enrichment' | null> {
  const data = e.data as Record<string, unknown>;
  const projectId = typeof e.project_id === 'string' && isUuid(e.project_id) ? e.project_id : null;
  switch (e.event) {
    case 'test.plan.started': {
      const id = data.execution_id;
      if (isUuid(id)) await recordWaiting(db, { id, org_id: e.organization_id, project_id: projectId });
      return null;
    }
    case 'test.plan.completed': {
      const id = data.execution_id;
      if (!isUuid(id)) return null;
      await markDue(db, { id, org_id: e.organization_id, project_id: projectId });
      return 'analysis';
    }
    case 'test.completed': {
      // A cancelled execution emits no test.plan.completed, only this summary: without it its analysis
      // waited for ever (found by `make soak`). Any other end also comes as test.plan.completed.
      const id = data.execution_id;
      if (data.status !== 'cancelled' || !isUuid(id)) return null;
      await markDue(db, { id, org_id: e.organization_id, project_id: projectId });
      return 'analysis';
    }
    case 'discovery.session.completed': {
      const id = data.session_id;
      if (!isUuid(id)) return null;
      await enqueueEnrichment(db, { session_id: id, org_id: e.organization_id, project_id: projectId });
      return 'enrichment';
    }
    default:
      return null;
  }
}

export async function subscribeToEvents(opts: { bus: Bus; db: Kysely<AnalysisDatabase>; onWork(): void }): Promise<Subscription[]> {
  const subscriptions: Subscription[] = [];
  // One after the other: pg-boss creating several queues at once can deadlock.
  for (const topic of [TOPICS.executionEvents, TOPICS.discoveryEvents]) {
    subscriptions.push(
      await opts.bus.subscribe({
        topic,
        group: CONSUMER_GROUP,
        concurrency: 20,
        handler: async (envelope) => {
          if (await handleEvent(opts.db, envelope)) opts.onWork();
        },
      }),
    );
  }
  return subscriptions;
}
