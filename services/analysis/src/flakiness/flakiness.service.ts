import type { Kysely } from 'kysely';
import { iso, isUuid, notFound } from '@assay/http';
import { runGroups } from '../analysis/analysis.repository.js';
import { FLAKY_WINDOW, flakinessOf } from '../analysis/flakiness.js';
import type { AnalysisDatabase } from '../db/database.js';

/**
 * The flakiness of a test case per (plan, environment, case version), from its
 * analysed runs; the newest group (the current version) leads and gives the
 * headline figures.
 * @throws AppError 404 when no analysed run of the test case exists.
 */
export async function testCaseFlakiness(db: Kysely<AnalysisDatabase>, orgId: string, testCaseId: string) {
  const rows = isUuid(testCaseId) ? await runGroups(db, orgId, testCaseId) : [];
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
  return { test_case_id: testCaseId, window: FLAKY_WINDOW, flaky: current.flaky, flip_rate: current.flip_rate, band: current.band, groups: bodies };
}
