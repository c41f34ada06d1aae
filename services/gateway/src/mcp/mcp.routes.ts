import type { Request, RequestHandler } from 'express';
import { AssayClient } from '@assay/client';
import { notImplemented } from '@assay/http';
import type { handleMcpHttpRequest } from '@assay/mcp';

/**
 * The gateway's own address as seen on this connection: MCP tools call the
 * public API there, so authentication, scopes and rate limits apply to each
 * of their calls exactly as to any other client.
 */
function selfUrl(req: Request): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  return `http://${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
}

/** `POST /mcp`: MCP Streamable HTTP, stateless, acting with the caller's credential. */
export function mcpHandler(credentialOf: (req: Request) => string, serve: typeof handleMcpHttpRequest | undefined): RequestHandler {
  return async (req, res) => {
    if (!serve) throw notImplemented('This gateway does not serve MCP');
    // A short retry budget: a tool answers "rate limited, retry in N s" rather than holding the call.
    const client = new AssayClient({ baseUrl: selfUrl(req), apiKey: credentialOf(req), retry: { retries: 2, maxDelayMs: 5000 }, userAgent: 'assay-mcp' });
    await serve(req, res, req.body, client);
  };
}
