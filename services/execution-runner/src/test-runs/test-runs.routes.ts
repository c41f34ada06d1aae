import type { NextFunction, Request, Response } from 'express';
import { contractValidator, validateSteps } from '@assay/contracts';
import { orgPrincipal, parsePagination, queryOneOf, requiredQueryString, serviceRouter, type ServiceRouter, validateBody, validationError } from '@assay/http';
import type { ExecutionContext } from '../context.js';
import { TERMINAL } from '../db/database.js';
import { STATUSES, streamExecution } from '../executions/executions.routes.js';
import { cancel, estimateWaitSeconds, listExecutionPage, resultsOf, waitForEnd } from '../executions/executions.service.js';
import { createTestRun, getTestRun, saveTestRun, toTestRunBody, type SaveRequest, type TestRunRequest } from './test-runs.service.js';


/**
 * The request's schema, with its steps checked by the test cases' step
 * validation (one error per step field, `steps[2].selector`) instead of the schema's.
 */
function validateRunRequest(req: Request, _res: Response, next: NextFunction) {
  const body: unknown = req.body;
  if (body === undefined) return next(validationError([{ field: 'body', message: 'a JSON body is required' }]));
  const errors = contractValidator()
    .validate('TestRunCreateRequest', body)
    .filter((e) => !/^steps($|\.|\[)/.test(e.field));
  const steps = (body as Record<string, unknown> | null)?.steps;
  if (steps !== undefined) errors.push(...validateSteps(steps));
  next(errors.length ? validationError(errors) : undefined);
}

/** Exploratory test runs: executions of kind `run`, with the execution's results, artifacts and stream. */
export function testRunRoutes(ctx: ExecutionContext): ServiceRouter<'execution-runner'> {
  const router = serviceRouter('execution-runner');

  router.post('/api/v1/test-runs', validateRunRequest, async (req: Request, res: Response) => {
    const principal = orgPrincipal(res);
    const body = req.body as TestRunRequest & { wait_for_completion?: boolean };
    const created = await createTestRun(ctx, principal.org_id, principal.plan, body);
    res.location(`/api/v1/test-runs/${created.id}`);
    if (body.wait_for_completion === false) {
      return res.status(202).json({ ...toTestRunBody(created), estimated_wait_seconds: await estimateWaitSeconds(ctx, created) });
    }
    // The runner fails the run at timeout_seconds; wait a little past that for its answer.
    const row = await waitForEnd(ctx, created.id, (created.timeout_seconds + 30) * 1000);
    res.status(TERMINAL.includes(row.status) ? 200 : 202).json({ ...toTestRunBody(row), results: await resultsOf(ctx, row) });
  });

  router.get('/api/v1/test-runs', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const query = req.query as Record<string, unknown>;
    const { limit, offset } = parsePagination(query, { defaultLimit: 20, maxLimit: 100 });
    const projectId = requiredQueryString(query, 'project_id');
    const status = queryOneOf(query, 'status', STATUSES);
    const { rows, total } = await listExecutionPage(ctx, orgId, { projectId, kind: 'run', status, limit, offset });
    res.json({ data: rows.map(toTestRunBody), pagination: { limit, offset, total } });
  });

  router.get('/api/v1/test-runs/:id', async (req, res) => {
    const row = await getTestRun(ctx, orgPrincipal(res).org_id, req.params.id);
    res.json({ ...toTestRunBody(row), results: await resultsOf(ctx, row) });
  });

  router.delete('/api/v1/test-runs/:id', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const row = await getTestRun(ctx, orgId, req.params.id);
    res.json(await cancel(ctx, orgId, row.id));
  });

  router.post('/api/v1/test-runs/:id/save', validateBody('TestRunSaveRequest'), async (req, res) => {
    res.status(201).json(await saveTestRun(ctx, orgPrincipal(res).org_id, String(req.params.id), req.body as SaveRequest));
  });

  router.get('/api/v1/test-runs/:id/stream', async (req, res) => {
    const row = await getTestRun(ctx, orgPrincipal(res).org_id, req.params.id);
    await streamExecution(ctx, req, res, row.id, 'test_run_id');
  });

  return router;
}
