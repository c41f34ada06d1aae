import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ok, type AssayClient, type ExecutionEvent, type Schemas } from '@assay/client';
import { byId, guarded, id, READ, text, type Extra } from './shared.js';

/** What an agent needs of a finished run: counts, and for each failed test the failing step, its error and the screenshot. */
export function compactExecution(execution: Schemas['Execution']) {
  const tests = execution.results?.test_results ?? [];
  return {
    execution_id: execution.id,
    status: execution.status,
    passed: execution.passed_tests,
    failed: execution.failed_tests,
    skipped: execution.skipped_tests ?? 0,
    total: execution.total_tests,
    duration_seconds: execution.duration_seconds,
    ...(execution.error ? { error: execution.error } : {}),
    failed_tests: tests
      .filter((t) => t.status === 'failed')
      .map((t) => {
        const index = t.steps.findIndex((s) => s.status === 'failed');
        return {
          test_id: t.test_id,
          name: t.name,
          error: t.error,
          ...(index >= 0 ? { failed_step: { number: index + 1, step_id: t.steps[index]!.step_id, name: t.steps[index]!.name } } : {}),
          ...(t.screenshot ? { screenshot: t.screenshot } : {}),
          // A screenshot comparison that failed: its numbers and images (accept_screenshot takes the capture as the baseline).
          ...(index >= 0 && t.steps[index]!.visual?.result === 'mismatch' ? { visual: t.steps[index]!.visual } : {}),
        };
      }),
    passed_tests: tests.filter((t) => t.status === 'passed').map((t) => t.name),
    ...(tests.some((t) => t.status === 'skipped') ? { skipped_tests: tests.filter((t) => t.status === 'skipped').map((t) => t.name) } : {}),
  };
}

/** Sends MCP progress notifications when the client asked for them (a progressToken). */
function progressReporter(extra: Extra) {
  const token = extra._meta?.progressToken;
  let done = 0;
  return (event: ExecutionEvent) => {
    if (token === undefined) return;
    if (event.event === 'status' && event.data.total !== undefined) {
      void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 0, total: event.data.total, message: 'running' } }).catch(() => undefined);
    }
    if (event.event === 'test_finished') {
      done++;
      void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: done, message: `${event.data.name}: ${event.data.status}` } }).catch(() => undefined);
    }
  };
}

/** The tools that run test plans and read, explain and mend their results. */
export function registerRunTools(server: McpServer, client: AssayClient): void {
  server.registerTool(
    'run_test_plan',
    {
      title: 'Run a test plan',
      description:
        'Runs every active test case of a plan in Chromium against the project (or one of its environments). Waits up to wait_seconds (default 120, 0 = return at once) and returns the results, with the failing step, error and screenshot of each failed test; a run still going returns its execution_id for get_execution.',
      inputSchema: {
        test_plan_id: id('Test plan id (list_test_plans)'),
        environment: z.string().min(1).max(32).optional().describe("A key of the project's environments"),
        variables: z.record(z.string(), z.string()).optional().describe('Values for {{name}} placeholders in steps'),
        wait_seconds: z.number().int().min(0).max(600).optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    guarded(async (a, extra) => {
      const result = await client.runPlan({
        testPlanId: a.test_plan_id,
        ...(a.environment ? { environment: a.environment } : {}),
        ...(a.variables ? { variables: a.variables } : {}),
        waitMs: (a.wait_seconds ?? 120) * 1000,
        signal: extra.signal,
        onEvent: progressReporter(extra),
      });
      if (result.finished) return text(compactExecution(result.execution));
      return text({ execution_id: result.id, status: result.status.status, progress: result.status.progress, next: 'Still running: call get_execution with this execution_id later.' });
    }, 'Unknown test plan: call list_test_plans for valid ids.'),
  );

  server.registerTool(
    'get_execution',
    {
      title: 'Get a run',
      description: 'Status of a run; once finished, its compact results (failed tests with failing step, error and screenshot URL; names of passed tests).',
      inputSchema: { execution_id: id('Execution id (run_test_plan)') },
      annotations: READ,
    },
    guarded(async ({ execution_id }) => {
      const status = ok(await client.api.GET('/api/v1/executions/{execution_id}/status', byId({ execution_id })));
      if (!['completed', 'failed', 'cancelled'].includes(status.status)) return text({ execution_id, status: status.status, progress: status.progress, started_at: status.started_at });
      return text(compactExecution(ok(await client.api.GET('/api/v1/executions/{execution_id}', byId({ execution_id })))));
    }, 'Unknown execution: run_test_plan returns execution ids.'),
  );

  server.registerTool(
    'get_failure_analysis',
    {
      title: 'Explain the failures of a run',
      description: 'Per failed test: the failure category, confidence, a description, evidence (expected selector, suggested alternative, screenshot) and fix suggestions.',
      inputSchema: { execution_id: id('Execution id (run_test_plan)') },
      annotations: READ,
    },
    guarded(async ({ execution_id }) => text(await client.requestJson('GET', `/api/v1/executions/${encodeURIComponent(execution_id)}/failure-analysis`)), 'No analysis for this execution (unknown, or not produced yet: try again shortly).'),
  );

  server.registerTool(
    'apply_fix',
    {
      title: 'Apply a verified fix',
      description: 'Writes the verified selector that get_failure_analysis suggested for a failed test into its test case. Refused when the suggestion was not verified or the case changed since.',
      inputSchema: { execution_id: id('Execution id'), test_id: id('test_id of the failed test (get_failure_analysis)') },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded(
      async ({ execution_id, test_id }) =>
        text(await client.requestJson('POST', `/api/v1/executions/${encodeURIComponent(execution_id)}/failure-analysis/${encodeURIComponent(test_id)}/apply`, { body: {} })),
      'No fix to apply for this execution and test: read get_failure_analysis first.',
    ),
  );

  server.registerTool(
    'accept_screenshot',
    {
      title: 'Accept a new look as the screenshot baseline',
      description:
        'For an assert_screenshot step that failed because the page looks different (get_execution lists its visual diff): makes that run’s capture the baseline of the case, step, browser and viewport, so the next run compares against it. Only when the user confirms the new look is intended.',
      inputSchema: { execution_id: id('Execution id'), test_id: id('test_id of the failed test (get_execution)'), step_id: id('step_id of the failed assert_screenshot step (get_execution: failed_step.step_id)') },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded(
      async ({ execution_id, test_id, step_id }) => text(await client.requestJson('POST', '/api/v1/screenshot-baselines', { body: { execution_id, test_id, step_id } })),
      'Unknown execution, test or step: get_execution lists the failed tests and their steps.',
    ),
  );
}
