export { compactExecution, createAssayMcpServer, MCP_SERVER_NAME, MCP_SERVER_VERSION, toolError } from './server.js';
export { handleMcpHttpRequest } from './http.js';
export { serveMcpOverStdio } from './stdio.js';
