import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ok, type AssayClient } from '@assay/client';
import { guarded, id, READ, text } from './shared.js';

/** The tools that find projects and their test plans. */
export function registerProjectTools(server: McpServer, client: AssayClient): void {
  server.registerTool(
    'list_projects',
    {
      title: 'List projects',
      description: 'Projects of the organization, with their base URL and named environments. Start here to find project ids.',
      inputSchema: { search: z.string().max(200).optional().describe('Case-insensitive match on the name'), limit: z.number().int().min(1).max(100).optional() },
      annotations: READ,
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
      annotations: READ,
    },
    guarded(async ({ project_id, limit }) => {
      const list = ok(await client.api.GET('/api/v1/test-plans', { params: { query: { project_id, limit: limit ?? 50 } } }));
      return text({ total: list.pagination.total, test_plans: list.data.map((p) => ({ id: p.id, name: p.name, test_case_ids: p.test_case_ids })) });
    }, 'Unknown project: call list_projects for valid ids.'),
  );
}
