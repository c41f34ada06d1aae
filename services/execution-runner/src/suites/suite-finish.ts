import type { Kysely } from 'kysely';
import { enqueueEvents } from '@assay/bus';
import { withTransaction } from '@assay/db';
import type { ExecutionDatabase } from '../db/database.js';
import { appendStreamEvent, findResults, skipResults } from '../executions/executions.repository.js';
import { planCompletedEvents } from '../execution-events.js';

/**
 * Ends a suite execution once its last shard ended: tests that never ran are
 * `skipped`; the run is `completed`, or `failed` with the shards' errors when
 * a shard could not run its tests (a timeout, a suite Playwright could not
 * load, a dead worker); `test.plan.completed`, `test.completed` and the
 * stream's `completed` go out with it. Idempotent: only a running (or still
 * queued) execution is ended, under its row lock.
 */
export async function finishSuiteExecution(db: Kysely<ExecutionDatabase>, schema: string, publicBaseUrl: string, executionId: string): Promise<void> {
  await withTransaction(db, async (trx) => {
    const open = await trx.selectFrom('executions').select('id').where('id', '=', executionId).where('status', 'in', ['queued', 'pending', 'running']).forUpdate().executeTakeFirst();
    if (!open) return;
    const failed = await trx.selectFrom('suite_shards').select(['shard', 'error']).where('execution_id', '=', executionId).where('status', '=', 'failed').orderBy('shard').execute();
    await skipResults(trx, executionId, ['pending', 'running']);
    const results = await findResults(trx, executionId);
    const error = failed.length ? failed.map((s) => `shard ${s.shard + 1}: ${s.error ?? 'failed'}`).join('\n').slice(0, 8000) : null;
    const row = await trx
      .updateTable('executions')
      .set({
        status: error ? 'failed' : 'completed',
        passed_tests: results.filter((r) => r.status === 'passed').length,
        failed_tests: results.filter((r) => r.status === 'failed').length,
        skipped_tests: results.filter((r) => r.status === 'skipped').length,
        completed_at: new Date(),
        started_at: (eb) => eb.fn.coalesce('started_at', eb.val(new Date())),
        error,
        lease_owner: null,
        lease_expires_at: null,
      })
      .where('id', '=', executionId)
      .returningAll()
      .executeTakeFirstOrThrow();
    await enqueueEvents(trx, schema, planCompletedEvents(row, results, publicBaseUrl));
    await appendStreamEvent(trx, row.id, 'completed', {
      status: row.status,
      passed_tests: row.passed_tests,
      failed_tests: row.failed_tests,
      skipped_tests: row.skipped_tests,
      total_tests: row.total_tests,
      ...(row.error ? { error: row.error } : {}),
    });
  });
}
