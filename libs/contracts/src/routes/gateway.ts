import { routesOf } from './route.js';

const gateway = routesOf('gateway');

/** The gateway's own routes: the reference and the MCP server (every other route it forwards). */
export const GATEWAY_ROUTES = [
  gateway({
    method: 'GET',
    path: '/api/v1/openapi.json',
    tag: 'Reference',
    summary: 'This OpenAPI 3.1 document',
    auth: false,
    response: { status: 200 },
  }),
  gateway({
    method: 'GET',
    path: '/docs',
    tag: 'Reference',
    summary: 'The API reference as a web page',
    auth: false,
    response: { status: 200, contentType: 'text/html' },
  }),
  gateway({
    method: 'POST',
    path: '/mcp',
    tag: 'MCP',
    summary: 'The MCP server (Model Context Protocol, Streamable HTTP)',
    description:
      'JSON-RPC 2.0 messages of MCP (`initialize`, `tools/list`, `tools/call`, ...), stateless; answers JSON or a Server-Sent Events stream. Each tool calls this API with the caller’s credential, so its scopes and rate limits apply. Point an MCP client here with `Authorization: Bearer <key>`.',
    response: { status: 200, contentType: 'text/event-stream' },
    errors: [400, 405],
  }),
];
