import type { Kysely } from 'kysely';
import { enqueueEvents, handleOnce, type Bus, type Subscription } from '@assay/bus';
import { TOPICS } from '@assay/contracts';
import type { ExecutionDatabase } from '../db/database.js';

const CONSUMER = 'execution-summary';

/**
 * Emits `test.completed` (the spec's short summary) for every plan run that
 * ended with `test.plan.completed` (completed, or failed by a timeout or a
 * dead runner), once per event; cancellations emit theirs when they happen.
 * Done here rather than in the runner's loop so the summary rides on the
 * event that already marks the end.
 */
export function subscribeExecutionSummaries(opts: { bus: Bus; db: Kysely<ExecutionDatabase>; schema: string }): Promise<Subscription> {
  return opts.bus.subscribe({
    topic: TOPICS.executionEvents,
    group: 'execution-runner',
    concurrency: 10,
    handler: async (envelope) => {
      if (envelope.event !== 'test.plan.completed') return;
      const data = envelope.data as { execution_id: string; status?: string; test_plan: { id: string; duration_ms: number } };
      await handleOnce(opts.db, CONSUMER, envelope.id, async (trx) => {
        await enqueueEvents(trx, opts.schema, [
          {
            event: 'test.completed',
            organization_id: envelope.organization_id,
            ...(envelope.project_id ? { project_id: envelope.project_id } : {}),
            key: data.execution_id,
            data: { execution_id: data.execution_id, status: data.status ?? 'completed', duration_ms: data.test_plan.duration_ms },
          },
        ]);
      });
    },
  });
}
