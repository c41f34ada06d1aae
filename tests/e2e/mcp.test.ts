import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ok, type AssayClient } from '@assay/client';
import { startShop } from '../fixtures/shop/server.js';
import { clientFor, FAILING_CASE, PASSING_CASES, seed } from './support/clients.js';
import { launchForFile, repoRoot } from './support/launcher.js';

// The MCP server with the SDK's own client over both transports against the
// launched stack: Streamable HTTP at the gateway's /mcp and stdio (`assay mcp`).
jest.setTimeout(240_000);

const launched = launchForFile();
let shop: Awaited<ReturnType<typeof startShop>>;
let client: AssayClient;
let key: string;
let projectId: string;
let planIds: Record<string, string>;
let draftsPlanId: string;
const clients: Client[] = [];

async function overHttp(): Promise<Client> {
  const mcp = new Client({ name: 'e2e-http', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${launched.assay.gatewayUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  clients.push(mcp);
  return mcp;
}

async function overStdio(): Promise<Client> {
  const mcp = new Client({ name: 'e2e-stdio', version: '1.0.0' });
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(repoRoot(), 'apps', 'cli', 'bin', 'assay.js'), 'mcp'],
      cwd: repoRoot(),
      env: { PATH: process.env.PATH ?? '', ASSAY_URL: launched.assay.gatewayUrl, ASSAY_API_KEY: key },
      stderr: 'pipe',
    }),
  );
  clients.push(mcp);
  return mcp;
}

const json = (result: Awaited<ReturnType<Client['callTool']>>) => {
  expect(result.isError).toBeFalsy();
  return JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
};
const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>)[0]!.text;

beforeAll(async () => {
  shop = await startShop();
  ({ client, key } = await clientFor(launched.assay.gatewayUrl, launched.assay.serviceKey));
  ({ projectId, planIds } = await seed(client, shop.url, { Checkout: { 'Menu opens on hover': PASSING_CASES['Menu opens on hover']!, ...FAILING_CASE } }));
  draftsPlanId = ok(await client.api.POST('/api/v1/test-plans', { body: { project_id: projectId, name: 'Drafts' } })).id;
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await shop?.close();
});

describe.each([
  ['Streamable HTTP at /mcp', overHttp],
  ['stdio (assay mcp)', overStdio],
])('MCP over %s', (transport, connect) => {
  it('finds the plan, runs it and reads the failing step with its screenshot', async () => {
    const mcp = await connect();
    expect((await mcp.listTools()).tools.map((t) => t.name)).toContain('accept_screenshot');
    expect((await mcp.listTools()).tools).toHaveLength(13);
    const projects = json(await mcp.callTool({ name: 'list_projects', arguments: { search: 'Shop' } }));
    expect(projects.projects.map((p: { id: string }) => p.id)).toContain(projectId);
    const plans = json(await mcp.callTool({ name: 'list_test_plans', arguments: { project_id: projectId } }));
    expect(plans.test_plans).toContainEqual({ id: planIds.Checkout, name: 'Checkout', test_case_ids: expect.any(Array) });

    const progress: Array<{ progress: number; message?: string }> = [];
    const run = json(
      await mcp.callTool({ name: 'run_test_plan', arguments: { test_plan_id: planIds.Checkout, wait_seconds: 180 } }, undefined, {
        onprogress: (p) => progress.push(p),
        timeout: 200_000,
      }),
    );
    expect(run).toMatchObject({ status: 'completed', passed: 1, failed: 1, total: 2, passed_tests: ['Menu opens on hover'] });
    expect(run.failed_tests).toEqual([
      {
        test_id: expect.any(String),
        name: 'Wrong price',
        error: 'Expected text "$99.00" but found "$20.00"',
        failed_step: { number: 2, name: 'assert_text #price', step_id: expect.any(String) },
        screenshot: expect.stringMatching(/\/api\/v1\/artifacts\//),
      },
    ]);
    // One notification per finished test reached the client while the tool ran.
    expect(progress.map((p) => p.message).filter((m) => m?.includes(':')).sort()).toEqual(['Menu opens on hover: passed', 'Wrong price: failed']);

    const again = json(await mcp.callTool({ name: 'get_execution', arguments: { execution_id: run.execution_id } }));
    expect(again).toEqual(run);
    const started = json(await mcp.callTool({ name: 'run_test_plan', arguments: { test_plan_id: planIds.Checkout, wait_seconds: 0 } }));
    expect(started).toMatchObject({ execution_id: expect.any(String), next: expect.stringContaining('get_execution') });
  });

  it('creates a case from steps, and reads the failure analysis of a run, and says what to do when an id is unknown', async () => {
    const mcp = await connect();
    const saved = json(
      await mcp.callTool({
        name: 'save_test_case',
        arguments: { project_id: projectId, name: `Home title ${transport}`, test_plan_id: draftsPlanId, steps: [{ action: 'navigate', value: '/' }, { action: 'assert_text', selector: '#title', value: 'Assay Shop' }] },
      }),
    );
    expect(saved).toMatchObject({ created: true, test_case: { steps: [{ action: 'navigate' }, { action: 'assert_text' }] } });
    const plan = json(await mcp.callTool({ name: 'list_test_cases', arguments: { project_id: projectId, test_plan_id: draftsPlanId } }));
    expect(plan.test_cases.map((c: { name: string }) => c.name)).toContain(`Home title ${transport}`);

    // A finished run of Checkout failed on "Wrong price": the analysis explains it (status waiting or running, no items, while it is produced).
    const runs = await client.api.GET('/api/v1/executions', { params: { query: { project_id: projectId, status: 'completed', limit: 100 } } });
    const checkout = runs.data!.data.find((e: { test_plan_id?: string | null }) => e.test_plan_id === planIds.Checkout)!;
    let analysis = json(await mcp.callTool({ name: 'get_failure_analysis', arguments: { execution_id: checkout.id } }));
    // Every call counts against the key's rate limit (120 a minute on this plan): poll gently.
    for (const deadline = Date.now() + 90_000; !['completed', 'failed'].includes(analysis.status) && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 3000));
      analysis = json(await mcp.callTool({ name: 'get_failure_analysis', arguments: { execution_id: checkout.id } }));
    }
    expect(analysis).toMatchObject({ id: checkout.id, analysis: [{ test_name: 'Wrong price', failure_category: 'assertion_mismatch' }] });
    expect(analysis.analysis).toHaveLength(1);
    const unknown = await mcp.callTool({ name: 'get_execution', arguments: { execution_id: '00000000-0000-4000-8000-000000000000' } });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('run_test_plan returns execution ids');
  });
});

describe('MCP discovery tools', () => {
  it('crawls the shop, reads its flows and generates test cases from them', async () => {
    const mcp = await overHttp();
    const crawl = json(await mcp.callTool({ name: 'start_discovery', arguments: { project_id: projectId, max_pages: 5, max_depth: 1, wait_seconds: 120 } }, undefined, { timeout: 150_000 }));
    expect(crawl).toMatchObject({ session_id: expect.any(String), status: 'completed' });
    expect(crawl.summary.total_pages).toBeGreaterThan(1);
    expect(crawl.flows.length).toBeGreaterThan(0);
    const read = json(await mcp.callTool({ name: 'get_discovery', arguments: { session_id: crawl.session_id } }));
    expect(read.flows).toEqual(crawl.flows);
    const generated = json(await mcp.callTool({ name: 'generate_test_cases', arguments: { session_id: crawl.session_id, flow_ids: [crawl.flows[0].flow_id] } }));
    expect(generated.project_id).toBe(projectId);
    expect(generated.test_cases.length).toBeGreaterThan(0);
    for (const c of generated.test_cases) expect(c.steps).toBeGreaterThan(0);
  });
});
