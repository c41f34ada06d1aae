import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ok, type AssayClient, type Schemas } from '@assay/client';
import { byId, compactCase, guarded, id, READ, text } from './shared.js';

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

/** The tools that crawl an application and turn its flows into test cases. */
export function registerDiscoveryTools(server: McpServer, client: AssayClient): void {
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
      annotations: READ,
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
}
