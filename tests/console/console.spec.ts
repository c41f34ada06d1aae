import { createServer, type Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { startRedesignApp, type RedesignApp } from '../fixtures/redesign/server.js';
import { startShop, type Shop } from '../fixtures/shop/server.js';

// The web console against a real Assay (started by tests/e2e/console.test.ts
// with the launcher, or your own `make run`): one signed-in tab walks through
// what a newcomer does. The redesign fixture "breaks" between two runs (its
// version 2 renames the sign-in button), the shop fixture is crawled.
const gateway = process.env.ASSAY_GATEWAY_URL!;
const email = process.env.ASSAY_ADMIN_EMAIL!;
const password = process.env.ASSAY_ADMIN_PASSWORD!;
/** Where the README's screenshots go (docs/screenshots), only when asked: a test run leaves the tree alone. */
const shots = process.env.CONSOLE_SCREENSHOTS;
/** A second organization the admin belongs to (tests/e2e/console.test.ts provisions it), for the switch. */
const secondOrganization = process.env.CONSOLE_SECOND_ORGANIZATION;

test.describe.configure({ mode: 'serial' });

let page: Page;
let app: RedesignApp;
let shop: Shop;
let receiver: Server;
let receiverUrl: string;
const received: string[] = [];
const cspViolations: string[] = [];

/** A session token of the admin for the test's own API reads (the console keeps its token to itself). */
let token: string | undefined;
async function apiToken(): Promise<string> {
  if (token) return token;
  const res = await page.request.post('/api/auth/login', { data: { email, password } });
  expect(res.status()).toBe(200);
  token = ((await res.json()) as { token: string }).token;
  return token;
}

async function shot(name: string): Promise<void> {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: false });
}

test.beforeAll(async ({ browser }) => {
  expect(gateway, 'ASSAY_GATEWAY_URL').toBeTruthy();
  app = await startRedesignApp();
  shop = await startShop();
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://localhost:${(receiver.address() as { port: number }).port}/hook`;
  const context = await browser.newContext();
  page = await context.newPage();
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) cspViolations.push(m.text());
  });
});

test.afterAll(async () => {
  await page?.context().close();
  await app?.close();
  await shop?.close();
  await new Promise((r) => receiver?.close(r));
});

test('serves the console with a strict Content-Security-Policy and signs in', async () => {
  const res = await page.goto('/');
  const csp = res!.headers()['content-security-policy'] ?? '';
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('unsafe-inline');
  // A deep link is the app too (the fallback), while an unknown API path stays a JSON 404.
  expect((await page.request.get('/projects/anything', { headers: { accept: 'text/html' } })).headers()['content-type']).toContain('text/html');
  expect((await page.request.get('/api/v1/nope')).status()).toBe(404);

  await expect(page.getByRole('heading', { name: 'Sign in to Assay' })).toBeVisible();
  await shot('sign-in');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('E-mail or password is incorrect');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Projects', level: 1 })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
});

test('creates a project and a test case, showing a validation error next to its field', async () => {
  await page.getByRole('button', { name: 'New project' }).click();
  await page.getByLabel('Name').fill('Acme');
  await page.getByLabel('Base URL').fill(app.url);
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByRole('heading', { name: 'Acme', level: 1 })).toBeVisible();

  await page.getByRole('link', { name: 'New test case' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Sign in');
  await page.getByLabel('Step 1 value').fill('/login');
  const add = async (action: string, selector: string, value?: string) => {
    await page.getByRole('button', { name: 'Add step' }).click();
    const n = await page.locator('.step-row').count();
    await page.getByLabel(`Step ${n} action`).selectOption(action);
    await page.getByLabel(`Step ${n} selector`).fill(selector);
    if (value !== undefined) await page.getByLabel(`Step ${n} value`).fill(value);
  };
  await add('fill', '#email', 'ada@example.com');
  await add('click', '');
  await add('assert_text', '#welcome', 'Welcome back');
  await page.getByRole('button', { name: 'Save test case' }).click();
  // The server's validation, next to the field it names.
  const selector3 = page.getByLabel('Step 3 selector');
  await expect(selector3).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('#step-2-selector-error')).toContainText(/must not be empty|is required/);
  await shot('test-case-editor');
  await selector3.fill('#login-button');
  await page.getByRole('button', { name: 'Save test case' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in', level: 1 })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Steps' }).getByRole('listitem')).toHaveCount(4);

  // Archive and restore.
  await page.getByRole('button', { name: 'Archive' }).click();
  await expect(page.getByText('archived', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Restore' }).click();
  await expect(page.getByText('active', { exact: true })).toBeVisible();
});

test('runs a plan and watches it pass live, then opens its trace in the bundled trace viewer', async () => {
  await page.getByRole('link', { name: 'Back to the project' }).click();
  await expect(page.getByRole('link', { name: 'Sign in' })).toBeVisible();
  await page.getByRole('checkbox', { name: 'Select Sign in' }).check();
  await page.getByPlaceholder('Plan name').fill('Smoke');
  await page.getByRole('button', { name: 'Create plan' }).click();
  await expect(page.getByRole('heading', { name: 'Smoke', level: 1 })).toBeVisible();
  await page.getByLabel('Trace').selectOption('on');
  await page.getByRole('button', { name: 'Run plan' }).click();

  const summary = page.getByTestId('execution-summary');
  // The outcome first: "passed", green, once every case passed.
  await expect(summary.getByTestId('outcome')).toHaveText('passed', { timeout: 120_000 });
  await expect(summary).toContainText('1 passed · 0 failed');
  const steps = page.getByRole('list', { name: 'Steps of Sign in' }).getByRole('listitem');
  await expect(steps).toHaveCount(4);
  await expect(steps.filter({ hasText: 'passed:' })).toHaveCount(4);
  await shot('execution-passed');

  const [viewer] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Open trace of Sign in' }).click()]);
  await viewer.waitForLoadState();
  expect(viewer.url()).toContain('/trace/');
  // The viewer lists the run's actions once it has read the trace the console handed it.
  // Its actions are the case's steps (one trace group each); Playwright's own calls are inside them.
  await expect(viewer.getByRole('treeitem', { name: /^Step 1 of 4 · navigate/ })).toBeVisible({ timeout: 60_000 });
  await viewer.getByRole('treeitem', { name: /^Step 3 of 4 · click #login-button/ }).click();
  await viewer.keyboard.press('ArrowRight');
  await viewer.getByRole('treeitem', { name: /Click.*#login-button/ }).click();
  // And it renders the DOM snapshot (served by its service worker under this policy).
  await expect(viewer.frameLocator('iframe').first().getByRole('heading', { name: 'Sign in' })).toBeVisible();
  if (shots) await viewer.screenshot({ path: path.join(shots, 'trace-viewer.png') });
  await viewer.close();
});

test('shows a failure with its step, error and screenshot, the analysis, and applies the fix', async () => {
  app.setVersion(2);
  await page.getByRole('link', { name: 'Smoke' }).click(); // the plan, by its name
  await page.getByRole('button', { name: 'Run plan' }).click();
  const summary = page.getByTestId('execution-summary');
  await expect(summary).toContainText('0 passed · 1 failed', { timeout: 120_000 });
  const failed = page.locator('li.step-failed');
  await expect(failed).toHaveCount(1);
  await expect(failed).toContainText('#login-button');
  await expect(failed.locator('.error-note')).not.toBeEmpty();
  await expect(failed.getByRole('img', { name: /Screenshot at step 3/ })).toBeVisible();

  // What changed and what to do, in plain words; the evidence one click away.
  await expect(page.getByTestId('analysis-summary')).toContainText('on /login changed, so step 3 no longer finds it.', { timeout: 120_000 });
  await expect(page.getByTestId('analysis-next-step')).toContainText('Apply the fix');
  await page.getByText('Evidence', { exact: true }).click();
  await expect(page.getByTestId('analysis-category')).toHaveText('selector changed');
  await expect(page.getByTestId('suggested-selector')).toHaveText('[data-testid="sign-in"]');
  await page.getByRole('heading', { name: 'Failure analysis' }).evaluate((h) => h.scrollIntoView({ block: 'start' }));
  await shot('failure-analysis');
  await page.getByRole('button', { name: 'Apply fix' }).click();
  const applied = page.locator('.applied');
  await expect(applied).toContainText('Fix applied');
  await expect(applied.getByRole('list', { name: 'Updated steps' })).toContainText('[data-testid="sign-in"]');

  // "Re-run now": the fixed case passes against the redesigned app, live.
  await page.getByRole('button', { name: 'Re-run now' }).click();
  await expect(page.getByTestId('execution-summary').getByTestId('outcome')).toHaveText('passed', { timeout: 120_000 });
  await expect(page.getByTestId('execution-summary')).toContainText('1 passed · 0 failed');

  await page.getByRole('link', { name: 'Issues' }).click();
  await page.getByLabel('Status').selectOption('');
  await expect(page.getByRole('table')).toContainText('Sign in');
});

test('opens an issue’s page from the list: its occurrence, category, evidence and applied fix; triages it there', async () => {
  // On the issues list of the previous test, every status shown.
  await page.getByRole('table').getByRole('link', { name: /^Sign in: / }).first().click();
  await expect(page.getByRole('heading', { name: 'Issue: Sign in', level: 1 })).toBeVisible();
  const issueId = new URL(page.url()).pathname.split('/').pop()!;
  await expect(page.getByTestId('issue-category')).toHaveText('selector changed');
  await expect(page.getByTestId('issue-seen')).toContainText('1×');
  const occurrences = page.getByRole('table', { name: 'Occurrences' }).getByRole('row');
  await expect(occurrences).toHaveCount(2); // the header and the failed run
  await expect(occurrences.nth(1)).toContainText('#login-button');
  await page.getByText('Evidence', { exact: true }).click();
  await expect(page.getByTestId('suggested-selector')).toHaveText('[data-testid="sign-in"]');
  await expect(page.getByText('This fix was applied')).toBeVisible();
  await expect(page.getByRole('table', { name: /What changed in the element/ })).toContainText('login-button');
  await expect(page.getByRole('img', { name: 'Page at the failure of Sign in' })).toBeVisible();

  await page.getByLabel('Triage state').selectOption('acknowledged');
  await expect
    .poll(async () => (await (await page.request.get(`/api/v1/issues/${issueId}`, { headers: { authorization: `Bearer ${await apiToken()}` } })).json()).status)
    .toBe('acknowledged');
  // A reload keeps the sign-in (its refresh cookie) and the deep link.
  await page.reload();
  await expect(page.getByLabel('Triage state')).toHaveValue('acknowledged');
  await occurrences.nth(1).getByRole('link').click();
  await expect(page.getByTestId('execution-summary')).toContainText('0 passed · 1 failed');
});

test('crawls the fixture shop live and generates test cases from a flow', async () => {
  await page.getByRole('link', { name: 'Projects' }).click();
  await page.getByRole('button', { name: 'New project' }).click();
  await page.getByLabel('Name').fill('Shop');
  await page.getByLabel('Base URL').fill(shop.url);
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByRole('heading', { name: 'Shop', level: 1 })).toBeVisible();
  await page.getByRole('link', { name: 'Discover', exact: true }).click();
  await expect(page.getByLabel('Target URL')).toHaveValue(shop.url);
  await page.getByLabel('Max pages').fill('15');
  await page.getByRole('button', { name: 'Start crawl' }).click();
  const summary = page.getByTestId('discovery-summary');
  await expect(summary).toContainText('completed', { timeout: 180_000 });
  await expect(page.getByRole('tree', { name: 'Pages by path' }).getByRole('treeitem').nth(2)).toBeVisible();
  // One labelled checkbox per flow, beside its name; a preview of its pages and steps.
  const flows = page.getByRole('list', { name: 'Detected flows' }).getByRole('listitem').filter({ has: page.locator('.flow-head') });
  const boxes = page.getByRole('list', { name: 'Detected flows' }).getByRole('checkbox');
  await expect(boxes).toHaveCount(await flows.count());
  const signIn = page.getByRole('checkbox', { name: /^Sign in on \/login/ });
  await signIn.check();
  await expect(page.locator('.in-flow').first()).toBeVisible();
  const box = await signIn.boundingBox();
  const label = await page.locator(`label[for="${await signIn.getAttribute('id')}"]`).boundingBox();
  expect(label!.x - (box!.x + box!.width)).toBeLessThan(24);
  const item = flows.filter({ has: signIn });
  await item.getByText(/^Preview:/).click();
  await expect(item.getByRole('listitem').first()).toHaveText('Open /login');
  await shot('discovery');
  await page.getByRole('button', { name: /Generate test cases from 1 selected flow/ }).click();
  const made = page.getByRole('region', { name: 'Test cases made from this session' });
  await expect(made.getByRole('link')).toHaveCount(1);

  // The project's sessions come from the API (GET /api/v1/discovery), not from this tab's memory.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Discovery' }).click();
  await page.getByLabel('Project', { exact: true }).selectOption({ label: 'Shop' });
  const sessions = page.getByRole('table', { name: 'Discovery sessions' }).getByRole('row');
  await expect(sessions).toHaveCount(2);
  await expect(sessions.nth(1)).toContainText(shop.url);
  await expect(sessions.nth(1)).toContainText('completed');
  // The cases made from it are still listed on the session after leaving it.
  await sessions.nth(1).getByRole('link').click();
  await expect(page.getByRole('region', { name: 'Test cases made from this session' }).getByRole('link')).toHaveText([/^Sign-in form on \/login/]);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Discovery' }).click();
  await page.getByLabel('Project', { exact: true }).selectOption({ label: 'Acme' });
  await expect(page.getByText('No crawl of this project yet.')).toBeVisible();
});

test('says why a crawl found little', async () => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Discovery' }).click();
  await page.getByLabel('Project', { exact: true }).selectOption({ label: 'Shop' });
  // A target that answers no page at all: one URL crawled, no links, no flows.
  await page.getByLabel('Target URL').fill(`${shop.url}/favicon.ico`);
  // Interactive, with writes held (allow writes is offered only with it, and off by default).
  await expect(page.getByRole('checkbox', { name: /^Allow writes/ })).toHaveCount(0);
  await page.getByRole('checkbox', { name: /^Exercise each page/ }).check();
  await expect(page.getByRole('checkbox', { name: /^Allow writes/ })).not.toBeChecked();
  const started = page.waitForRequest((r) => r.url().endsWith('/api/v1/discovery/start') && r.method() === 'POST');
  await page.getByRole('button', { name: 'Start crawl' }).click();
  expect((await started).postDataJSON()).toMatchObject({ interactive: true, allow_writes: false });
  await expect(page.getByTestId('discovery-summary')).toContainText('completed', { timeout: 60_000 });
  const note = page.getByRole('note').filter({ has: page.getByRole('heading', { name: 'Why the results may be incomplete' }) });
  await expect(note).toContainText('Only the start page was crawled');
  await expect(note).toContainText('No user flow was detected');
});

test('builds a plan: adds a generated case to it and changes the run order', async () => {
  await page.getByRole('link', { name: 'Projects' }).click();
  await page.getByRole('link', { name: 'Shop', exact: true }).click();
  await page.getByRole('link', { name: 'New test case' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Home page');
  await page.getByLabel('Step 1 value').fill('/');
  await page.getByRole('button', { name: 'Save test case' }).click();
  await expect(page.getByRole('heading', { name: 'Home page', level: 1 })).toBeVisible();
  await page.getByRole('link', { name: 'Back to the project' }).click();
  await page.getByRole('checkbox', { name: 'Select Home page' }).check();
  await page.getByPlaceholder('Plan name').fill('Generated');
  await page.getByRole('button', { name: 'Create plan' }).click();
  await expect(page.getByRole('heading', { name: 'Generated', level: 1 })).toBeVisible();
  const members = page.getByRole('list', { name: 'Test cases of the plan' }).getByRole('listitem');
  await expect(members).toHaveCount(1);
  const first = (await members.first().getByRole('link').textContent())!;

  const choice = page.getByLabel('Test case to add');
  const second = (await choice.locator('option').nth(1).textContent())!;
  await choice.selectOption({ label: second });
  await page.getByRole('button', { name: 'Add to plan' }).click();
  await expect(members).toHaveCount(2);
  await expect(members.nth(1)).toContainText(second);

  await page.getByRole('button', { name: `Move ${second} up` }).click();
  await expect(members.nth(0)).toContainText(second);
  await expect(members.nth(1)).toContainText(first);
  // The order is the plan's own: read again from the server, it stays.
  await page.getByRole('link', { name: 'Shop', exact: true }).click();
  await page.getByRole('link', { name: 'Generated', exact: true }).click();
  await expect(members).toHaveCount(2);
  await expect(members.nth(0)).toContainText(second);
});

test('schedules the plan: a bad cron is refused next to its field, the next run times read as the API gives them, pause and delete', async () => {
  // On the "Generated" plan of the previous test.
  await expect(page.getByRole('heading', { name: 'Schedules', level: 2 })).toBeVisible();
  await expect(page.getByText('No schedule: this plan runs only when started.')).toBeVisible();
  const cron = page.getByLabel('Cron');
  await cron.fill('0 25 * * *');
  await page.getByLabel('Time zone').fill('Europe/Paris');
  await page.getByRole('button', { name: 'Add schedule' }).click();
  await expect(cron).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('#schedule-cron-error')).toContainText('not a valid cron expression');

  await cron.fill('0 8 * * 1');
  await page.getByRole('button', { name: 'Add schedule' }).click();
  const runs = page.getByRole('list', { name: 'Next runs of 0 8 * * 1 (Europe/Paris)' }).getByRole('listitem');
  await expect(runs).toHaveCount(5);
  // Mondays at 08:00 in Paris, whatever the browser's own zone.
  for (const text of await runs.allTextContents()) expect(text).toMatch(/Mon.*08:00/);
  const shown = await runs.locator('time').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime')));
  const planId = new URL(page.url()).pathname.split('/').pop()!;
  const listed = await page.request.get(`/api/v1/test-plans/${planId}/schedules`, { headers: { authorization: `Bearer ${await apiToken()}` } });
  expect(listed.status()).toBe(200);
  const [schedule] = (await listed.json()).data as Array<{ id: string; cron: string; timezone: string; enabled: boolean; next_runs: string[] }>;
  expect(schedule).toMatchObject({ cron: '0 8 * * 1', timezone: 'Europe/Paris', enabled: true });
  expect(shown).toEqual(schedule!.next_runs);

  await page.getByRole('button', { name: 'Disable schedule 0 8 * * 1 (Europe/Paris)' }).click();
  await expect(page.getByText('Paused: no next run.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Enable schedule 0 8 * * 1 (Europe/Paris)' })).toBeVisible();
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Delete schedule 0 8 * * 1 (Europe/Paris)' }).click();
  await expect(page.getByText('No schedule: this plan runs only when started.')).toBeVisible();
  const after = await page.request.get(`/api/v1/test-plans/${planId}/schedules`, { headers: { authorization: `Bearer ${await apiToken()}` } });
  expect((await after.json()).data).toEqual([]);
});

test('defines reports (a scheduled one, a tag-filtered one), takes snapshots of the runs so far, and deletes one', async () => {
  await page.getByRole('link', { name: 'Reports' }).click();
  await page.getByLabel('Project', { exact: true }).selectOption({ label: 'Acme' });
  await expect(page.getByText('No report for this project.')).toBeVisible();
  await page.getByLabel('Report name').fill('Smoke pass rate');
  await page.getByLabel('Take snapshots on a schedule').check();
  await page.getByLabel('Snapshot cron').fill('0 8 * * 1');
  await page.getByLabel('Snapshot time zone').fill('Nowhere/Special');
  await page.getByRole('button', { name: 'Create report' }).click();
  await expect(page.getByLabel('Snapshot time zone')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('#report-timezone-error')).toContainText('IANA time zone');
  await page.getByLabel('Snapshot time zone').fill('Europe/Paris');
  await page.getByRole('button', { name: 'Create report' }).click();
  await expect(page.getByRole('heading', { name: 'Smoke pass rate', level: 1 })).toBeVisible();
  await expect(page.getByTestId('report-schedule')).toContainText(/0 8 \* \* 1 \(Europe\/Paris\) · next snapshot Mon.*08:00/);

  // The plan "Smoke" of this project ran three times: passed, failed, passed.
  await page.getByRole('button', { name: 'Take snapshot now' }).click();
  await expect(page.getByTestId('executions-counted')).toHaveText('3');
  const totals = page.getByRole('table', { name: 'totals' });
  // Columns: plan id, plan name, environment, executions, passed, failed, pass rate.
  const cells = totals.getByRole('row', { name: /Smoke/ }).getByRole('cell');
  // The plan by its name (a link to it), no id column.
  await expect(cells.nth(0)).toHaveText('Smoke');
  await expect(cells.nth(0).getByRole('link')).toHaveAttribute('href', /^\/plans\/[0-9a-f-]{36}$/);
  await expect(cells.nth(2)).toHaveText('3');
  await expect(cells.nth(3)).toHaveText('2');
  await expect(cells.nth(4)).toHaveText('1');
  await expect(page.getByRole('list', { name: 'Snapshots of the report' }).getByRole('listitem')).toHaveCount(1);
  await shot('report');

  // Only test cases tagged so count: this project's case has no tag.
  await page.getByRole('link', { name: 'All reports of the project' }).click();
  await page.getByLabel('Report name').fill('Discovered only');
  await page.getByLabel('Tag filter').fill('discovered, navigation');
  await page.getByRole('button', { name: 'Create report' }).click();
  await expect(page.getByTestId('report-tags')).toHaveText('discovered, navigation');
  await page.getByRole('button', { name: 'Take snapshot now' }).click();
  await expect(page.getByTestId('executions-counted')).toHaveText('0');
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Delete report' }).click();
  const reports = page.getByRole('table', { name: 'Reports of the project' });
  await expect(reports.getByRole('link')).toHaveText(['Smoke pass rate']);
});

test('creates a key shown once with a copy button, and revokes it so it stops working', async () => {
  await page.getByRole('link', { name: 'Keys' }).click();
  const name = `CI ${Date.now()}`;
  await page.getByLabel('Key name').first().fill(name);
  await page.getByRole('form', { name: 'Create a service key' }).getByRole('button', { name: 'Create key' }).click();
  const secret = page.getByTestId('secret-value');
  await expect(secret).toContainText('service_sk_');
  const key = (await secret.textContent())!.trim();
  await expect(page.getByRole('button', { name: 'Copy' })).toBeVisible();
  expect((await page.request.get(`${gateway}/api/v1/projects`, { headers: { authorization: `Bearer ${key}` } })).status()).toBe(200);
  await shot('keys');
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(secret).toHaveCount(0);

  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: `Revoke ${name}` }).click();
  await expect(page.getByRole('button', { name: `Revoke ${name}` })).toHaveCount(0);
  await expect.poll(async () => (await page.request.get(`${gateway}/api/v1/projects`, { headers: { authorization: `Bearer ${key}` } })).status(), { timeout: 15_000 }).toBe(401);
});

test('creates a webhook with an event filter and its secret shown once, sees a test delivery arrive, and changes its events', async () => {
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByLabel('Name').fill('Local receiver');
  await page.getByLabel('URL').fill(receiverUrl);
  // No event at all is refused next to the events; then two of the catalogue's types.
  await page.getByRole('button', { name: 'Clear' }).click();
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await expect(page.locator('#webhook-new-events-error')).toContainText('fewer than 1');
  await page.getByLabel('test.execution.failed', { exact: true }).check();
  await page.getByLabel('report.snapshot.created', { exact: true }).check();
  await expect(page.getByRole('group', { name: /^Events \(2 of \d+\)$/ })).toBeVisible();
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await expect(page.getByTestId('secret-value')).not.toBeEmpty();
  const webhookId = new URL(page.url()).pathname.split('/').pop()!;
  const readEvents = async () => {
    const res = await page.request.get(`/api/v1/webhooks/${webhookId}`, { headers: { authorization: `Bearer ${await apiToken()}` } });
    expect(res.status()).toBe(200);
    return ((await res.json()) as { events: string[] }).events.sort();
  };
  expect(await readEvents()).toEqual(['report.snapshot.created', 'test.execution.failed']);
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('button', { name: 'Send test event' }).click();
  await expect
    .poll(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return page.locator('tbody .badge-delivered').count();
    }, { timeout: 60_000 })
    .toBeGreaterThan(0);
  expect(received.length).toBeGreaterThan(0);
  await page.locator('tbody tr', { has: page.locator('.badge-delivered') }).first().getByRole('button', { name: 'Details' }).click();
  await expect(page.locator('pre.body').first()).toContainText('"ok":true');
  await shot('webhooks');

  // Edit the filter: the report event out, the plan's completion in.
  await page.getByText('Edit name, URL and events').click();
  const settings = page.getByRole('form', { name: 'Settings' });
  await expect(settings.getByLabel('test.execution.failed', { exact: true })).toBeChecked();
  await settings.getByLabel('report.snapshot.created', { exact: true }).uncheck();
  await settings.getByLabel('test.plan.completed', { exact: true }).check();
  await settings.getByRole('button', { name: 'Save changes' }).click();
  await expect(settings.getByRole('status')).toHaveText('Saved');
  expect(await readEvents()).toEqual(['test.execution.failed', 'test.plan.completed']);
  await expect(page.locator('.page > p.muted').first()).toContainText('test.execution.failed, test.plan.completed');
});

test('is usable at 390 px wide: the menu folds behind a button', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  // The webhook's page of the previous test, its event filter open, fits: nothing wider than the screen.
  await expect(page.getByRole('form', { name: 'Settings' })).toBeVisible();
  expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav).toBeHidden();
  await page.getByRole('button', { name: 'Menu' }).click();
  await expect(nav).toBeVisible();
  await nav.getByRole('link', { name: 'Executions' }).click();
  await expect(page.getByRole('heading', { name: 'Executions', level: 1 })).toBeVisible();
  await expect(page.getByRole('row').nth(1)).toBeVisible();
  await shot('executions-390px');
  await page.setViewportSize({ width: 1280, height: 860 });
});

test('shows members and the plan’s quota bars, invites a member who accepts in another browser, and switches organization', async ({ browser }) => {
  await page.getByRole('link', { name: 'Organization' }).click();
  await expect(page.getByRole('progressbar').first()).toBeVisible();
  await expect(page.getByRole('table')).toContainText(email);
  await shot('organization');

  // A new e-mail gets an invitation: its token once, and the link that accepts it.
  const invitee = `invitee-${Date.now()}@example.test`;
  await page.getByLabel('E-mail').fill(invitee);
  await page.getByRole('button', { name: 'Add member' }).click();
  const invitationToken = (await page.getByTestId('secret-value').textContent())!.trim();
  expect(invitationToken.length).toBeGreaterThan(20);
  const link = (await page.getByTestId('invitation-link').getAttribute('href'))!;
  expect(link).toBe(`${new URL(page.url()).origin}/accept-invitation#token=${encodeURIComponent(invitationToken)}`);
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('table')).toContainText(invitee);

  // The invitee, in a browser of their own: the token leaves the address bar at once and is sent nowhere but in the accept call's body.
  const other = await browser.newContext();
  const invited = await other.newPage();
  const leaks: string[] = [];
  invited.on('request', (r) => {
    const headers = r.headers();
    const seen = [r.url(), headers.referer ?? ''].concat(r.url().endsWith('/api/auth/accept-invitation') ? [] : [r.postData() ?? '']);
    if (seen.some((v) => v.includes(invitationToken) || v.includes(encodeURIComponent(invitationToken)))) leaks.push(r.url());
  });
  // A hand-written `?token=` link is read too and leaves the address bar the same way; a token the server does not know is refused next to its field.
  await invited.goto('/accept-invitation?token=not-an-invitation-token');
  await expect(invited.getByRole('heading', { name: 'Accept your invitation' })).toBeVisible();
  expect(invited.url()).toBe(`${new URL(page.url()).origin}/accept-invitation`);
  await invited.getByLabel('New password').fill('the invitee’s own password');
  await invited.getByLabel('Repeat the password').fill('the invitee’s own password');
  await invited.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(invited.locator('#invitation-token-error')).toContainText('unknown, already used or expired');
  await expect(invited.getByLabel('Invitation token')).toHaveValue('not-an-invitation-token');

  await invited.goto('about:blank'); // else the link, differing only by its fragment, would not load the page again
  await invited.goto(link);
  await expect(invited.getByRole('heading', { name: 'Accept your invitation' })).toBeVisible();
  await expect(invited.getByLabel('Invitation token')).toHaveCount(0);
  expect(invited.url()).toBe(`${new URL(page.url()).origin}/accept-invitation`);
  await invited.getByLabel('New password').fill('too short');
  await invited.getByLabel('Repeat the password').fill('too short');
  await invited.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(invited.getByLabel('New password')).toHaveAttribute('aria-invalid', 'true');
  await expect(invited.locator('#invitation-password-error')).toContainText('12 characters');
  await invited.getByLabel('New password').fill('the invitee’s own password');
  await invited.getByLabel('Repeat the password').fill('the invitee’s own password');
  await invited.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(invited.getByRole('heading', { name: 'Projects', level: 1 })).toBeVisible();
  await expect(invited.locator('.user-email')).toHaveText(invitee);
  await invited.getByRole('link', { name: 'Organization' }).click();
  await expect(invited.getByRole('table')).toContainText(invitee);
  expect(invited.url()).not.toContain('token');
  expect(leaks).toEqual([]);
  await other.close();
  if (secondOrganization) {
    const menu = page.getByRole('combobox', { name: 'Organization' });
    await menu.selectOption({ label: `${secondOrganization} (admin)` });
    await expect(page.getByRole('heading', { name: 'Projects', level: 1 })).toBeVisible();
    await expect(page.locator('.cards .card')).toHaveCount(0);
  }
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to Assay' })).toBeVisible();
  expect(cspViolations).toEqual([]);
});
