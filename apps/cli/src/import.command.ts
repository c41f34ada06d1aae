import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { clientFrom, EXIT, need, parse, styles, UsageError, type Io } from './options.js';

export const IMPORT_USAGE = `assay import <file.csv|file.json|file.side> --project <id> [--json]

Imports test cases: CSV, JSON or a Selenium IDE project (.side). Valid rows are
imported even when others fail. Exits 0 when every row was imported, 1 when a
row failed (each is listed with its error), 2 on a usage or API error.`;

const TYPES: Record<string, string> = { '.csv': 'text/csv', '.json': 'application/json', '.side': 'application/json' };

export async function importCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { project: { type: 'string' }, json: { type: 'boolean' } }, 1);
  if (values.help) return void io.stdout.write(`${IMPORT_USAGE}\n`), EXIT.ok;
  const file = positionals[0];
  if (!file) throw new UsageError('Name the file to import: assay import <file> --project <id>');
  const projectId = need(values.project, 'project');
  const client = clientFrom(values, io);
  const full = path.resolve(io.cwd, file);
  const content = await readFile(full).catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`Cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  const result = await client.importTestCases(projectId, { name: path.basename(full), content, type: TYPES[path.extname(full).toLowerCase()] ?? 'application/octet-stream' });
  if (values.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    const s = styles(Boolean(io.stdout.isTTY) && !io.env.CI);
    io.stdout.write(`${s.bold(`Imported ${result.imported}`)}, failed ${result.failed} (${path.basename(full)})\n`);
    for (const r of result.results) {
      if (r.status !== 'imported') io.stdout.write(`${s.red('FAIL')} ${(r as { error?: string }).error ?? r.name}\n`);
    }
  }
  return result.failed > 0 ? EXIT.failed : EXIT.ok;
}
