import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AssayClient } from '@assay/client';
import { registerDiscoveryTools } from './tools/discovery.js';
import { registerProjectTools } from './tools/projects.js';
import { registerRunTools } from './tools/runs.js';
import { registerTestCaseTools } from './tools/test-cases.js';

export const MCP_SERVER_NAME = 'assay';
export const MCP_SERVER_VERSION = '0.2.0';

/**
 * The Assay MCP server: about ten task-shaped tools over the public API, one
 * file per group under `tools/`. Every call goes through `client`, so the
 * caller's key, its scopes and its rate limits apply exactly as to the API.
 */
export function createAssayMcpServer(client: AssayClient): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    {
      instructions:
        'Assay stores browser test cases (ordered steps) in projects, groups them in test plans, runs plans in real Chromium and explains failures. Start with list_projects; run with run_test_plan; read failures with get_execution and get_failure_analysis.',
    },
  );
  registerProjectTools(server, client);
  registerTestCaseTools(server, client);
  registerRunTools(server, client);
  registerDiscoveryTools(server, client);
  return server;
}
