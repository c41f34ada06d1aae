import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ok, type Schemas } from '@assay/client';
import { failureMessage, toJUnitXml } from './junit.js';
import { clientFrom, EXIT, need, parse, readInt, readVariables, styles, UsageError, type Io } from './options.js';
import { RunProgress } from './progress.js';

export const RUN_USAGE = `assay run --plan <id> [options]

Runs a test plan. With --wait (or --junit) it follows the run to its end and
exits 0 when every test passed, 1 when a test failed (or the run failed or was
cancelled), 2 on a usage or API error.

  --plan <id>         the test plan to run (required)
  --project <id>      its project (read from the plan when omitted)
  --env <name>        one of the project's environments (its base URL is used)
  --var name=value    a {{name}} value for the steps; repeat for more
  --wait              follow the run and exit with its outcome
  --timeout <s>       the run's timeout_seconds (1-3600, default 300)
  --junit <file>      write a JUnit XML report there (implies --wait)
  --json              print one JSON summary on stdout (progress goes to stderr)
  --url, --api-key    the gateway and key (default: ASSAY_URL, ASSAY_API_KEY)`;

const OPTIONS = {
  plan: { type: 'string' },
  project: { type: 'string' },
  env: { type: 'string' },
  var: { type: 'string', multiple: true },
  wait: { type: 'boolean' },
  timeout: { type: 'string' },
  junit: { type: 'string' },
  json: { type: 'boolean' },
} as const;

interface TestSummary {
  id: string;
  name: string;
  status: string;
  duration_ms: number;
  error?: string;
  screenshot?: string;
}

export async function runCommand(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, OPTIONS);
  if (values.help) return void io.stdout.write(`${RUN_USAGE}\n`), EXIT.ok;
  const planId = need(values.plan, 'plan');
  const variables = readVariables(values.var);
  const timeoutSeconds = readInt(values.timeout, 'timeout', 1, 3600);
  const wait = Boolean(values.wait || values.junit);
  if (values.junit !== undefined && values.junit.trim() === '') throw new UsageError('--junit needs a file name');
  const client = clientFrom(values, io);

  const plan = ok(await client.api.GET('/api/v1/test-plans/{test_plan_id}', { params: { path: { test_plan_id: planId } } }));
  const id = await client.startRun({
    testPlanId: planId,
    projectId: values.project ?? plan.project_id,
    ...(values.env !== undefined ? { environment: values.env } : {}),
    ...(variables ? { variables } : {}),
    ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
  });

  // Human output goes to stdout, or to stderr when stdout carries the JSON.
  const human = values.json ? io.stderr : io.stdout;
  const live = Boolean(human.isTTY) && !io.env.CI;
  const s = styles(live);
  if (!wait) {
    if (values.json) io.stdout.write(`${JSON.stringify({ execution_id: id, status: 'queued', polling_url: `/api/v1/executions/${id}/status` })}\n`);
    else human.write(`Execution ${id} queued for plan "${plan.name}".\nFollow it: GET ${client.baseUrl}/api/v1/executions/${id}/status\n`);
    return EXIT.ok;
  }

  human.write(`${s.bold(`Running "${plan.name}"`)} ${s.dim(`(execution ${id})`)}\n`);
  const progress = new RunProgress(human, live);
  const abort = new AbortController();
  let interrupted = false;
  const off = io.onInterrupt(() => {
    interrupted = true;
    abort.abort(new Error('interrupted'));
  });
  let result;
  try {
    result = await client.followExecution(id, {
      signal: abort.signal,
      onEvent: (e) => progress.onEvent(e),
      // A run ends by its own timeout; past that (and a margin) something is wrong.
      ...(timeoutSeconds !== undefined ? { waitMs: (timeoutSeconds + 120) * 1000 } : {}),
    });
  } catch (err) {
    progress.stop();
    if (!interrupted) throw err;
    await client.request('DELETE', `/api/v1/executions/${encodeURIComponent(id)}`).catch(() => undefined);
    human.write(`Interrupted: execution ${id} cancelled.\n`);
    return EXIT.interrupted;
  } finally {
    off();
  }
  progress.stop();
  if (!result.finished) {
    human.write(`Execution ${id} has not finished (status ${result.status.status}); giving up waiting.\n`);
    return EXIT.usage;
  }

  const { execution } = result;
  const tests = execution.results.test_results;
  if (values.junit) {
    const file = path.resolve(io.cwd, values.junit);
    await writeFile(file, toJUnitXml({ execution, testResults: tests, planName: plan.name, hostname: new URL(client.baseUrl).hostname }));
    human.write(s.dim(`JUnit report: ${file}\n`));
  }
  const summary = execution.results.summary;
  const passed = execution.status === 'completed' && summary.failed === 0 && summary.skipped === 0;
  const seconds = execution.duration_seconds ?? 0;
  const counts = `${summary.passed} passed, ${summary.failed} failed${summary.skipped ? `, ${summary.skipped} skipped` : ''}`;
  human.write(`${passed ? s.green(counts) : s.red(counts)} in ${seconds} s${execution.status === 'completed' ? '' : ` (execution ${execution.status}${execution.error ? `: ${execution.error}` : ''})`}\n`);
  if (values.json) {
    const summaryOut = {
      execution_id: execution.id,
      test_plan_id: execution.test_plan_id,
      status: execution.status,
      passed: summary.passed,
      failed: summary.failed,
      skipped: summary.skipped,
      total: summary.total,
      duration_seconds: execution.duration_seconds,
      ...(execution.error ? { error: execution.error } : {}),
      tests: tests.map(testSummary),
    };
    io.stdout.write(`${JSON.stringify(summaryOut, null, 2)}\n`);
  }
  return passed ? EXIT.ok : EXIT.failed;
}

function testSummary(r: Schemas['TestResult']): TestSummary {
  return {
    id: r.test_id,
    name: r.name,
    status: r.status,
    duration_ms: r.duration_ms,
    ...(r.status === 'failed' ? { error: failureMessage(r) } : {}),
    ...(r.screenshot ? { screenshot: r.screenshot } : {}),
  };
}
