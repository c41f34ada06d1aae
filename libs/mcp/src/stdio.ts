import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { AssayClient } from '@assay/client';
import { createAssayMcpServer } from './server.js';

/**
 * Serves the MCP tools over stdin/stdout until stdin closes. Nothing else may
 * write to stdout meanwhile: it carries the protocol.
 */
export async function serveMcpOverStdio(client: AssayClient): Promise<void> {
  const server = createAssayMcpServer(client);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
