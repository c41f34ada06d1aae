import { Router } from 'express';
import { iso, isUuid, notFound, orgPrincipal } from '@assay/http';
import { runGroups } from '../analysis/analysis.repository.js';
import type { AnalysisContext } from '../context.js';
import { FLAKY_WINDOW, flakinessOf } from '../analysis/flakiness.js';

export function flakinessRoutes(ctx: AnalysisContext): Router {
  const router = Router();

  // Served here although the path is under test-cases: the gateway routes it to the analysis service.
  router.get('/api/v1/test-cases/:id/flakiness', async (req, res) => {
    const orgId = orgPrincipal(res).org_id;
    const rows = isUuid(req.params.id) ? await runGroups(ctx.db, orgId, req.params.id) : [];
    if (rows.length === 0) throw notFound('Analysed runs of this test case');
    const groups = new Map<string, typeof rows>();
    for (const r of rows) {
      const key = JSON.stringify([r.test_plan_id, r.environment, r.test_case_version]);
      const list = groups.get(key) ?? [];
      list.push(r);
      groups.set(key, list);
    }
    // rows come newest first; the newest group (the current version) leads.
    const bodies = [...groups.values()].map((runs) => {
      const f = flakinessOf(runs.map((r) => r.status).reverse());
      return {
        test_plan_id: runs[0]!.test_plan_id,
        environment: runs[0]!.environment || null,
        test_case_version: runs[0]!.test_case_version,
        ...f,
        last_run_at: iso(runs[0]!.completed_at),
        last_execution_id: runs[0]!.execution_id,
      };
    });
    const current = bodies[0]!;
    res.json({ test_case_id: req.params.id, window: FLAKY_WINDOW, flaky: current.flaky, flip_rate: current.flip_rate, band: current.band, groups: bodies });
  });

  return router;
}
