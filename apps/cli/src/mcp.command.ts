import { serveMcpOverStdio } from '@assay/mcp';
import { clientFrom, EXIT, parse, type Io } from './options.js';

export const MCP_USAGE = `assay mcp [--url <gateway>] [--api-key <key>]

Serves Assay's MCP tools over stdio, for agents that start their MCP servers as
a command (Claude Desktop, Cursor, VS Code, ...). Every tool call goes to the
gateway with your key, so its scopes and rate limits apply. Example config:

  {"mcpServers": {"assay": {"command": "npx", "args": ["@assay/cli", "mcp"],
    "env": {"ASSAY_URL": "https://assay.example.com", "ASSAY_API_KEY": "sk_live_..."}}}}`;

export async function mcpCommand(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, {});
  if (values.help) return void io.stdout.write(`${MCP_USAGE}\n`), EXIT.ok;
  await serveMcpOverStdio(clientFrom(values, io));
  return EXIT.ok;
}
