import { createHash } from 'node:crypto';
import { Router } from 'express';
import { forbidden, iso, isUuid, notFound, requireServicePrincipal, validationError } from '@assay/http';
import type { Principal } from '@assay/principal';
import type { ExecutionContext } from '../context.js';
import type { Step } from '@assay/steps';
import { findExecution } from '../executions/executions.repository.js';
import { artifactUrl } from '../execution-events.js';
import { findDiagnostics, findFingerprints, findReportResults, findResultSummaries, REPORT_MAX_EXECUTIONS } from './internal.repository.js';

/** JSON with object keys sorted (jsonb reorders them). */
const stableJson = (v: unknown): string =>
  v && typeof v === 'object' && !Array.isArray(v)
    ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`).join(',')}}`
    : Array.isArray(v) ? `[${v.map(stableJson).join(',')}]` : JSON.stringify(v) ?? 'null';

/**
 * The version of a test case as it ran: a hash of its steps (ids, actions,
 * selectors, values, timeouts). Two runs with the same version ran the same
 * test, which flakiness needs to know.
 */
export function testCaseVersion(steps: Step[]): string {
  // A request step's call, assertions and saved values are part of it (other steps hash as before).
  const canonical = steps.map((s) => [s.step_id, s.action, s.selector ?? null, s.value ?? null, s.timeout ?? null, s.description ?? null, ...(s.action === 'request' ? [stableJson([s.request, s.expect ?? null, s.save_as ?? null])] : [])]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex').slice(0, 16);
}

/**
 * Routes for other services (the analysis service): an execution with what a
 * re-run needs (base URL, variables, the steps as they ran) and each test's
 * stored diagnostics. The service principal names the organization.
 */
export function internalRoutes(ctx: ExecutionContext): Router {
  const router = Router();
  router.use('/internal', requireServicePrincipal);
  const orgOf = (res: { locals: Record<string, unknown> }): string => {
    const p = res.locals.principal as Principal;
    if (!p.org_id) throw forbidden('Internal calls must name the organization they act for');
    return p.org_id;
  };
  const execution = async (orgId: string, id: string) => {
    const row = isUuid(id) ? await findExecution(ctx.db, orgId, id) : undefined;
    if (!row) throw notFound('Execution');
    return row;
  };

  router.get('/internal/executions/:id', async (req, res) => {
    const e = await execution(orgOf(res), req.params.id);
    const results = await findResultSummaries(ctx.db, e.id);
    res.json({
      id: e.id,
      project_id: e.project_id,
      project_name: e.project_name,
      test_plan_id: e.test_plan_id,
      test_plan_name: e.test_plan_name,
      status: e.status,
      environment: e.environment,
      base_url: e.base_url,
      // Secrets may be among them: the caller uses them for a re-run and never stores or logs them.
      variables: e.variables,
      created_at: iso(e.created_at),
      started_at: iso(e.started_at),
      completed_at: iso(e.completed_at),
      test_results: results.map((r) => ({
        test_id: r.test_case_id,
        name: r.name,
        position: r.position,
        priority: r.priority,
        status: r.status,
        duration_ms: r.duration_ms,
        error: r.error,
        error_step: r.error_step,
        test_case_version: testCaseVersion(r.steps_snapshot),
        steps: r.steps_snapshot,
        step_results: r.steps.map(({ screenshot_artifact_id: _screenshot, ...s }) => s),
        screenshot: r.screenshot_artifact_id ? artifactUrl(ctx.publicBaseUrl, r.screenshot_artifact_id) : null,
        trace: r.trace_artifact_id ? artifactUrl(ctx.publicBaseUrl, r.trace_artifact_id) : null,
        started_at: iso(r.started_at),
        completed_at: iso(r.completed_at),
      })),
    });
  });

  // Fingerprints of the elements every passed step acted on: the "last known" elements failure analysis compares with.
  router.get('/internal/executions/:id/fingerprints', async (req, res) => {
    const e = await execution(orgOf(res), req.params.id);
    const rows = await findFingerprints(ctx.db, e.id);
    res.json({ execution_id: e.id, tests: rows.map((r) => ({ test_id: r.test_case_id, status: r.status, fingerprints: Array.isArray(r.fingerprints) ? r.fingerprints : [] })) });
  });

  router.get('/internal/executions/:id/tests/:testId/diagnostics', async (req, res) => {
    const e = await execution(orgOf(res), req.params.id);
    const rows = isUuid(req.params.testId) ? await findDiagnostics(ctx.db, e.id, req.params.testId) : [];
    if (rows.length === 0) throw notFound('Test result');
    res.json({ execution_id: e.id, test_id: req.params.testId, results: rows.map((r) => ({ position: r.position, status: r.status, diagnostics: r.diagnostics })) });
  });

  // Raw results of finished plan executions in a period, for the analysis service's reports (they count these, nothing else).
  router.get('/internal/report-results', async (req, res) => {
    const orgId = orgOf(res);
    const q = req.query as Record<string, string | undefined>;
    const list = (v: string | undefined) => (v === undefined ? undefined : v.split(',').map((s) => s.trim()));
    const from = new Date(q.from ?? '');
    const to = new Date(q.to ?? '');
    if (!isUuid(q.project_id) || Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) {
      throw validationError([{ field: 'query', message: 'project_id (a UUID), from and to (ISO timestamps) are required' }]);
    }
    const testPlanIds = list(q.test_plan_ids)?.filter(isUuid);
    const { executions, results } = await findReportResults(ctx.db, orgId, { projectId: q.project_id, from, to, ...(testPlanIds ? { testPlanIds } : {}), ...(q.environments !== undefined ? { environments: list(q.environments)! } : {}) });
    if (executions.length > REPORT_MAX_EXECUTIONS) throw validationError([{ field: 'period', message: `covers more than ${REPORT_MAX_EXECUTIONS} executions; narrow it` }]);
    const byExecution = new Map<string, typeof results>();
    for (const r of results) byExecution.set(r.execution_id, [...(byExecution.get(r.execution_id) ?? []), r]);
    res.json({
      executions: executions.map((e) => ({
        id: e.id,
        test_plan_id: e.test_plan_id,
        test_plan_name: e.test_plan_name,
        environment: e.environment,
        status: e.status,
        started_at: iso(e.started_at),
        completed_at: iso(e.completed_at),
        tests: (byExecution.get(e.id) ?? []).map((r) => {
          const bySnapshot = new Map(r.steps_snapshot.map((s) => [s.step_id, s]));
          return {
            test_id: r.test_case_id,
            name: r.name,
            status: r.status,
            duration_ms: r.duration_ms,
            completed_at: iso(r.completed_at),
            steps: r.steps.map((s) => ({ step_id: s.step_id, action: bySnapshot.get(s.step_id)?.action ?? null, selector: bySnapshot.get(s.step_id)?.selector ?? null, status: s.status, duration_ms: s.duration_ms })),
          };
        }),
      })),
    });
  });

  return router;
}
