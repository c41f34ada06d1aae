import { AssayApiError, AssayConnectionError } from '@assay/client';
import { DISCOVER_USAGE, discoverCommand } from './discover.command.js';
import { EXPORT_USAGE, exportCommand } from './export.command.js';
import { IMPORT_USAGE, importCommand } from './import.command.js';
import { MCP_USAGE, mcpCommand } from './mcp.command.js';
import { EXIT, UsageError, type Io } from './options.js';
import { RUN_USAGE, runCommand } from './run.command.js';
import { SUITE_USAGE, suiteCommand } from './suite.command.js';

const COMMANDS: Record<string, { run: (args: string[], io: Io) => Promise<number>; usage: string }> = {
  run: { run: runCommand, usage: RUN_USAGE },
  import: { run: importCommand, usage: IMPORT_USAGE },
  discover: { run: discoverCommand, usage: DISCOVER_USAGE },
  export: { run: exportCommand, usage: EXPORT_USAGE },
  mcp: { run: mcpCommand, usage: MCP_USAGE },
  suite: { run: suiteCommand, usage: SUITE_USAGE },
};

export const USAGE = `assay: the Assay command line

  assay run --plan <id> [--env <name>] [--var k=v] [--wait] [--junit report.xml] [--json]
  assay import <file.csv|file.json|file.side> --project <id>
  assay discover <url> --project <id> [--generate]
  assay export (--test-case <id> | --plan <id>) [--format playwright|json] [--out <file|dir>]
  assay mcp                     the MCP server over stdio
  assay suite push <dir> --project <id> [--name <name>]
  assay suite run <name|id> [--project <id>] [--shards N] [--wait] [--junit report.xml]

Credentials: ASSAY_URL (default http://localhost:8080) and ASSAY_API_KEY (a
service key or an sk_live_ key), or --url and --api-key. \`assay <command> --help\`
tells more. Exit codes: 0 success, 1 tests or rows failed, 2 usage or API error.`;

const defaultIo = (): Io => ({
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  onInterrupt(handler) {
    process.once('SIGINT', handler);
    return () => process.off('SIGINT', handler);
  },
});

/** Runs one command line; resolves to the exit code. */
export async function main(argv: string[], io: Io = defaultIo()): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    io.stdout.write(`${USAGE}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write('assay 0.1.0\n');
    return EXIT.ok;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    io.stderr.write(`assay: unknown command "${name}"\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  try {
    return await command.run(args, io);
  } catch (err) {
    io.stderr.write(`assay ${name}: ${describe(err)}\n`);
    if (err instanceof UsageError) io.stderr.write(`Run "assay ${name} --help" for its options.\n`);
    return EXIT.usage;
  }
}

/** One line an operator can act on; never the credential. */
function describe(err: unknown): string {
  if (err instanceof AssayApiError) {
    const details = Array.isArray(err.details) ? ` (${(err.details as Array<{ field?: string; message?: string }>).map((d) => `${d.field}: ${d.message}`).join('; ')})` : '';
    const hint = err.status === 401 ? ' Check ASSAY_API_KEY.' : '';
    return `${err.status} ${err.error}: ${err.message}${details}${hint}${err.request_id ? ` [request ${err.request_id}]` : ''}`;
  }
  if (err instanceof AssayConnectionError || err instanceof UsageError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
