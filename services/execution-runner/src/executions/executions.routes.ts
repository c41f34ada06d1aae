import type { Request, Response } from 'express';
import { orgPrincipal, parsePagination, queryOneOf, requiredQueryString, serveEventStream, serviceRouter, type ServiceRouter, validateBody, validationError } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import { TERMINAL, type ExecutionStatus } from '../db/database.js';
import {
  cancel,
  createExecution,
  estimateWaitSeconds,
  executionEventsAfter,
  getExecution,
  listExecutionPage,
  queuedBody,
  rerunExecution,
  resultsOf,
  statusBody,
  toExecutionBody,
  waitForEnd,
  type RunRequest,
} from './executions.service.js';
import { createSuiteExecution, type SuiteRunRequest } from '../suites/suite-runs.service.js';
import type { Plan } from '@assay/principal';

/** A run of a test plan, or of a Playwright suite when the body names `suite_id`. */
function createRun(ctx: ExecutionContext, orgId: string, plan: Plan, body: Record<string, unknown>) {
  return typeof body.suite_id === 'string' ? createSuiteExecution(ctx, orgId, plan, body as unknown as SuiteRunRequest) : createExecution(ctx, orgId, plan, body as unknown as RunRequest);
}

/** The statuses a list may be filtered by. */
export const STATUSES: ExecutionStatus[] = ['queued', 'pending', 'running', 'completed', 'failed', 'cancelled'];
const KEEP_ALIVE_MS = 15_000;
/** What the list filters by besides status: the outcome a person reads (see outcomeOf). */
const OUTCOMES = ['passed', 'failed', 'cancelled', 'running'] as const;

/**
 * Serves an execution's Server-Sent Events (plan runs and exploratory runs
 * alike), each event's data tagged with the id under `idField`.
 */
export function streamExecution(ctx: ExecutionContext, req: Request, res: Response, id: string, idField: 'execution_id' | 'test_run_id'): Promise<void> {
  return serveEventStream(req, res, {
    read: (afterSeq) => executionEventsAfter(ctx, id, afterSeq),
    subscribe: (wake) => ctx.notifier.on(id, wake),
    isLast: (e) => e.type === 'completed',
    format: (e) => ({ [idField]: id, ...(e.data as Record<string, unknown>) }),
    onError: (err) => ctx.logger.warn({ err, execution: id }, 'execution stream read failed'),
    keepAliveMs: KEEP_ALIVE_MS,
  });
}

function isoQuery(query: Record<string, unknown>, name: string): Date | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  const d = typeof raw === 'string' && /^\d{4}-\d{2}-\d{2}/.test(raw) ? new Date(raw) : new Date(NaN);
  if (Number.isNaN(d.getTime())) throw validationError([{ field: name, message: 'must be an ISO 8601 timestamp' }]);
  return d;
}

export function executionRoutes(ctx: ExecutionContext): ServiceRouter<'execution-runner'> {
  const router = serviceRouter('execution-runner');

  const queue = async (req: Request, res: Response) => {
    const principal = orgPrincipal(res);
    const row = await createRun(ctx, principal.org_id, principal.plan, req.body as Record<string, unknown>);
    res.status(202).location(`/api/v1/executions/${row.id}/status`).json(queuedBody(row, await estimateWaitSeconds(ctx, row)));
  };

  router.post('/api/v1/executions/async', validateBody('ExecutionAsyncRequest'), queue);

  router.post('/api/v1/executions', validateBody('ExecutionCreateRequest'), async (req, res) => {
    if (req.body.wait_for_completion === false) return queue(req, res);
    const principal = orgPrincipal(res);
    const created = await createRun(ctx, principal.org_id, principal.plan, req.body as Record<string, unknown>);
    // The runner fails the run at timeout_seconds; wait a little past that for its answer.
    const row = await waitForEnd(ctx, created.id, (created.timeout_seconds + 30) * 1000);
    const body = { ...toExecutionBody(row), results: await resultsOf(ctx, row) };
    res.status(TERMINAL.includes(row.status) ? 200 : 202).json(body);
  });

  router.get('/api/v1/executions', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const query = req.query as Record<string, unknown>;
    const { limit, offset } = parsePagination(query, { defaultLimit: 20, maxLimit: 100 });
    const projectId = requiredQueryString(query, 'project_id');
    const status = queryOneOf(query, 'status', STATUSES);
    const outcome = query.outcome;
    if (outcome !== undefined && !OUTCOMES.includes(outcome as never)) throw validationError([{ field: 'outcome', message: `must be one of ${OUTCOMES.join(', ')}` }]);
    const createdAfter = isoQuery(query, 'created_after');
    const createdBefore = isoQuery(query, 'created_before');
    const { rows, total } = await listExecutionPage(ctx, orgId, {
      projectId,
      status,
      outcome: outcome as (typeof OUTCOMES)[number] | undefined,
      createdAfter,
      createdBefore,
      limit,
      offset,
    });
    res.json({ data: rows.map(toExecutionBody), pagination: { limit, offset, total } });
  });

  router.get('/api/v1/executions/:id', async (req, res) => {
    const row = await getExecution(ctx, orgPrincipal(res).org_id, req.params.id);
    res.json({ ...toExecutionBody(row), results: await resultsOf(ctx, row) });
  });

  router.get('/api/v1/executions/:id/status', async (req, res) => {
    res.json(await statusBody(ctx, await getExecution(ctx, orgPrincipal(res).org_id, req.params.id)));
  });

  router.get('/api/v1/executions/:id/results', async (req, res) => {
    const row = await getExecution(ctx, orgPrincipal(res).org_id, req.params.id);
    res.json({ id: row.id, test_plan_id: row.test_plan_id, test_results: (await resultsOf(ctx, row)).test_results });
  });

  // The failed (or all) cases of an ended run, again: the same plan or case, environment, variables and trace.
  router.post('/api/v1/executions/:id/rerun', validateBody('ExecutionRerunRequest'), async (req, res) => {
    const principal = orgPrincipal(res);
    const row = await rerunExecution(ctx, principal.org_id, principal.plan, req.params.id as string, (req.body?.only as 'failed' | 'all' | undefined) ?? 'failed');
    res.status(202).location(`/api/v1/executions/${row.id}/status`).json({ ...queuedBody(row, await estimateWaitSeconds(ctx, row)), rerun_of: row.rerun_of });
  });

  router.delete('/api/v1/executions/:id', async (req, res) => {
    res.json(await cancel(ctx, orgPrincipal(res).org_id, req.params.id));
  });

  // Server-Sent Events of the run, replayed from Last-Event-ID, ending after `completed`.
  router.get('/api/v1/executions/:id/stream', async (req, res) => {
    const row = await getExecution(ctx, orgPrincipal(res).org_id, req.params.id);
    await streamExecution(ctx, req, res, row.id, 'execution_id');
  });

  return router;
}
