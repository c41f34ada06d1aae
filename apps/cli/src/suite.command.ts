import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AssayClient } from '@assay/client';
import { followRun } from './follow.js';
import { clientFrom, EXIT, need, parse, readInt, UsageError, type Io } from './options.js';

export const SUITE_USAGE = `assay suite push <dir> --project <id> [--name <name>] [--projects a,b]
assay suite run <name|id> [--project <id>] [--shards N] [options]

push packs a Playwright project directory (its playwright.config at the
root; node_modules, test-results, playwright-report and .git left out unless
--with-node-modules) as a .tar.gz and uploads it as the next version of the
suite <name> (default: the directory's name); it prints the tests Playwright
lists in it. Where the runner that takes the upload cannot list it (under the
chart: answered 202 \`listing\`), push waits for a suite-shard runner to list
it, up to --list-timeout seconds: exit 1 when Playwright could not list it, or
when it is still being listed then (its runs are refused until it is). run runs the suite's latest version, sharded across the runners,
and with --wait (or --junit) follows it: exit 0 when every test passed, 1
when a test failed (or the run failed or was cancelled), 2 on a usage or API
error.

  --project <id>        the project (needed to find a suite by name)
  --name <name>         push: the suite's name
  --projects a,b        push: the playwright.config projects to run (default its Chromium ones)
  --with-node-modules   push: pack node_modules too (dependencies beyond @playwright/test)
  --list-timeout <s>    push: how long to wait for a version being listed (1-3600, default 600)
  --shards <N>          run: pieces any runner replica takes (default 1)
  --split queue|shard   run: tests handed out longest first (default), or Playwright's --shard
  --grep <regexp>       run: only the tests whose title matches
  --retries <N>         run: Playwright retries (default the config's)
  --env <name>          run: one of the project's environments (its base URL)
  --timeout <s>         run: the run's timeout_seconds (1-3600, default 300)
  --wait, --junit <file>, --json   as for assay run
  --url, --api-key      the gateway and key (default: ASSAY_URL, ASSAY_API_KEY)`;

const OPTIONS = {
  project: { type: 'string' },
  name: { type: 'string' },
  projects: { type: 'string' },
  'with-node-modules': { type: 'boolean' },
  'list-timeout': { type: 'string' },
  shards: { type: 'string' },
  split: { type: 'string' },
  grep: { type: 'string' },
  retries: { type: 'string' },
  env: { type: 'string' },
  timeout: { type: 'string' },
  wait: { type: 'boolean' },
  junit: { type: 'string' },
  json: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parse<typeof OPTIONS>>['values'];

/** The directory as a .tar.gz, packed by the system's tar (GNU or BSD). */
async function pack(dir: string, withNodeModules: boolean): Promise<Buffer> {
  const excludes = ['test-results', 'playwright-report', '.git', 'blob-report', ...(withNodeModules ? [] : ['node_modules'])].flatMap((e) => [`--exclude=./${e}`, `--exclude=${e}`]);
  const { stdout } = await promisify(execFile)('tar', ['czf', '-', ...excludes, '-C', dir, '.'], { encoding: 'buffer', maxBuffer: 1024 * 1024 * 1024 });
  return stdout;
}

interface UploadedVersion {
  version: number;
  status?: 'listing' | 'ready' | 'invalid';
  error?: string | null;
  total_tests: number;
  tests: Array<{ project: string; file: string; line: number; title_path: string[] }>;
}

/** Polls a version stored as \`listing\` until it is listed (\`ready\` or \`invalid\`) or \`timeoutMs\` has passed (then still \`listing\`). */
async function listed(client: AssayClient, suiteId: string, version: number, timeoutMs: number): Promise<UploadedVersion> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await client.requestJson<UploadedVersion>('GET', `/api/v1/suites/${suiteId}/versions/${version}`);
    if (v.status !== 'listing' || Date.now() >= until) return v;
    await new Promise((r) => setTimeout(r, Math.min(1000, Math.max(0, until - Date.now()))));
  }
}

async function push(client: AssayClient, io: Io, dirArg: string, values: Values): Promise<number> {
  const dir = path.resolve(io.cwd, dirArg);
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) throw new UsageError(`${dirArg} is not a directory`);
  const projectId = need(values.project, 'project');
  const listTimeoutSeconds = readInt(values['list-timeout'], 'list-timeout', 1, 3600) ?? 600;
  const name = values.name ?? path.basename(dir);
  const form = new FormData();
  form.append('project_id', projectId);
  form.append('name', name);
  if (values.projects) form.append('projects', values.projects);
  form.append('archive', new Blob([new Uint8Array(await pack(dir, Boolean(values['with-node-modules'])))], { type: 'application/gzip' }), `${name}.tar.gz`);
  const suite = await client.requestJson<{ id: string; name: string; version: UploadedVersion }>('POST', '/api/v1/suites', { body: form });
  // A runner that cannot make the box (under the chart) answers 202 `listing`: a suite-shard process lists it.
  if (suite.version.status === 'listing') {
    io.stderr.write(`Suite "${suite.name}" version ${suite.version.version} stored; waiting for a suite runner to list its tests...\n`);
    suite.version = await listed(client, suite.id, suite.version.version, listTimeoutSeconds * 1000);
  }
  if (suite.version.status === 'listing') {
    if (values.json) io.stdout.write(`${JSON.stringify(suite, null, 2)}\n`);
    io.stderr.write(
      `Suite "${suite.name}" version ${suite.version.version} is still being listed after ${listTimeoutSeconds} s (a suite-shard runner lists it: is one up?); its runs are refused until it is ready: GET /api/v1/suites/${suite.id}/versions/${suite.version.version}\n`,
    );
    return EXIT.failed;
  }
  if (suite.version.status === 'invalid') {
    io.stderr.write(`Suite "${suite.name}" version ${suite.version.version} could not be listed: ${suite.version.error ?? 'no reason given'}\n`);
    return EXIT.failed;
  }
  if (values.json) io.stdout.write(`${JSON.stringify(suite, null, 2)}\n`);
  else {
    io.stdout.write(`Suite "${suite.name}" (${suite.id}) version ${suite.version.version}: ${suite.version.total_tests} tests\n`);
    for (const t of suite.version.tests) io.stdout.write(`  [${t.project}] ${t.file}:${t.line} › ${t.title_path.join(' › ')}\n`);
  }
  return EXIT.ok;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The suite a name (in --project) or an id names. */
async function findSuite(client: AssayClient, ref: string, projectId: string | undefined): Promise<{ id: string; name: string; project_id: string }> {
  if (UUID.test(ref)) return client.requestJson('GET', `/api/v1/suites/${encodeURIComponent(ref)}`);
  if (!projectId) throw new UsageError('--project is needed to find a suite by its name (or give its id)');
  const page = await client.requestJson<{ data: Array<{ id: string; name: string; project_id: string }> }>('GET', `/api/v1/suites?project_id=${encodeURIComponent(projectId)}&limit=100`);
  const suite = page.data.find((s) => s.name === ref);
  if (!suite) throw new UsageError(`The project has no suite named "${ref}" (assay suite push <dir> uploads one)`);
  return suite;
}

async function run(client: AssayClient, io: Io, ref: string, values: Values): Promise<number> {
  const shards = readInt(values.shards, 'shards', 1, 256);
  const retries = readInt(values.retries, 'retries', 0, 10);
  const timeoutSeconds = readInt(values.timeout, 'timeout', 1, 3600);
  if (values.split !== undefined && values.split !== 'queue' && values.split !== 'shard') throw new UsageError('--split is queue or shard');
  if (values.junit !== undefined && values.junit.trim() === '') throw new UsageError('--junit needs a file name');
  const suite = await findSuite(client, ref, values.project);
  const queued = await client.requestJson<{ id: string }>('POST', '/api/v1/executions/async', {
    body: {
      suite_id: suite.id,
      project_id: suite.project_id,
      ...(shards !== undefined ? { shards } : {}),
      ...(retries !== undefined ? { retries } : {}),
      ...(values.split ? { split: values.split } : {}),
      ...(values.grep ? { grep: values.grep } : {}),
      ...(values.env ? { environment: values.env } : {}),
      ...(timeoutSeconds !== undefined ? { timeout_seconds: timeoutSeconds } : {}),
    },
  });
  if (!values.wait && !values.junit) {
    if (values.json) io.stdout.write(`${JSON.stringify({ execution_id: queued.id, status: 'queued' })}\n`);
    else io.stdout.write(`Execution ${queued.id} queued for suite "${suite.name}".\n`);
    return EXIT.ok;
  }
  return followRun(client, io, queued.id, { title: `Running suite "${suite.name}"${shards && shards > 1 ? ` in ${shards} shards` : ''}`, name: suite.name, json: Boolean(values.json), junit: values.junit, timeoutSeconds });
}

export async function suiteCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, 2);
  if (values.help) return void io.stdout.write(`${SUITE_USAGE}\n`), EXIT.ok;
  const [verb, target] = positionals;
  if (verb !== 'push' && verb !== 'run') throw new UsageError('assay suite push <dir> or assay suite run <name|id>');
  if (!target) throw new UsageError(verb === 'push' ? 'push needs the directory of the Playwright project' : 'run needs the suite’s name or id');
  const client = clientFrom(values, io);
  return verb === 'push' ? push(client, io, target, values) : run(client, io, target, values);
}
