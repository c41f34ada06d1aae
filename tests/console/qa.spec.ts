import { mkdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { expect, request as playwrightRequest, test, type APIRequestContext, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { SHOP_EMAIL, SHOP_PASSWORD, startShop, type Shop } from '../fixtures/shop/server.js';

// Issue 31, what a QA engineer expects of the console: a sign-in that
// survives reloads, new tabs and pasted links and ends everywhere at sign-out;
// runs that say passed or failed first; a case run from its own page and a
// re-run of the failed cases; secrets that no response, trace, export or log
// shows; an analysis in plain words; a dashboard. Against a real stack
// (tests/e2e/console.test.ts starts one, or your own `make run`).
const gateway = process.env.ASSAY_GATEWAY_URL!;
const email = process.env.ASSAY_ADMIN_EMAIL!;
const password = process.env.ASSAY_ADMIN_PASSWORD!;
const shots = process.env.CONSOLE_SCREENSHOTS;
/** The secret the runs type and search for: tests/e2e/console.test.ts also looks for it in every service's log. */
const TOKEN = process.env.CONSOLE_SECRET_TOKEN ?? `tok-${Math.random().toString(36).slice(2)}-vault`;

test.describe.configure({ mode: 'serial' });

/**
 * TodoMVC's vanilla JS app as the `todomvc` package of the npm registry ships
 * it (a third-party app, not a fixture of ours), served as static files.
 */
async function serveTodoMvc(): Promise<{ url: string; server: Server }> {
  const root = path.join(path.dirname(createRequire(import.meta.url).resolve('todomvc/package.json')), 'examples', 'vanillajs');
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.json': 'application/json' };
  const server = createServer(async (req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '') || 'index.html';
    const file = path.join(root, rel);
    if (!file.startsWith(root + path.sep)) return void res.writeHead(404).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://localhost:${(server.address() as { port: number }).port}`, server };
}

let shop: Shop;
let context: BrowserContext;
let page: Page;
/** The test's own API client: a cookie jar apart from the console's, signed in after the sign-out tests (which end every sign-in of the user). */
let apiClient: APIRequestContext | undefined;
let projectId: string;
const ids: Record<string, string> = {};
/** The project's name: "QA shop", or a unique one when your own `make run` has one from an earlier run. */
let PROJECT = 'QA shop';

async function shot(p: Page, name: string, fullPage = false): Promise<void> {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  await p.screenshot({ path: path.join(shots, `${name}.png`), fullPage });
}

async function signIn(p: Page): Promise<void> {
  await expect(p.getByRole('heading', { name: 'Sign in to Assay' })).toBeVisible();
  await p.getByLabel('E-mail').fill(email);
  await p.getByLabel('Password').fill(password);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await expect(p.getByRole('button', { name: 'Sign out', exact: true })).toBeVisible();
}

async function client(): Promise<APIRequestContext> {
  if (apiClient) return apiClient;
  const anonymous = await playwrightRequest.newContext({ baseURL: gateway });
  const token = ((await (await anonymous.post('/api/auth/login', { data: { email, password } })).json()) as { token: string }).token;
  await anonymous.dispose();
  apiClient = await playwrightRequest.newContext({ baseURL: gateway, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
  return apiClient;
}

async function api<T = any>(method: string, url: string, data?: unknown): Promise<T> {
  const res = await (await client()).fetch(url, { method, ...(data !== undefined ? { data } : {}) });
  const text = await res.text();
  expect(res.status(), `${method} ${url}: ${text}`).toBeLessThan(300);
  return (text ? JSON.parse(text) : undefined) as T;
}

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  expect(gateway, 'ASSAY_GATEWAY_URL').toBeTruthy();
  shop = await startShop();
  context = await browser.newContext();
  page = await context.newPage();
});

test.afterAll(async () => {
  await context?.close();
  await apiClient?.dispose();
  await shop?.close();
});

test('keeps the sign-in across a reload, a new tab and a pasted link, and signing out ends it in every tab and browser', async ({ browser }) => {
  await page.goto('/');
  // A wrong password says so in words, not as an API key error.
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('E-mail or password is incorrect');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Projects', level: 1 })).toBeVisible();

  // The refresh token: an HttpOnly, Secure, SameSite=Strict cookie of the refresh route, which no script reads.
  const cookies = await context.cookies();
  expect(cookies.map((c) => ({ name: c.name, path: c.path, httpOnly: c.httpOnly, secure: c.secure, sameSite: c.sameSite }))).toEqual([
    { name: '__Secure-assay_refresh', path: '/api/auth/refresh', httpOnly: true, secure: true, sameSite: 'Strict' },
  ]);
  expect(await page.evaluate<string>('document.cookie')).toBe('');
  expect(await page.evaluate<string>('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })')).toBe('{}{}');

  await page.reload();
  await expect(page.getByRole('heading', { name: 'Projects', level: 1 })).toBeVisible();
  // A pasted link lands where it points.
  await page.goto('/settings/account');
  await expect(page.getByRole('heading', { name: 'Account', level: 1 })).toBeVisible();
  const tab = await context.newPage();
  let tabAuthorization: string | undefined;
  tab.on('request', async (r) => {
    const auth = r.url().includes('/api/v1/') ? (await r.allHeaders()).authorization : undefined;
    if (auth) tabAuthorization = auth;
  });
  await tab.goto('/executions');
  await expect(tab.getByRole('heading', { name: 'Executions', level: 1 })).toBeVisible();
  await expect.poll(() => tabAuthorization).toMatch(/^Bearer /);

  // Another browser signed in as the same user.
  const laptop = await browser.newContext();
  const other = await laptop.newPage();
  await other.goto('/dashboard');
  await signIn(other);

  // Sign out in the first tab: the second tab shows the sign-in at once, and its access token is refused by the API.
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to Assay' })).toBeVisible();
  await expect(tab.getByRole('heading', { name: 'Sign in to Assay' })).toBeVisible();
  const bare = await playwrightRequest.newContext({ baseURL: gateway });
  await expect.poll(async () => (await bare.get('/api/auth/me', { headers: { authorization: tabAuthorization! } })).status()).toBe(401);
  await tab.reload();
  await expect(tab.getByRole('heading', { name: 'Sign in to Assay' })).toBeVisible();
  await tab.close();
  // The other browser's sign-in is its own: still there after a reload...
  await other.reload();
  await expect(other.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();

  // ...until "Sign out everywhere" from this browser.
  await signIn(page);
  await page.goto('/settings/account');
  await page.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to Assay' })).toBeVisible();
  await other.reload();
  await expect(other.getByRole('heading', { name: 'Sign in to Assay' })).toBeVisible();
  await laptop.close();
  await bare.dispose();

  await signIn(page);
});

test('shows a failed run with a red "failed" badge, finds it by outcome, re-runs its failed case, and runs a case from its own page', async () => {
  const existing = await api<{ data: Array<{ name: string }> }>('GET', '/api/v1/projects?limit=500');
  if (existing.data.some((p) => p.name === PROJECT)) PROJECT = `QA shop ${Date.now().toString(36)}`;
  const project = await api<{ id: string }>('POST', '/api/v1/projects', { name: PROJECT, base_url: shop.url });
  projectId = project.id;
  const passing = await api<{ id: string }>('POST', '/api/v1/test-cases', { project_id: projectId, name: 'Sees the product', steps: [{ action: 'navigate', value: '/products/1' }, { action: 'assert_visible', selector: '#add-to-cart' }] });
  const failing = await api<{ id: string }>('POST', '/api/v1/test-cases', {
    project_id: projectId,
    name: 'Cart shows 99',
    steps: [{ action: 'navigate', value: '/products/1' }, { action: 'assert_text', selector: '#cart-count', value: '99' }],
  });
  ids.passing = passing.id;
  const plan = await api<{ id: string }>('POST', '/api/v1/test-plans', { project_id: projectId, name: 'Mixed', test_case_ids: [passing.id, failing.id] });

  await page.goto(`/plans/${plan.id}`);
  await page.getByRole('button', { name: 'Run plan' }).click();
  await expect(page.getByRole('heading', { name: 'Run of Mixed', level: 1 })).toBeVisible();
  const summary = page.getByTestId('execution-summary');
  await expect(summary).toContainText('1 passed · 1 failed', { timeout: 120_000 });
  const badge = summary.getByTestId('outcome');
  await expect(badge).toHaveText('failed');
  await expect(badge).toHaveCSS('background-color', 'rgb(207, 34, 46)');
  await expect(summary.locator('.live-dot')).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Mixed' })).toBeVisible();
  await expect(page.getByRole('link', { name: PROJECT })).toBeVisible();
  ids.failedRun = new URL(page.url()).pathname.split('/').pop()!;

  // The analysis leads with what changed and what to do; the evidence is one click away.
  await expect(page.getByTestId('analysis-summary')).toContainText('Step 2 expected "99" but the page showed "0".', { timeout: 120_000 });
  await expect(page.getByTestId('analysis-next-step')).toContainText('update the expected value');
  await expect(page.getByTestId('analysis-category')).toBeHidden();
  await page.getByText('Evidence', { exact: true }).click();
  await expect(page.getByTestId('analysis-category')).toHaveText('assertion mismatch');
  await shot(page, 'failure-view', true);

  // The list: "failed" finds it, "passed" does not.
  await page.getByRole('link', { name: 'Executions' }).click();
  await page.getByLabel('Project').selectOption({ label: PROJECT });
  await page.getByLabel('Outcome').selectOption('failed');
  const rows = page.getByRole('table', { name: 'Executions' }).getByRole('row');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(1)).toContainText('Mixed');
  await expect(rows.nth(1).getByTestId('outcome')).toHaveText('failed');
  await page.getByLabel('Outcome').selectOption('passed');
  await expect(page.getByText('No passed runs in this project.')).toBeVisible();

  // Re-run just the failed case, live.
  await page.goto(`/executions/${ids.failedRun}`);
  await page.getByRole('button', { name: 'Re-run failed cases' }).click();
  await expect(page).not.toHaveURL(new RegExp(ids.failedRun!));
  await expect(page.getByTestId('execution-summary')).toContainText('0 passed · 1 failed · 1 tests', { timeout: 120_000 });
  await expect(page.getByRole('link', { name: 'an earlier run' })).toHaveAttribute('href', `/executions/${ids.failedRun}`);

  // A case runs from its own page, and the live view says it passed.
  await page.goto(`/cases/${passing.id}`);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Run of Sees the product', level: 1 })).toBeVisible();
  const caseSummary = page.getByTestId('execution-summary');
  await expect(caseSummary.getByTestId('outcome')).toHaveText('passed', { timeout: 120_000 });
  await expect(caseSummary.getByTestId('outcome')).toHaveCSS('background-color', 'rgb(26, 127, 55)');
  await expect(caseSummary).toContainText('1 passed · 0 failed');
  await expect(page.locator('.page > p.muted').getByRole('link', { name: 'Sees the product' })).toHaveAttribute('href', `/cases/${passing.id}`);
});

test('keeps a project secret out of every API response, the trace and the export, while the run signs in with it', async () => {
  // The secrets, set in the console: the value field is a password field, and the list never shows the value again.
  await page.goto(`/projects/${projectId}`);
  const form = page.getByRole('form', { name: 'Set a variable' });
  for (const [name, value] of [
    ['password', SHOP_PASSWORD],
    ['token', TOKEN],
  ] as const) {
    await form.getByLabel('Variable name').fill(name);
    await expect(form.getByLabel('Variable value')).toHaveAttribute('type', 'password');
    await form.getByLabel('Variable value').fill(value);
    await form.getByRole('button', { name: 'Save variable' }).click();
    await expect(page.getByText(`Secret ${name} saved: use it as {{secret.${name}}}.`)).toBeVisible();
  }
  await form.getByLabel('Variable name').fill('email');
  await form.getByLabel('Secret (encrypted, never shown, masked in results)').uncheck();
  await form.getByLabel('Variable value').fill(SHOP_EMAIL);
  await form.getByRole('button', { name: 'Save variable' }).click();
  const variables = page.getByRole('table', { name: 'Variables' });
  await expect(variables).toContainText('{{secret.token}}');
  await expect(variables).toContainText(SHOP_EMAIL);
  await expect(variables).not.toContainText(TOKEN);

  // A password typed into a step in the editor: a password field, and "Save as secret" moves it out of the case.
  const typed = await api<{ id: string }>('POST', '/api/v1/test-cases', {
    project_id: projectId,
    name: 'Typed password',
    steps: [{ action: 'navigate', value: '/login' }, { action: 'fill', selector: '#password', value: 'typed-in-clear-2026' }],
  });
  await page.goto(`/cases/${typed.id}/edit`);
  await expect(page.getByLabel('Step 2 value')).toHaveAttribute('type', 'password');
  page.once('dialog', (d) => void d.accept('typed'));
  await page.getByRole('button', { name: 'Save as secret (step 2)' }).click();
  await expect(page.getByLabel('Step 2 value')).toHaveValue('{{secret.typed}}');
  await page.getByRole('button', { name: 'Save test case' }).click();
  await expect(page.locator('.secret-ref')).toContainText('{{secret.typed}}');
  expect(JSON.stringify(await api('GET', `/api/v1/test-cases/${typed.id}`))).not.toContain('typed-in-clear-2026');
  expect((await api<{ data: Array<{ name: string; secret: boolean; value: string | null }> }>('GET', `/api/v1/projects/${projectId}/variables`)).data).toContainEqual(expect.objectContaining({ name: 'typed', secret: true, value: null }));

  const leaks: string[] = [];
  const look = (where: string, text: string) => {
    for (const v of [SHOP_PASSWORD, TOKEN, encodeURIComponent(TOKEN)]) if (text.includes(v)) leaks.push(`${where} shows ${v}`);
  };
  // Every API answer the console reads from here on.
  page.on('response', async (r) => {
    if (!r.url().includes('/api/')) return;
    look(`${r.request().method()} ${new URL(r.url()).pathname}`, await r.text().catch(() => ''));
  });

  const secretCase = await api<{ id: string }>('POST', '/api/v1/test-cases', {
    project_id: projectId,
    name: 'Signs in with the vault',
    steps: [
      { action: 'navigate', value: '/login' },
      { action: 'fill', selector: '#email', value: '{{email}}' },
      { action: 'fill', selector: '#password', value: '{{secret.password}}' },
      { action: 'click', selector: '#submit' },
      { action: 'assert_text', selector: '#welcome', value: `Welcome, ${SHOP_EMAIL}` },
      // The shop echoes a search in the address and the input's value attribute.
      { action: 'navigate', value: '/products' },
      { action: 'fill', selector: '#q', value: '{{secret.token}}' },
      { action: 'click', selector: '#search-button' },
      { action: 'assert_value', selector: '#q', value: 'something else' },
    ],
  });
  const plan = await api<{ id: string }>('POST', '/api/v1/test-plans', { project_id: projectId, name: 'Vault', test_case_ids: [secretCase.id] });
  await page.goto(`/cases/${secretCase.id}`);
  await expect(page.locator('.secret-ref').first()).toContainText('{{secret.password}}');
  await page.goto(`/plans/${plan.id}`);
  await page.getByLabel('Trace').selectOption('on');
  await page.getByRole('button', { name: 'Run plan' }).click();
  const summary = page.getByTestId('execution-summary');
  await expect(summary.getByTestId('outcome')).toHaveText('failed', { timeout: 120_000 });
  const runId = new URL(page.url()).pathname.split('/').pop()!;
  // The sign-in passed with the secret; the failing step's error shows the mask, not the token.
  const failedStep = page.locator('li.step-failed');
  await expect(failedStep).toContainText('Expected value "something else" but found "••••••"');
  await expect(page.locator('li.step-passed')).toHaveCount(8);
  await expect(page.getByTestId('analysis-summary')).toBeVisible({ timeout: 120_000 });

  // Every resource the run touched, read through the API.
  const execution = await api('GET', `/api/v1/executions/${runId}`);
  const trace = execution.results.test_results[0].trace as string;
  for (const url of [
    `/api/v1/projects/${projectId}`,
    `/api/v1/projects/${projectId}/variables`,
    `/api/v1/test-cases/${secretCase.id}`,
    `/api/v1/executions/${runId}`,
    `/api/v1/executions/${runId}/results`,
    `/api/v1/executions/${runId}/status`,
    `/api/v1/executions/${runId}/failure-analysis`,
    `/api/v1/issues?project_id=${projectId}`,
    `/api/v1/reports/dashboard?project_id=${projectId}`,
    `/api/v1/reports/dashboard?project_id=${projectId}&format=csv&table=open_issues`,
    `/api/v1/test-cases/${secretCase.id}/export?format=playwright`,
    `/api/v1/test-cases/${secretCase.id}/export?format=json`,
    `/api/v1/test-plans/${plan.id}/export?format=playwright`,
    `/api/v1/executions/${runId}/stream`,
  ]) {
    const res = await (await client()).get(url);
    expect(res.status(), url).toBe(200);
    look(url, await res.text());
  }
  const exported = await (await (await client()).get(`/api/v1/test-cases/${secretCase.id}/export?format=playwright`)).text();
  expect(exported).toContain('ASSAY_SECRET_');
  // The trace: every entry of the zip, unpacked.
  const zip = await (await (await client()).get(new URL(trace).pathname)).body();
  const entries = unzipSync(new Uint8Array(zip));
  expect(Object.keys(entries)).toContain('trace.trace');
  for (const [name, data] of Object.entries(entries)) look(`trace ${name}`, Buffer.from(data).toString('latin1'));
  expect(Buffer.from(entries['trace.trace']!).toString('utf8')).toContain('••••••');
  expect(leaks).toEqual([]);
});

test('masks a secret the same way on TodoMVC (a third-party app from the npm registry), run from the case’s own page', async () => {
  const todomvc = await serveTodoMvc();
  try {
    const project = await api<{ id: string }>('POST', '/api/v1/projects', { name: 'TodoMVC (vanilla JS)', base_url: todomvc.url });
    await api('PUT', `/api/v1/projects/${project.id}/variables/token`, { value: TOKEN, secret: true });
    const todo = await api<{ id: string }>('POST', '/api/v1/test-cases', {
      project_id: project.id,
      name: 'Adds the vault token as a todo',
      steps: [
        { action: 'navigate', value: '/' },
        { action: 'fill', selector: '#new-todo', value: '{{secret.token}}' },
        { action: 'press', selector: '#new-todo', value: 'Enter' },
        // The app shows the todo: the secret reached it.
        { action: 'assert_text', selector: '#todo-list li label', value: '{{secret.token}}' },
        { action: 'assert_count', selector: '#todo-list li', value: '2' },
      ],
    });
    await page.goto(`/cases/${todo.id}`);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const summary = page.getByTestId('execution-summary');
    await expect(summary.getByTestId('outcome')).toHaveText('failed', { timeout: 120_000 });
    await expect(page.locator('li.step-passed')).toHaveCount(4);
    await expect(page.locator('li.step-failed')).toContainText('Expected 2 elements matching "#todo-list li", found 1');
    const runId = new URL(page.url()).pathname.split('/').pop()!;
    await expect(page.getByTestId('analysis-summary')).toBeVisible({ timeout: 120_000 });

    const leaks: string[] = [];
    const run = await api('GET', `/api/v1/executions/${runId}`);
    for (const url of [`/api/v1/executions/${runId}`, `/api/v1/executions/${runId}/failure-analysis`, `/api/v1/executions/${runId}/stream`, `/api/v1/issues?project_id=${project.id}`]) {
      const text = await (await (await client()).get(url)).text();
      if (text.includes(TOKEN)) leaks.push(url);
    }
    const zip = await (await (await client()).get(new URL(run.results.test_results[0].trace).pathname)).body();
    const entries = unzipSync(new Uint8Array(zip));
    for (const [name, data] of Object.entries(entries)) if (Buffer.from(data).toString('latin1').includes(TOKEN)) leaks.push(`trace ${name}`);
    // The app's DOM held the secret (the todo's label): in the trace's snapshots it is masked.
    expect(Buffer.from(entries['trace.trace']!).toString('utf8')).toContain('••••••');
    expect(leaks).toEqual([]);
  } finally {
    await new Promise((r) => todomvc.server.close(r));
  }
});

test('shows the project dashboard with its charts, last runs and open issues, and exports it as CSV', async () => {
  await page.getByRole('link', { name: 'Dashboard', exact: true }).first().click();
  await page.getByLabel('Project').selectOption({ label: PROJECT });
  await expect(page.getByTestId('run-pass-rate')).toHaveText(/\d+(\.\d)? %/);
  const chart = page.getByTestId('pass-rate-chart');
  await expect(chart).toBeVisible();
  await expect(chart).toHaveAttribute('aria-label', /^Pass rate by day: \d{4}-\d{2}-\d{2} \d+(\.\d)? %/);
  const runs = page.getByRole('table', { name: 'Last runs' }).getByRole('row');
  await expect(runs).toHaveCount(4); // the header, Mixed, its re-run and Vault (case runs are test runs, not plan runs)
  await expect(runs.nth(1)).toContainText('Vault');
  await expect(runs.nth(1).getByTestId('outcome')).toHaveText('failed');
  await expect(page.getByRole('list', { name: 'Slowest cases' }).getByRole('listitem')).toHaveCount(3);
  await expect(page.getByRole('list', { name: 'Open issues' }).getByRole('listitem').first()).toBeVisible();
  await shot(page, 'dashboard', true);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Last runs (CSV)' }).click()]);
  const csv = readFileSync((await download.path())!, 'utf8');
  expect(csv.split('\r\n')[0]).toBe('execution_id,name,environment,outcome,passed,failed,total,completed_at,duration_ms');
  expect(csv.trim().split('\r\n')).toHaveLength(4);
});

test('says when a key was revoked and when none is left, and shows invitees as pending', async () => {
  await page.getByRole('link', { name: 'Keys' }).click();
  const section = page.getByRole('region', { name: 'API keys (sk_live_)' });
  await section.getByLabel('Key name').fill('QA temporary');
  await section.getByRole('button', { name: 'Create key' }).click();
  await section.getByRole('button', { name: 'Done' }).click();
  page.once('dialog', (d) => void d.accept());
  await section.getByRole('button', { name: 'Revoke QA temporary' }).click();
  await expect(section.getByRole('status').filter({ hasText: 'Revoked' })).toHaveText('Revoked “QA temporary”: calls with it are refused (401) within seconds.');
  await expect(section.getByText('No active API keys: create one above.')).toBeVisible();

  await page.getByRole('link', { name: 'Organization' }).click();
  const invitee = `pending-${Date.now()}@example.test`;
  await page.getByLabel('E-mail').fill(invitee);
  await page.getByRole('button', { name: 'Add member' }).click();
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('row', { name: new RegExp(invitee) })).toContainText('invited, pending');
  await expect(page.getByRole('row', { name: new RegExp(email) })).not.toContainText('pending');
});
