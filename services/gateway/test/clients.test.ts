import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent } from 'undici';
import { launchChromium } from '@assay/browser';
import { createDatabase, migrateToLatest, type Database } from '@assay/db';
import { createSilentLogger } from '@assay/logger';
import { handleMcpHttpRequest } from '@assay/mcp';
import { PRINCIPAL_HEADER, servicePrincipal, signPrincipal } from '@assay/principal';
import { bearer, call, createTestDatabase, freePortForTests, listen, TEST_INTERNAL_SECRET, type TestDatabase, type TestServer } from '@assay/testing';
import { buildApp as buildAuthApp } from '../../auth/src/app.js';
import { migrations as authMigrations } from '../../auth/src/db/migrations/index.js';
import { buildApp as buildTestCaseApp } from '../../test-case/src/app.js';
import { migrations as testCaseMigrations } from '../../test-case/src/db/migrations/index.js';
import { buildApp } from '../src/app.js';
import { Authenticator } from '../src/auth/authenticator.js';

// The gateway in front of a real auth and a real test-case service (their
// express apps on real ports, one real database): MCP over Streamable HTTP
// with the SDK's own client, and the API reference in real Chromium.
const logger = createSilentLogger();
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium-headless-shell';
let testDb: TestDatabase;
const dbs: Database<any>[] = [];
const servers: TestServer[] = [];
const closers: Array<() => Promise<unknown>> = [];
let authUrl: string;
let testCaseUrl: string;

/** A gateway listening on a port chosen first, so its public base URL is its own address. */
async function startGateway(opts: { rateLimits?: boolean } = {}): Promise<string> {
  const dispatcher = new Agent({ connect: { timeout: 1000 } });
  const authenticator = new Authenticator({ authUrl, internalTokenSecret: TEST_INTERNAL_SECRET, cacheTtlMs: 2000, usageFlushMs: 60_000, dispatcher, logger });
  const port = await freePortForTests();
  const url = `http://127.0.0.1:${port}`;
  const app = buildApp({
    logger,
    authenticator,
    dispatcher,
    upstreams: { auth: authUrl, 'test-case': testCaseUrl },
    internalTokenSecret: TEST_INTERNAL_SECRET,
    publicBaseUrl: url,
    rateLimitsEnabled: opts.rateLimits ?? false,
    upstreamResponseTimeoutMs: 10_000,
    mcp: handleMcpHttpRequest,
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  closers.push(
    () => new Promise((r) => (server.closeAllConnections(), server.close(r))),
    () => authenticator.close(),
    () => dispatcher.close(),
  );
  return url;
}

/** A new organization on `plan`: a session, a service key and `sk_live_` keys with the given scopes. */
async function organization(gw: string, opts: { plan?: 'starter' | 'pro'; environment?: 'prod' | 'dev'; scopes?: string[] } = {}) {
  const email = `o${Date.now()}${Math.random().toString(36).slice(2, 6)}@example.test`;
  const password = 'a long enough password';
  await fetch(`${authUrl}/internal/organizations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [PRINCIPAL_HEADER]: await signPrincipal(TEST_INTERNAL_SECRET, servicePrincipal('test')) },
    body: JSON.stringify({ name: 'org', plan: opts.plan ?? 'pro', owner: { email, name: 'Owner', password } }),
  });
  const session = (await call(gw, 'POST', '/api/auth/login', { body: { email, password } })).body.token as string;
  const key = (await call(gw, 'POST', '/api/service-keys', { headers: bearer(session), body: { name: 'ci', environment: opts.environment ?? 'prod' } })).body.key as string;
  const apiKey = opts.scopes ? ((await call(gw, 'POST', '/api/api-keys', { headers: bearer(session), body: { name: 'agent', scopes: opts.scopes } })).body.key as string) : undefined;
  return { session, key, apiKey };
}

async function mcpClient(gw: string, credential: string, header: 'authorization' | 'x-api-key' = 'authorization') {
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  const headers: Record<string, string> = header === 'authorization' ? { authorization: `Bearer ${credential}` } : { 'x-api-key': credential };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw}/mcp`), { requestInit: { headers } }));
  closers.push(() => client.close());
  return client;
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ type: string; text: string }>)[0]!.text;

beforeAll(async () => {
  testDb = await createTestDatabase();
  const authDb = createDatabase<any>({ connectionString: testDb.url, schema: 'auth' });
  const testCaseDb = createDatabase<any>({ connectionString: testDb.url, schema: 'testcase' });
  dbs.push(authDb, testCaseDb);
  await migrateToLatest(authDb, authMigrations);
  await migrateToLatest(testCaseDb, testCaseMigrations);
  const auth = await listen(
    buildAuthApp({ db: authDb.db, schema: 'auth', logger, internalTokenSecret: TEST_INTERNAL_SECRET, session: { secret: 'gateway-test-session-secret-0123456789', ttlSeconds: 3600 } }),
  );
  const testCase = await listen(buildTestCaseApp({ db: testCaseDb.db, schema: 'testcase', logger, internalTokenSecret: TEST_INTERNAL_SECRET }));
  servers.push(auth, testCase);
  authUrl = auth.url;
  testCaseUrl = testCase.url;
});

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  for (const s of servers) await s.close();
  for (const d of dbs) await d.close();
  await testDb.drop();
});

describe('MCP over Streamable HTTP at /mcp', () => {
  it('lists about ten task-shaped tools, each with a JSON schema and read-only/destructive annotations', async () => {
    const gw = await startGateway();
    const { key } = await organization(gw);
    const client = await mcpClient(gw, key);
    expect(client.getServerVersion()).toMatchObject({ name: 'assay' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'accept_screenshot',
      'apply_fix',
      'generate_test_cases',
      'get_discovery',
      'get_execution',
      'get_failure_analysis',
      'get_test_case',
      'list_projects',
      'list_test_cases',
      'list_test_plans',
      'run_test_plan',
      'save_test_case',
      'start_discovery',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.description!.length).toBeGreaterThan(20);
      expect(typeof tool.annotations?.readOnlyHint).toBe('boolean');
      expect(typeof tool.annotations?.destructiveHint).toBe('boolean');
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.list_projects!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.apply_fix!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.run_test_plan!.inputSchema.required).toEqual(['test_plan_id']);
    const steps = (byName.save_test_case!.inputSchema.properties as Record<string, any>).steps;
    expect(steps.items.properties.action.enum).toEqual(expect.arrayContaining(['navigate', 'click', 'assert_text', 'assert_value']));
  });

  it('creates, updates, lists and reads test cases with the caller’s own credential', async () => {
    const gw = await startGateway();
    const { key } = await organization(gw);
    const project = (await call(gw, 'POST', '/api/v1/projects', { headers: bearer(key), body: { name: 'Shop', base_url: 'http://shop.test' } })).body;
    const client = await mcpClient(gw, key);

    const projects = JSON.parse(textOf(await client.callTool({ name: 'list_projects', arguments: {} })));
    expect(projects).toEqual({ total: 1, projects: [{ id: project.id, name: 'Shop', base_url: 'http://shop.test', environments: {} }] });

    const plan = (await call(gw, 'POST', '/api/v1/test-plans', { headers: bearer(key), body: { project_id: project.id, name: 'Smoke' } })).body;
    const created = JSON.parse(
      textOf(
        await client.callTool({
          name: 'save_test_case',
          arguments: { project_id: project.id, name: 'Search', test_plan_id: plan.id, steps: [{ action: 'navigate', value: '/products' }, { action: 'fill', selector: '#q', value: 'shoes' }] },
        }),
      ),
    );
    expect(created).toMatchObject({ created: true, added_to_test_plan: plan.id, test_case: { name: 'Search', project_id: project.id } });
    const caseId = created.test_case.id as string;
    // The case exists in the service, in the plan: the tool called the real API.
    expect((await call(gw, 'GET', `/api/v1/test-plans/${plan.id}`, { headers: bearer(key) })).body.test_case_ids).toEqual([caseId]);

    const updated = JSON.parse(textOf(await client.callTool({ name: 'save_test_case', arguments: { test_case_id: caseId, steps: [{ action: 'navigate', value: '/' }] } })));
    expect(updated.test_case.steps).toEqual([{ step_id: expect.any(String), action: 'navigate', value: '/' }]);

    const listed = JSON.parse(textOf(await client.callTool({ name: 'list_test_cases', arguments: { project_id: project.id, test_plan_id: plan.id } })));
    expect(listed.test_cases).toEqual([{ id: caseId, name: 'Search', status: 'active', priority: 'medium', tags: [], steps: 1 }]);
    const plans = JSON.parse(textOf(await client.callTool({ name: 'list_test_plans', arguments: { project_id: project.id } })));
    expect(plans.test_plans).toEqual([{ id: plan.id, name: 'Smoke', test_case_ids: [caseId] }]);
    expect(JSON.parse(textOf(await client.callTool({ name: 'get_test_case', arguments: { test_case_id: caseId } }))).id).toBe(caseId);
  });

  it('answers errors an agent can act on: unknown ids, invalid steps, services not deployed', async () => {
    const gw = await startGateway();
    const { key } = await organization(gw);
    const client = await mcpClient(gw, key, 'x-api-key').catch(() => undefined);
    // x-api-key carries only sk_live_ keys; a service key goes in Authorization.
    expect(client).toBeUndefined();
    const mcp = await mcpClient(gw, key);

    const missing = await mcp.callTool({ name: 'get_test_case', arguments: { test_case_id: '00000000-0000-4000-8000-000000000000' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^not_found \(HTTP 404\): .*call list_test_cases for valid ids\.$/);

    const project = (await call(gw, 'POST', '/api/v1/projects', { headers: bearer(key), body: { name: 'Shop', base_url: 'http://shop.test' } })).body;
    const invalid = await mcp.callTool({ name: 'save_test_case', arguments: { project_id: project.id, name: 'Bad', steps: [{ action: 'fill', selector: '#q' }] } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain('validation_error (HTTP 400)');
    expect(textOf(invalid)).toContain('steps[0].value is required for action "fill"');

    const incomplete = await mcp.callTool({ name: 'save_test_case', arguments: { name: 'No project' } });
    expect(incomplete).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('give project_id, name and steps') }] });

    // The runner is not part of this deployment: the gateway answers 501.
    const run = await mcp.callTool({ name: 'get_execution', arguments: { execution_id: 'x' } });
    expect(run.isError).toBe(true);
    expect(textOf(run)).toMatch(/^not_implemented \(HTTP 501\): .*does not run that part of Assay/);

    // Arguments outside the schema never reach the API.
    const badArgs = await mcp.callTool({ name: 'list_projects', arguments: { limit: 1000 } });
    expect(badArgs.isError).toBe(true);
  });

  it('refuses /mcp without a valid credential exactly like the API, and enforces an sk_live_ key’s scopes in each tool', async () => {
    const gw = await startGateway();
    const anonymous = await fetch(`${gw}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: 'invalid_api_key' });
    const wrong = await fetch(`${gw}/mcp`, { method: 'POST', headers: { authorization: 'Bearer service_sk_prod_nope' }, body: '{}' });
    expect(wrong.status).toBe(401);

    const { key, apiKey } = await organization(gw, { scopes: ['projects:read'] });
    await call(gw, 'POST', '/api/v1/projects', { headers: bearer(key), body: { name: 'Shop', base_url: 'http://shop.test' } });
    const mcp = await mcpClient(gw, apiKey!, 'x-api-key');
    const allowed = JSON.parse(textOf(await mcp.callTool({ name: 'list_projects', arguments: {} })));
    expect(allowed.total).toBe(1);
    const denied = await mcp.callTool({ name: 'save_test_case', arguments: { project_id: allowed.projects[0].id, name: 'X', steps: [{ action: 'navigate', value: '/' }] } });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('insufficient_permissions (HTTP 403): This API key lacks the "test_cases:write" scope');

    const get = await fetch(`${gw}/mcp`, { headers: { authorization: `Bearer ${key}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('counts /mcp calls against the key’s rate limit and answers 429 with Retry-After past it', async () => {
    const gw = await startGateway({ rateLimits: true });
    // A dev key on Starter: 15 calls a minute.
    const { key } = await organization(gw, { plan: 'starter', environment: 'dev' });
    const list = () =>
      fetch(`${gw}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 16; i++) statuses.push((await list()).status);
    expect(statuses.slice(0, 15)).toEqual(Array(15).fill(200));
    expect(statuses[15]).toBe(429);
    const limited = await list();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ error: 'rate_limit_exceeded', retry_after: expect.any(Number) });
  });
});

describe('the API reference at /docs', () => {
  it('serves Swagger UI from the gateway itself with a strict content security policy', async () => {
    const gw = await startGateway();
    const page = await fetch(`${gw}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain(`connect-src 'self' ${gw}`);
    const html = await page.text();
    expect(html).toContain('<script src="/docs/assets/swagger-ui-bundle.js"></script>');
    const bundle = await fetch(`${gw}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(500_000);
    expect((await fetch(`${gw}/docs/assets/swagger-ui.css`)).headers.get('content-type')).toMatch(/^text\/css/);
    expect(await (await fetch(`${gw}/docs/init.js`)).text()).toContain("url: '/api/v1/openapi.json'");
    // Only the files the page uses: not the package's Petstore demo page.
    const other = await fetch(`${gw}/docs/assets/index.html`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: 'not_found' });
  });

  // Swagger UI is a heavy page: each click re-renders it, slowly on a busy machine.
  it('lets a reader paste a key and try a call against this gateway, loading nothing from another origin', async () => {
    const gw = await startGateway();
    const { key } = await organization(gw);
    await call(gw, 'POST', '/api/v1/projects', { headers: bearer(key), body: { name: 'Tried from the docs', base_url: 'http://shop.test' } });
    const browser = await launchChromium({ executablePath: CHROMIUM });
    try {
      const page = await browser.newPage();
      const requested: string[] = [];
      page.on('request', (r) => requested.push(r.url()));
      const cspErrors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && cspErrors.push(m.text()));
      await page.goto(`${gw}/docs`);
      await page.getByRole('button', { name: 'Authorize' }).first().click({ timeout: 20_000 });
      // The bearer scheme's field in the dialog.
      const dialog = page.locator('.modal-ux');
      await dialog.locator('#auth-bearer-value').fill(key);
      await dialog.getByRole('button', { name: 'Apply credentials' }).first().click();
      await dialog.getByRole('button', { name: 'Close' }).first().click();

      const op = page.locator('#operations-Projects-getApiV1Projects');
      await op.locator('.opblock-summary').click();
      await op.getByRole('button', { name: 'Try it out' }).click();
      await op.getByRole('button', { name: 'Execute' }).click();
      const body = op.locator('.live-responses-table .response-col_description .highlight-code pre').first();
      await body.waitFor({ timeout: 20_000 });
      expect(await body.innerText()).toContain('Tried from the docs');
      expect(await op.locator('.live-responses-table .response .response-col_status').first().innerText()).toMatch(/^200/);

      const origin = new URL(gw).origin;
      expect(requested.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'))).toEqual([]);
      expect(requested.some((u) => u.startsWith(`${origin}/api/v1/projects`))).toBe(true);
      expect(cspErrors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
