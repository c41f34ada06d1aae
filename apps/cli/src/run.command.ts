import { ok } from '@assay/client';
import { followRun } from './follow.js';
import { clientFrom, EXIT, need, parse, readInt, readVariables, UsageError, type Io } from './options.js';

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
  if (!wait) {
    if (values.json) io.stdout.write(`${JSON.stringify({ execution_id: id, status: 'queued', polling_url: `/api/v1/executions/${id}/status` })}\n`);
    else human.write(`Execution ${id} queued for plan "${plan.name}".\nFollow it: GET ${client.baseUrl}/api/v1/executions/${id}/status\n`);
    return EXIT.ok;
  }

  return followRun(client, io, id, { title: `Running "${plan.name}"`, name: plan.name, json: Boolean(values.json), junit: values.junit, timeoutSeconds });
}
