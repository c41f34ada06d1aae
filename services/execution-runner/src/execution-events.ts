import type { VisualOutcome } from '@assay/steps';
import type { NewEvent } from '@assay/bus';
import type { ExecutionRow, TestResultRow } from './db/database.js';

/** Builders for the public `test.execution.*` and `test.plan.*` events (spec data shapes). */
export function executionUrl(publicBaseUrl: string, id: string): string {
  return `${publicBaseUrl}/api/v1/executions/${id}`;
}

export function artifactUrl(publicBaseUrl: string, id: string): string {
  return `${publicBaseUrl}/api/v1/artifacts/${id}`;
}

/** An `assert_screenshot` outcome with its images as URLs. */
export function visualBody(v: VisualOutcome, publicBaseUrl: string) {
  const { actual_artifact_id, expected_artifact_id, diff_artifact_id, ...rest } = v;
  return {
    ...rest,
    ...(actual_artifact_id ? { actual_url: artifactUrl(publicBaseUrl, actual_artifact_id) } : {}),
    ...(expected_artifact_id ? { expected_url: artifactUrl(publicBaseUrl, expected_artifact_id) } : {}),
    ...(diff_artifact_id ? { diff_url: artifactUrl(publicBaseUrl, diff_artifact_id) } : {}),
  };
}

function caseExecution(e: ExecutionRow, r: TestResultRow, status: string, publicBaseUrl: string) {
  return {
    id: e.id,
    test_case_id: r.test_case_id,
    test_case_name: r.name,
    project_id: e.project_id,
    project_name: e.project_name,
    test_plan_id: e.test_plan_id,
    /** The run's environment name (webhook `environment` rules match it), null when none. */
    environment: e.environment,
    status,
    priority: r.priority,
    url: executionUrl(publicBaseUrl, e.id),
  };
}

const base = (e: ExecutionRow, event: string, data: Record<string, unknown>): NewEvent => ({
  event,
  organization_id: e.org_id,
  project_id: e.project_id,
  key: e.id,
  data,
});

export function caseStartedEvent(e: ExecutionRow, r: TestResultRow, startedAt: Date, publicBaseUrl: string): NewEvent {
  return base(e, 'test.execution.started', { execution: { ...caseExecution(e, r, 'running', publicBaseUrl), started_at: startedAt.toISOString() } });
}

export interface CaseFinish {
  status: 'passed' | 'failed';
  durationMs: number;
  startedAt: Date;
  completedAt: Date;
  error?: { message: string; type: string; step: number; step_description: string };
  screenshots: string[];
  /** URL of the case's Playwright trace, when the run kept one. */
  trace?: string;
  pageUrl: string;
  browser: string;
  viewport: string;
  /** The stored result's diagnostics; the event leaves the candidates out. */
  diagnostics?: Record<string, unknown>;
}

/** Diagnostics as events carry them: the candidates (hundreds of fingerprints) stay in the stored result. */
function eventDiagnostics(diagnostics: Record<string, unknown>): Record<string, unknown> {
  const { candidates, ...rest } = diagnostics;
  return Array.isArray(candidates) ? { ...rest, candidates_captured: candidates.length } : rest;
}

export function caseFinishedEvents(e: ExecutionRow, r: TestResultRow, f: CaseFinish, publicBaseUrl: string): NewEvent[] {
  const execution = {
    ...caseExecution(e, r, f.status, publicBaseUrl),
    duration_ms: f.durationMs,
    started_at: f.startedAt.toISOString(),
    completed_at: f.completedAt.toISOString(),
  };
  const events = [base(e, 'test.execution.completed', { execution })];
  if (f.status === 'passed') events.push(base(e, 'test.execution.passed', { execution }));
  else {
    events.push(
      base(e, 'test.execution.failed', {
        execution: { ...execution, error: f.error, screenshots: f.screenshots, ...(f.trace ? { trace: f.trace } : {}) },
        environment: { browser: f.browser, viewport: f.viewport, url: f.pageUrl },
        ...(f.diagnostics ? { diagnostics: eventDiagnostics(f.diagnostics) } : {}),
      }),
    );
  }
  return events;
}

export function planStartedEvent(e: ExecutionRow, results: TestResultRow[], startedAt: Date): NewEvent {
  return base(e, 'test.plan.started', {
    execution_id: e.id,
    test_plan: {
      id: e.test_plan_id,
      name: e.test_plan_name,
      project_id: e.project_id,
      project_name: e.project_name,
      environment: e.environment,
      started_at: startedAt.toISOString(),
      tests: results.map((r) => ({ id: r.test_case_id, name: r.name, priority: r.priority })),
    },
  });
}

/** A plan run's span: from its start (its creation when it never started) to its end (now while it has none). */
function planSpan(e: ExecutionRow): { started: Date; completed: Date; durationMs: number } {
  const started = e.started_at ?? e.created_at;
  const completed = e.completed_at ?? new Date();
  return { started, completed, durationMs: Math.max(0, completed.getTime() - started.getTime()) };
}

/**
 * The end of a plan run (completed, failed by a timeout or by a dead runner):
 * `test.plan.completed` and then `test.completed`, the spec's short summary
 * with the same duration, written in the transaction that ends the run.
 */
export function planCompletedEvents(e: ExecutionRow, results: TestResultRow[], publicBaseUrl: string): NewEvent[] {
  const passed = results.filter((r) => r.status === 'passed').length;
  const failed = results.filter((r) => r.status === 'failed').length;
  const skipped = results.length - passed - failed;
  const { started, completed, durationMs } = planSpan(e);
  return [
    base(e, 'test.plan.completed', {
      execution_id: e.id,
      status: e.status,
      test_plan: {
        id: e.test_plan_id,
        name: e.test_plan_name,
        project_id: e.project_id,
        project_name: e.project_name,
        environment: e.environment,
        started_at: started.toISOString(),
        completed_at: completed.toISOString(),
        duration_ms: durationMs,
        summary: { total: results.length, passed, failed, skipped, pass_rate: results.length ? Math.round((passed / results.length) * 1000) / 10 : 0 },
        failed_tests: results.filter((r) => r.status === 'failed').map((r) => ({ id: r.test_case_id, name: r.name, error: r.error ?? '' })),
        url: executionUrl(publicBaseUrl, e.id),
      },
    }),
    base(e, 'test.completed', { execution_id: e.id, status: e.status, duration_ms: durationMs }),
  ];
}

/**
 * `test.execution.timeout`: a plan run stopped by its timeout, with what its
 * cases had reached (written before its `test.plan.completed`).
 */
export function executionTimeoutEvent(e: ExecutionRow, results: TestResultRow[], skipped: number): NewEvent {
  return base(e, 'test.execution.timeout', {
    execution_id: e.id,
    test_plan_id: e.test_plan_id,
    environment: e.environment,
    timeout_seconds: e.timeout_seconds,
    partial_results: {
      total: results.length,
      passed: e.passed_tests,
      failed: e.failed_tests,
      skipped,
      test_results: results.map((r) => ({ test_id: r.test_case_id, name: r.name, status: r.status, error: r.error })),
    },
  });
}

/**
 * `test.completed` of a cancelled execution (a plan run's end emits its own
 * with planCompletedEvents): `{execution_id, status, duration_ms}`.
 */
export function summaryEvent(e: ExecutionRow): NewEvent {
  const end = e.completed_at ?? e.cancelled_at ?? new Date();
  const durationMs = e.started_at ? Math.max(0, end.getTime() - e.started_at.getTime()) : 0;
  return base(e, 'test.completed', { execution_id: e.id, status: e.status, duration_ms: durationMs });
}
