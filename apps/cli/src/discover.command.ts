import type { DiscoveryEvent } from '@assay/client';
import { clientFrom, EXIT, need, parse, readInt, styles, UsageError, type Io } from './options.js';

export const DISCOVER_USAGE = `assay discover <url> --project <id> [options]

Crawls your application from <url>, printing pages and flows as they are found.
Exits 0 when the crawl completed, 1 when it failed or was cancelled, 2 on a
usage or API error.

  --project <id>      the project the session belongs to (required)
  --max-pages <n>     pages to crawl (1-1000, default 100)
  --max-depth <n>     links to follow from <url> (0-20, default 5)
  --generate          turn the detected flows into test cases
  --plan <id>         with --generate: append the new cases to this plan
  --json              print the results (and generated cases) as JSON on stdout`;

export async function discoverCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(
    args,
    { project: { type: 'string' }, 'max-pages': { type: 'string' }, 'max-depth': { type: 'string' }, generate: { type: 'boolean' }, plan: { type: 'string' }, json: { type: 'boolean' } },
    1,
  );
  if (values.help) return void io.stdout.write(`${DISCOVER_USAGE}\n`), EXIT.ok;
  const targetUrl = positionals[0];
  if (!targetUrl) throw new UsageError('Name the URL to crawl: assay discover <url> --project <id>');
  const projectId = need(values.project, 'project');
  if (values.plan && !values.generate) throw new UsageError('--plan only applies with --generate');
  const maxPages = readInt(values['max-pages'], 'max-pages', 1, 1000);
  const maxDepth = readInt(values['max-depth'], 'max-depth', 0, 20);
  const client = clientFrom(values, io);
  const human = values.json ? io.stderr : io.stdout;
  const s = styles(Boolean(human.isTTY) && !io.env.CI);

  const onEvent = (e: DiscoveryEvent) => {
    if (e.event === 'page_discovered') human.write(`${s.dim('page')} ${e.data.status_code} ${e.data.url}${e.data.title ? ` ${s.dim(JSON.stringify(e.data.title))}` : ''}\n`);
    if (e.event === 'flow_detected') human.write(`${s.green('flow')} ${e.data.type}: ${e.data.pages.join(' → ')}\n`);
  };
  const result = await client.discover({
    projectId,
    targetUrl,
    ...(maxPages !== undefined ? { maxPages } : {}),
    ...(maxDepth !== undefined ? { maxDepth } : {}),
    ...(values.generate ? { generate: values.plan ? { testPlanId: values.plan } : true } : {}),
    onEvent,
  });
  if (!result.finished) return EXIT.usage;
  const { results } = result;
  const sum = results.summary;
  human.write(`${s.bold(`Discovery ${results.status}`)}: ${sum.total_pages} pages, ${sum.unique_flows} flows, ${sum.ui_patterns} UI patterns, ${sum.api_endpoints} API endpoints ${s.dim(`(session ${result.sessionId})`)}\n`);
  if (result.generated) {
    human.write(`Generated ${result.generated.test_cases.length} test cases${result.generated.test_plan_id ? ` in plan ${result.generated.test_plan_id}` : ''}:\n`);
    for (const c of result.generated.test_cases) human.write(`  ${c.id}  ${c.name}\n`);
  } else if (values.generate) {
    human.write(results.status === 'completed' ? 'No flows to generate test cases from.\n' : `Nothing generated: the session ${results.status}.\n`);
  }
  if (values.json) io.stdout.write(`${JSON.stringify({ session_id: result.sessionId, results, ...(result.generated ? { generated: result.generated } : {}) }, null, 2)}\n`);
  return results.status === 'completed' ? EXIT.ok : EXIT.failed;
}
