import type { Plan } from '@assay/principal';
import { enqueueEvents } from '@assay/bus';
import { withTransaction } from '@assay/db';
import { AppError, notFound, validationError } from '@assay/http';
import { historyDays } from '../artifacts/artifacts.repository.js';
import type { ExecutionContext } from '../context.js';
import type { ExecutionRow, SuiteRunOptions, SuiteTest, TraceMode } from '../db/database.js';
import { appendStreamEvent } from '../executions/executions.repository.js';
import { baseUrlFor } from '../executions/base-url.js';
import { insertSuiteExecution, type UnitSeed } from './suite-runs.repository.js';
import { findVersion, pastDurations } from './suites.repository.js';
import { assertRunnable, getSuite } from './suites.service.js';

/** What POST /api/v1/executions takes for a suite run. */
export interface SuiteRunRequest {
  suite_id: string;
  suite_version?: number;
  project_id: string;
  timeout_seconds?: number;
  environment?: string;
  trace?: TraceMode;
  grep?: string;
  project?: string | string[];
  shards?: number;
  retries?: number;
  split?: 'queue' | 'shard';
}

/** A test's expected duration before it has run once (ms). */
const UNKNOWN_TEST_MS = 2000;

/** The tests a run selects: its projects (among those the version lists) and its grep, as Playwright reads titles. */
export function selectTests(tests: SuiteTest[], projects: string[], grep: RegExp | undefined): SuiteTest[] {
  const listed = new Set(tests.map((t) => t.project));
  const unknown = projects.filter((p) => !listed.has(p));
  if (unknown.length) {
    throw validationError([{ field: 'project', message: `${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not among the projects this version lists (${[...listed].join(', ') || 'none'}): upload the suite with those projects` }]);
  }
  return tests.filter((t) => (projects.length === 0 || projects.includes(t.project)) && (!grep || grep.test([t.project, t.file, ...t.title_path, ...t.tags].join(' '))));
}

/**
 * The queue of a run: one unit per spec file of a project (Playwright runs a
 * file's tests in order in one worker unless the config is fully parallel,
 * then one unit per test), each expected to take its tests' mean past
 * duration, longest first, so the long ones start first and the short ones
 * fill the ends (LPT).
 */
export function planUnits(tests: SuiteTest[], fullyParallel: boolean, past: Map<string, number>): UnitSeed[] {
  const groups = new Map<string, SuiteTest[]>();
  for (const t of tests) {
    const key = fullyParallel ? t.id : `${t.project}\u0000${t.file}`;
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  return [...groups.values()]
    .map((g) => ({ expected_ms: g.reduce((s, t) => s + (past.get(t.id) ?? UNKNOWN_TEST_MS), 0), lines: g.map((t) => t.list_line), test_ids: g.map((t) => t.id) }))
    .sort((a, b) => b.expected_ms - a.expected_ms);
}

function compileGrep(grep: string | undefined): RegExp | undefined {
  if (grep === undefined) return undefined;
  try {
    return new RegExp(grep);
  } catch {
    throw validationError([{ field: 'grep', message: 'is not a valid regular expression' }]);
  }
}

/**
 * Queues a run of a suite's version (the latest unless told): a result per
 * test it selects, its shards (each a command any runner replica takes) and
 * its queue of units, in one transaction.
 * @throws AppError 404 for an unknown suite or version, 400 for a suite of
 * another project, an unknown environment or project, a bad grep or no test
 * selected; 409 for a version not listed (yet); 501 when suites are not set up here.
 */
export async function createSuiteExecution(ctx: ExecutionContext, orgId: string, plan: Plan, req: SuiteRunRequest): Promise<ExecutionRow> {
  if (!ctx.suites) throw new AppError('not_implemented', 'Suites are not set up on this runner');
  const suite = await getSuite(ctx, orgId, req.suite_id);
  if (suite.project_id !== req.project_id) throw validationError([{ field: 'project_id', message: 'is not the project of this suite' }]);
  const version = await findVersion(ctx.db, suite.id, req.suite_version ?? suite.latest_version);
  if (!version) throw notFound('Suite version');
  assertRunnable(version);
  const project = await ctx.testCases.project(orgId, suite.project_id);
  const baseUrl = baseUrlFor(project, req.environment);
  const projects = req.project === undefined ? [] : Array.isArray(req.project) ? req.project : [req.project];
  const tests = selectTests(version.tests, projects, compileGrep(req.grep));
  if (tests.length === 0) throw validationError([{ field: req.grep ? 'grep' : 'suite_id', message: 'selects no test of this suite version' }]);
  const units = planUnits(tests, version.fully_parallel, await pastDurations(ctx.db, orgId, suite.id));
  const shards = Math.min(req.shards ?? 1, ctx.suites.maxShards, units.length);
  const options: SuiteRunOptions = { shards, retries: req.retries ?? null, grep: req.grep ?? null, projects, split: req.split ?? 'queue' };
  return withTransaction(ctx.db, async (trx) => {
    const row = await insertSuiteExecution(
      trx,
      {
        kind: 'suite',
        name: suite.name,
        org_id: orgId,
        project_id: suite.project_id,
        project_name: project.name,
        test_plan_id: suite.id,
        test_plan_name: suite.name,
        environment: req.environment ?? null,
        base_url: baseUrl,
        variables: '{}',
        timeout_seconds: req.timeout_seconds ?? 300,
        trace: req.trace ?? 'on',
        history_days: historyDays(plan),
        total_tests: tests.length,
        error: null,
        lease_owner: null,
        cancellation_reason: null,
        suite_version_id: version.id,
        suite_options: JSON.stringify(options),
      },
      tests.map((t) => ({ test_case_id: t.id, name: t.title_path.join(' › '), suite_test: { project: t.project, file: t.file, line: t.line, title_path: t.title_path, tags: t.tags, file_sha: t.file_sha } })),
      units,
      shards,
    );
    await appendStreamEvent(trx, row.id, 'status', { status: 'queued', total: row.total_tests, shards });
    await enqueueEvents(
      trx,
      ctx.schema,
      Array.from({ length: shards }, (_, shard) => ({ event: 'suite.shard.requested', organization_id: orgId, project_id: row.project_id, key: row.id, data: { execution_id: row.id, shard, attempt: 1 } })),
    );
    return row;
  });
}
