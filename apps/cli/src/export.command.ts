import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { clientFrom, EXIT, parse, UsageError, type Io } from './options.js';

export const EXPORT_USAGE = `assay export (--test-case <id> | --plan <id>) [--format playwright|json] [--env <name>] [--out <file|dir>]

Writes a test case or a whole plan as a Playwright Test file (the default) that
\`npx playwright test\` runs as is, or as import JSON. Without --out it prints
the file; with a directory it writes the file there under its own name.`;

export async function exportCommand(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, {
    'test-case': { type: 'string' },
    plan: { type: 'string' },
    format: { type: 'string' },
    env: { type: 'string' },
    out: { type: 'string', short: 'o' },
  });
  if (values.help) return void io.stdout.write(`${EXPORT_USAGE}\n`), EXIT.ok;
  if (Boolean(values['test-case']) === Boolean(values.plan)) throw new UsageError('Give exactly one of --test-case <id> or --plan <id>');
  const format = values.format ?? 'playwright';
  if (format !== 'playwright' && format !== 'json') throw new UsageError('--format must be playwright or json');
  const client = clientFrom(values, io);
  const target = values['test-case'] ? { testCaseId: values['test-case'] } : { testPlanId: values.plan! };
  const file = await client.export(target, { format, ...(values.env ? { environment: values.env } : {}) });
  if (!values.out) {
    io.stdout.write(file.content);
    return EXIT.ok;
  }
  let out = path.resolve(io.cwd, values.out);
  const isDir = values.out.endsWith('/') || (await stat(out).then((s) => s.isDirectory(), () => false));
  if (isDir) out = path.join(out, file.filename);
  await writeFile(out, file.content).catch((err: Error) => {
    throw new UsageError(`Cannot write ${out}: ${err.message}`);
  });
  io.stderr.write(`Wrote ${out}\n`);
  return EXIT.ok;
}
