export { createAssayMcpServer, MCP_SERVER_NAME, MCP_SERVER_VERSION } from './server.js';
export { compactExecution } from './tools/runs.js';
export { toolError } from './tools/shared.js';
export { handleMcpHttpRequest } from './http.js';
export { serveMcpOverStdio } from './stdio.js';
