import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ok, type AssayClient, type Schemas } from '@assay/client';
import { SCHEMAS } from '@assay/contracts';
import { byId, compactCase, failure, guarded, id, READ, text } from './shared.js';

/** The step actions and their rules, read from the contracts so new actions appear here by themselves. */
const stepInput = SCHEMAS.StepInput as { description: string; properties: { action: { enum: string[] } } };
const ACTIONS = stepInput.properties.action.enum as [string, ...string[]];

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
    threshold: z.number().min(0).max(1).optional().describe('`assert_screenshot` only: per-pixel colour distance below which pixels count as equal (default 0.1)'),
    max_diff_ratio: z.number().min(0).max(1).optional().describe('`assert_screenshot` only: share of pixels that may differ and still pass (default 0)'),
    mask: z.array(z.string().min(1).max(2000)).max(20).optional().describe('`assert_screenshot` only: selectors of dynamic parts (dates, avatars) painted over in both images'),
  })
  .describe(stepInput.description);

/** The tools that read and write test cases. */
export function registerTestCaseTools(server: McpServer, client: AssayClient): void {
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
      annotations: READ,
    },
    guarded(async (a) => {
      const query = { project_id: a.project_id, limit: a.limit ?? 50, offset: a.offset ?? 0, ...(a.test_plan_id ? { test_plan_id: a.test_plan_id } : {}), ...(a.search ? { search: a.search } : {}), ...(a.status ? { status: a.status } : {}) };
      const list = ok(await client.api.GET('/api/v1/test-cases', { params: { query } }));
      return text({ total: list.pagination.total, offset: list.pagination.offset, test_cases: list.data.map(compactCase) });
    }, 'Unknown project or plan: call list_projects or list_test_plans for valid ids.'),
  );

  server.registerTool(
    'get_test_case',
    { title: 'Get a test case', description: 'One test case with all its steps (step ids included).', inputSchema: { test_case_id: id('Test case id (list_test_cases)') }, annotations: READ },
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
}
