import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AssayClient } from '@assay/client';
import { createAssayMcpServer } from './server.js';

/**
 * Serves one MCP Streamable HTTP request statelessly: a fresh server and
 * transport per POST, so any gateway replica can answer any call and nothing
 * outlives the request. GET (a standalone notification stream) and DELETE
 * (ending a session) have no meaning without sessions: 405.
 */
export async function handleMcpHttpRequest(req: IncomingMessage, res: ServerResponse, body: unknown, client: AssayClient): Promise<void> {
  if (req.method !== 'POST') {
    res.writeHead(405, { 'content-type': 'application/json', allow: 'POST' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC with POST' }, id: null }));
    return;
  }
  const server = createAssayMcpServer(client);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
