import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { z } from 'zod';
import { AssayApiError, AssayConnectionError, ok, type AssayClient, type ExecutionEvent, type Schemas } from '@assay/client';
import { SCHEMAS } from '@assay/contracts';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const MCP_SERVER_NAME = 'assay';
export const MCP_SERVER_VERSION = '0.1.0';

/** The step actions and their rules, read from the contracts so new actions appear here by themselves. */
const stepInput = SCHEMAS.StepInput as { description: string; properties: { action: { enum: string[] } } };
const ACTIONS = stepInput.properties.action.enum as [string, ...string[]];

const id = (what: string) => z.string().min(1).max(64).describe(what);
export const STEP = z
  .object({
    action: z.enum(ACTIONS),
    selector: z.string().max(2000).optional().describe('CSS selector (or a Playwright selector such as role=button[name="Buy"])'),
    value: z.string().max(10_000).optional().describe('Text, URL path or expected value'),
    timeout: z.number().int().min(1).max(300_000).optional().describe('Milliseconds, `wait` only'),
    description: z.string().max(1000).optional(),
    request: z
      .object({
        method: z.string().max(10),
        url: z.string().max(2000),
        headers: z.record(z.string(), z.string()).optional(),
        body: z.unknown().optional(),
      })
      .optional()
      .describe('`request` only: the HTTP call (url joined to the base URL unless absolute; the body is sent as JSON)'),
    expect: z.array(z.string().max(500)).max(50).optional().describe('`request` only: status=201, $.id exists, $.items.length>=3, $.name="Ada"'),
    save_as: z.record(z.string(), z.string()).optional().describe('`request` only: variable name to JSON path, e.g. {"order_id": "$.id"}'),
  })
  .describe(stepInput.description);

const text = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }] });
const failure = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });

/**
 * An error as a tool result an agent can act on: what went wrong, and what to
 * do next (`hint` names the tool that lists valid ids).
 */
export function toolError(err: unknown, hint?: string): CallToolResult {
  if (err instanceof AssayApiError) {
    const details = Array.isArray(err.details) ? ` Fields: ${(err.details as Array<{ field?: string; message?: string }>).map((d) => `${d.field} ${d.message}`).join('; ')}.` : '';
    const next: Record<number, string> = {
      400: 'Fix the arguments and call again.',
      401: 'The credential was refused: the key is invalid, revoked or expired. Ask the user for a valid Assay key.',
      403: 'This key may not do that (a missing scope or plan limit). Ask the user for a key that can.',
      404: hint ?? 'Check the id.',
      409: 'The resource is not in a state that allows this; read it again and decide.',
      429: `Rate limited: wait ${err.retry_after ?? 60} seconds before calling again.`,
      501: 'This deployment does not run that part of Assay; tell the user.',
      503: 'A part of Assay is temporarily unavailable; try again in a minute.',
    };
    return failure(`${err.error} (HTTP ${err.status}): ${err.message}.${details} ${next[err.status] ?? ''}`.trim());
  }
  if (err instanceof AssayConnectionError) return failure(`${err.message}. Assay is unreachable; try again later.`);
  return failure(err instanceof Error ? err.message : String(err));
}

/** Runs a tool body, turning every error into an actionable tool result. */
const guarded =
  <A>(fn: (args: A, extra: Extra) => Promise<CallToolResult>, hint?: string) =>
  async (args: A, extra: Extra): Promise<CallToolResult> => {
    try {
      return await fn(args, extra);
    } catch (err) {
      return toolError(err, hint);
    }
  };

const byId = <P extends Record<string, string>>(path: P) => ({ params: { path } });

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
          ...(index >= 0 ? { failed_step: { number: index + 1, name: t.steps[index]!.name } } : {}),
          ...(t.screenshot ? { screenshot: t.screenshot } : {}),
        };
      }),
    passed_tests: tests.filter((t) => t.status === 'passed').map((t) => t.name),
    ...(tests.some((t) => t.status === 'skipped') ? { skipped_tests: tests.filter((t) => t.status === 'skipped').map((t) => t.name) } : {}),
  };
}

const compactFlows = (results: Schemas['DiscoveryResults']) =>
  results.flows.map((f) => ({ flow_id: f.flow_id, type: f.type, pages: f.pages, steps: f.steps?.length ?? 0 }));

const compactDiscovery = (sessionId: string, results: Schemas['DiscoveryResults']) => ({
  session_id: sessionId,
  status: results.status,
  summary: results.summary,
  flows: compactFlows(results),
  pages: results.pages.slice(0, 50).map((p) => ({ url: p.url, title: p.title, status_code: p.status_code })),
  ...(results.pages.length > 50 ? { pages_omitted: results.pages.length - 50 } : {}),
});

const compactCase = (c: Schemas['TestCase']) => ({ id: c.id, name: c.name, status: c.status, priority: c.priority, tags: c.tags, steps: c.steps.length });

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

/**
 * The Assay MCP server: about ten task-shaped tools over the public API. Every
 * call goes through `client`, so the caller's key, its scopes and its rate
 * limits apply exactly as to the API.
 */
export function createAssayMcpServer(client: AssayClient): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    {
      instructions:
        'Assay stores browser test cases (ordered steps) in projects, groups them in test plans, runs plans in real Chromium and explains failures. Start with list_projects; run with run_test_plan; read failures with get_execution and get_failure_analysis.',
    },
  );
  const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

  server.registerTool(
    'list_projects',
    {
      title: 'List projects',
      description: 'Projects of the organization, with their base URL and named environments. Start here to find project ids.',
      inputSchema: { search: z.string().max(200).optional().describe('Case-insensitive match on the name'), limit: z.number().int().min(1).max(100).optional() },
      annotations: read,
    },
    guarded(async ({ search, limit }) => {
      const list = ok(await client.api.GET('/api/v1/projects', { params: { query: { limit: limit ?? 50, ...(search ? { search } : {}) } } }));
      return text({ total: list.pagination.total, projects: list.data.map((p) => ({ id: p.id, name: p.name, base_url: p.base_url, environments: p.environments })) });
    }),
  );

  server.registerTool(
    'list_test_plans',
    {
      title: 'List test plans',
      description: 'Test plans of a project: what run_test_plan runs, with their test case ids in run order.',
      inputSchema: { project_id: id('Project id (list_projects)'), limit: z.number().int().min(1).max(100).optional() },
      annotations: read,
    },
    guarded(async ({ project_id, limit }) => {
      const list = ok(await client.api.GET('/api/v1/test-plans', { params: { query: { project_id, limit: limit ?? 50 } } }));
      return text({ total: list.pagination.total, test_plans: list.data.map((p) => ({ id: p.id, name: p.name, test_case_ids: p.test_case_ids })) });
    }, 'Unknown project: call list_projects for valid ids.'),
  );

  server.registerTool(
    'list_test_cases',
    {
      title: 'List test cases',
      description: 'Test cases of a project (active by default), optionally only those of a plan or matching a name. Shows step counts; get_test_case shows the steps.',
      inputSchema: {
        project_id: id('Project id (list_projects)'),
        test_plan_id: id('Only the cases of this plan, in run order').optional(),
        search: z.string().max(200).optional().describe('Case-insensitive match on the name'),
        status: z.enum(['active', 'archived', 'all']).optional(),
        limit: z.number().int().min(1).max(200).optional(),
        offset: z.number().int().min(0).optional(),
      },
      annotations: read,
    },
    guarded(async (a) => {
      const query = { project_id: a.project_id, limit: a.limit ?? 50, offset: a.offset ?? 0, ...(a.test_plan_id ? { test_plan_id: a.test_plan_id } : {}), ...(a.search ? { search: a.search } : {}), ...(a.status ? { status: a.status } : {}) };
      const list = ok(await client.api.GET('/api/v1/test-cases', { params: { query } }));
      return text({ total: list.pagination.total, offset: list.pagination.offset, test_cases: list.data.map(compactCase) });
    }, 'Unknown project or plan: call list_projects or list_test_plans for valid ids.'),
  );

  server.registerTool(
    'get_test_case',
    { title: 'Get a test case', description: 'One test case with all its steps (step ids included).', inputSchema: { test_case_id: id('Test case id (list_test_cases)') }, annotations: read },
    guarded(async ({ test_case_id }) => text(ok(await client.api.GET('/api/v1/test-cases/{test_case_id}', byId({ test_case_id })))), 'Unknown test case: call list_test_cases for valid ids.'),
  );

  server.registerTool(
    'save_test_case',
    {
      title: 'Create or update a test case',
      description:
        'Without test_case_id: creates a case in project_id from name and steps (optionally appended to test_plan_id). With test_case_id: updates the fields given; steps, when given, replace all steps. Returns the saved case.',
      inputSchema: {
        test_case_id: id('The case to update; omit to create').optional(),
        project_id: id('Project of a new case (list_projects)').optional(),
        name: z.string().min(1).max(200).optional(),
        description: z.string().max(5000).optional(),
        tags: z.array(z.string().min(1).max(50)).max(50).optional(),
        steps: z.array(STEP).min(1).max(200).optional(),
        test_plan_id: id('Append a new case to this plan').optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    guarded(async (a) => {
      const fields = { ...(a.name !== undefined ? { name: a.name } : {}), ...(a.description !== undefined ? { description: a.description } : {}), ...(a.tags ? { tags: a.tags } : {}), ...(a.steps ? { steps: a.steps } : {}) };
      if (a.test_case_id) {
        if (Object.keys(fields).length === 0) return failure('Nothing to update: give name, description, tags or steps.');
        const saved = ok(await client.api.PUT('/api/v1/test-cases/{test_case_id}', { ...byId({ test_case_id: a.test_case_id }), body: fields as Schemas['TestCaseUpdateRequest'] }));
        return text({ updated: true, test_case: saved });
      }
      if (!a.project_id || !a.name || !a.steps) return failure('To create a test case give project_id, name and steps (or test_case_id to update one).');
      const created = ok(await client.api.POST('/api/v1/test-cases', { body: { project_id: a.project_id, ...fields, name: a.name, steps: a.steps } as Schemas['TestCaseCreateRequest'] }));
      if (a.test_plan_id) ok(await client.api.POST('/api/v1/test-plans/{test_plan_id}/test-cases', { ...byId({ test_plan_id: a.test_plan_id }), body: { test_case_id: created.id } }));
      return text({ created: true, test_case: created, ...(a.test_plan_id ? { added_to_test_plan: a.test_plan_id } : {}) });
    }, 'Unknown project, plan or test case: call list_projects, list_test_plans or list_test_cases for valid ids.'),
  );

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
      annotations: read,
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
      annotations: read,
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
    'start_discovery',
    {
      title: 'Crawl an application',
      description:
        'Starts a discovery session that crawls the target (default: the project base URL) in Chromium and detects pages, user flows, UI patterns and API calls. Waits up to wait_seconds (default 60) and returns the flows found; a crawl still going returns its session_id for get_discovery.',
      inputSchema: {
        project_id: id('Project id (list_projects)'),
        target_url: z.string().url().max(2000).optional().describe('Where the crawl starts; default the project base URL'),
        max_pages: z.number().int().min(1).max(1000).optional(),
        max_depth: z.number().int().min(0).max(20).optional(),
        wait_seconds: z.number().int().min(0).max(600).optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    guarded(async (a, extra) => {
      const targetUrl = a.target_url ?? ok(await client.api.GET('/api/v1/projects/{project_id}', byId({ project_id: a.project_id }))).base_url;
      const result = await client.discover({
        projectId: a.project_id,
        targetUrl,
        ...(a.max_pages !== undefined ? { maxPages: a.max_pages } : {}),
        ...(a.max_depth !== undefined ? { maxDepth: a.max_depth } : {}),
        waitMs: (a.wait_seconds ?? 60) * 1000,
        signal: extra.signal,
      });
      if (result.finished) return text(compactDiscovery(result.sessionId, result.results));
      return text({ session_id: result.sessionId, status: result.progress.status, progress: result.progress.progress, next: 'Still crawling: call get_discovery with this session_id later.' });
    }, 'Unknown project: call list_projects for valid ids.'),
  );

  server.registerTool(
    'get_discovery',
    {
      title: 'Get a discovery session',
      description: 'Progress of a crawl; once finished, its summary, the detected flows (ids for generate_test_cases) and the pages.',
      inputSchema: { session_id: id('Session id (start_discovery)') },
      annotations: read,
    },
    guarded(async ({ session_id }) => {
      const progress = ok(await client.api.GET('/api/v1/discovery/{session_id}/progress', byId({ session_id })));
      if (progress.status === 'running' || progress.status === 'paused') return text({ session_id, status: progress.status, progress: progress.progress, current_page: progress.current_page });
      return text(compactDiscovery(session_id, ok(await client.api.GET('/api/v1/discovery/{session_id}/results', byId({ session_id })))));
    }, 'Unknown session: start_discovery returns session ids.'),
  );

  server.registerTool(
    'generate_test_cases',
    {
      title: 'Generate test cases from flows',
      description: "Turns a completed discovery session's flows (all, or flow_ids) into test cases of its project, optionally appended to a plan. Returns the new cases.",
      inputSchema: {
        session_id: id('Session id (start_discovery)'),
        flow_ids: z.array(z.string().min(1).max(64)).min(1).max(100).optional(),
        test_plan_id: id('Append the new cases to this plan').optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    guarded(async ({ session_id, flow_ids, test_plan_id }) => {
      const generated = ok(
        await client.api.POST('/api/v1/discovery/{session_id}/generate-test-cases', { ...byId({ session_id }), body: { ...(flow_ids ? { flow_ids } : {}), ...(test_plan_id ? { test_plan_id } : {}) } }),
      );
      return text({ project_id: generated.project_id, test_plan_id: generated.test_plan_id, test_cases: generated.test_cases.map(compactCase) });
    }, 'Unknown session, flow or plan: get_discovery lists flow ids.'),
  );

  return server;
}
