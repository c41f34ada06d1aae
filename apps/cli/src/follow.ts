import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AssayClient, Schemas } from '@assay/client';
import { failureMessage, toJUnitXml } from './junit.js';
import { EXIT, styles, type Io } from './options.js';
import { RunProgress } from './progress.js';

interface TestSummary {
  id: string;
  name: string;
  status: string;
  duration_ms: number;
  error?: string;
  screenshot?: string;
}

export interface FollowOptions {
  /** The first line printed (`Running "Checkout"`). */
  title: string;
  /** The plan's or suite's name: the JUnit testsuite's. */
  name: string;
  json: boolean;
  junit: string | undefined;
  timeoutSeconds: number | undefined;
}

/**
 * Follows a queued execution (a plan's or a suite's) to its end with live
 * lines, writes the JUnit report and the JSON summary when asked, and
 * resolves to the exit code: 0 every test passed, 1 a test failed (or the run
 * failed or was cancelled), 2 when it did not end in time, 130 after Ctrl-C
 * (the run is cancelled first).
 */
export async function followRun(client: AssayClient, io: Io, id: string, o: FollowOptions): Promise<number> {
  const values = { json: o.json, junit: o.junit };
  const timeoutSeconds = o.timeoutSeconds;
  const human = values.json ? io.stderr : io.stdout;
  const live = Boolean(human.isTTY) && !io.env.CI;
  const s = styles(live);
  human.write(`${s.bold(o.title)} ${s.dim(`(execution ${id})`)}\n`);
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
    await writeFile(file, toJUnitXml({ execution, testResults: tests, planName: o.name, hostname: new URL(client.baseUrl).hostname }));
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
