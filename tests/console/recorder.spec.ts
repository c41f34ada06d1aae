import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, expect, request, test, type Browser, type Page } from '@playwright/test';
import { startShop, type Shop } from '../fixtures/shop/server.js';

// The recorder in the console against a real Assay: a sign-in on the fixture
// shop recorded by clicking and typing into the remote page, saved as a case
// that passes when run, its trace listing the case's steps; the step editor's
// selector picker on the same remote page.
const email = process.env.ASSAY_ADMIN_EMAIL!;
const password = process.env.ASSAY_ADMIN_PASSWORD!;
const shots = process.env.CONSOLE_SCREENSHOTS;
const VIEWPORT = { width: 1280, height: 720 };

test.describe.configure({ mode: 'serial' });

let page: Page;
let shop: Shop;
let measure: Browser;
let token: string;
let projectId: string;
let caseId: string;
/** Unique per run, so the suite also runs again against the same `make run`. */
const projectName = `Recorded shop ${Date.now().toString(36)}`;

/** An element's centre on a page of the remote page's size (same Chromium, same layout). */
async function centre(url: string, selector: string, before?: (p: Page) => Promise<void>): Promise<{ x: number; y: number }> {
  const p = await measure.newPage({ viewport: VIEWPORT });
  try {
    await p.goto(url);
    await before?.(p);
    const box = (await p.locator(selector).boundingBox())!;
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  } finally {
    await p.close();
  }
}

/** Clicks the remote page's image where the remote element is (the image is scaled to the column). */
async function clickRemote(remote: ReturnType<Page['getByTestId']>, at: { x: number; y: number }): Promise<void> {
  const img = remote.locator('img');
  const box = (await img.boundingBox())!;
  await img.click({ position: { x: (at.x * box.width) / VIEWPORT.width, y: (at.y * box.height) / VIEWPORT.height } });
}

/** Moves the console to a path without a reload (faster than one: the app stays loaded). */
async function go(to: string): Promise<void> {
  // The tests' TypeScript has no DOM library: the page function is written as source.
  await page.evaluate(`history.pushState({}, '', ${JSON.stringify(to)}); dispatchEvent(new PopStateEvent('popstate'));`);
}

const api = async (method: 'GET' | 'POST', url: string, data?: unknown) => {
  const res = await page.request.fetch(url, { method, headers: { authorization: `Bearer ${token}` }, ...(data !== undefined ? { data } : {}) });
  expect(res.status(), `${method} ${url}: ${await res.text()}`).toBeLessThan(300);
  return res.json();
};

test.beforeAll(async ({ browser }) => {
  shop = await startShop();
  measure = await chromium.launch({ executablePath: process.env.CONSOLE_CHROMIUM_PATH ?? '/usr/lib/chromium/chromium-headless-shell', args: ['--no-sandbox'] });
  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  // Signed in apart from the page's context: a login through it would set the refresh cookie there, and the page would open signed in.
  const anonymous = await request.newContext({ baseURL: process.env.ASSAY_GATEWAY_URL });
  const res = await anonymous.post('/api/auth/login', { data: { email, password } });
  token = ((await res.json()) as { token: string }).token;
  await anonymous.dispose();
  projectId = (await api('POST', '/api/v1/projects', { name: projectName, base_url: shop.url })).id;
});

test.afterAll(async () => {
  await page?.context().close();
  await measure?.close();
  await shop?.close();
});

test('records a sign-in on the shop in the remote page and saves it as a test case', async () => {
  await page.goto('/');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Projects', level: 1 })).toBeVisible();
  await page.getByRole('link', { name: projectName }).click();
  await page.getByRole('link', { name: 'Record' }).click();
  await expect(page.getByRole('heading', { name: `Record on ${projectName}` })).toBeVisible();
  const remote = page.getByTestId('remote-page');
  // The screencast: the shop's home page, drawn from the runner's JPEG frames.
  await expect(remote.getByRole('img', { name: 'The recorded page' })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('recorder-url')).toHaveText(`${shop.url}/`);

  // A navigation typed in the address bar is a step.
  await page.getByLabel('Go to').fill('/login');
  await page.getByRole('button', { name: 'Go', exact: true }).click();
  await expect(page.getByTestId('recorder-url')).toHaveText(`${shop.url}/login`);
  const login = `${shop.url}/login`;
  await clickRemote(remote, await centre(login, '#email'));
  await remote.pressSequentially('user@shop.test');
  await clickRemote(remote, await centre(login, '#password'));
  await remote.pressSequentially('secret123');
  await remote.press('Enter');
  // Each key is a round trip through the runner, queued in order: on a loaded machine the last arrives long after it is typed.
  await expect(page.getByTestId('recorder-url')).toHaveText(`${shop.url}/dashboard`, { timeout: 60_000 });
  // An assertion: in "Assert text" mode a click names the element and records what it says.
  await page.getByRole('radio', { name: 'Assert text' }).check();
  const welcome = await centre(login, '#welcome', async (p) => {
    await p.fill('#email', 'user@shop.test');
    await p.fill('#password', 'secret123');
    await p.click('#submit');
  });
  await clickRemote(remote, welcome);

  const steps = page.getByRole('list', { name: 'Recorded steps' }).locator('> li');
  await expect(steps).toHaveCount(6);
  await expect(steps.nth(0)).toContainText('navigate');
  await expect(steps.nth(1)).toContainText('navigate');
  await expect(steps.nth(2)).toContainText('fill');
  await expect(steps.nth(2)).toContainText('role=textbox[name="Email"]');
  await expect(steps.nth(4)).toContainText('press');
  await expect(steps.nth(5)).toContainText('assert_text');
  await expect(steps.nth(5)).toContainText('Welcome, user@shop.test');
  // Beyond codegen: each step's alternatives with their stability; choosing one changes the step.
  const alternatives = page.getByRole('group', { name: 'Selector of step 3' });
  await expect(alternatives.getByRole('radio', { name: /role=textbox\[name="Email"\].*high/ })).toBeChecked();
  await expect(alternatives.getByRole('radio', { name: /#email.*medium/ })).toBeVisible();
  await alternatives.getByRole('radio', { name: /#email/ }).check();
  // The first navigate (the page it opened at) is not needed: remove it.
  await page.getByRole('button', { name: 'Remove recorded step 1' }).click();
  await expect(steps).toHaveCount(5);
  if (shots) {
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: path.join(shots, 'recorder.png') });
  }

  await page.getByLabel('Test case name').fill('Recorded sign-in');
  await page.getByRole('button', { name: 'Save as test case' }).click();
  await expect(page.getByRole('heading', { name: 'Recorded sign-in', level: 1 })).toBeVisible();
  caseId = page.url().split('/').pop()!;
  const saved = await api('GET', `/api/v1/test-cases/${caseId}`);
  expect(saved.steps.map((s: { action: string; selector?: string; value?: string }) => [s.action, s.selector ?? null, s.value ?? null])).toEqual([
    ['navigate', null, '/login'],
    ['fill', '#email', 'user@shop.test'],
    ['fill', '#password', 'secret123'],
    ['press', '#password', 'Enter'],
    ['assert_text', 'role=heading[name="Welcome, user@shop.test"]', 'Welcome, user@shop.test'],
  ]);
  // The recording was closed when the screen was left.
  await expect.poll(async () => (await api('GET', '/api/v1/recordings')).data.length).toBe(0);
});

test('runs the recorded case green, and its trace lists the case’s steps', async () => {
  const plan = await api('POST', '/api/v1/test-plans', { project_id: projectId, name: 'Recorded', test_case_ids: [caseId] });
  const run = await api('POST', '/api/v1/executions', { test_plan_id: plan.id, project_id: projectId, trace: 'on' });
  expect(run.results.test_results[0].status).toBe('passed');
  await go(`/executions/${run.id}`);
  await expect(page.getByTestId('execution-summary')).toContainText('1 passed');
  const [viewer] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Open trace of Recorded sign-in' }).click()]);
  await viewer.waitForLoadState();
  // The viewer's action list is the case's steps, in order, not Playwright's low-level calls.
  await expect(viewer.getByRole('treeitem', { name: /^Step 1 of 5 · navigate \/login/ })).toBeVisible({ timeout: 60_000 });
  for (const name of [/^Step 2 of 5 · fill #email/, /^Step 3 of 5 · fill #password/, /^Step 4 of 5 · press #password/, /^Step 5 of 5 · assert_text role=heading/]) {
    await expect(viewer.getByRole('treeitem', { name })).toBeVisible();
  }
  await viewer.close();
});

test('picks a selector for a step on the remote page from the step editor', async () => {
  await go(`/cases/${caseId}/edit`);
  await page.getByRole('button', { name: 'Pick an element for step 2' }).click();
  const picker = page.getByRole('dialog', { name: 'Element picker for step 2' });
  const remote = picker.getByTestId('remote-page');
  // It opens where the case navigated last (/login).
  await expect(remote.getByRole('img', { name: 'The recorded page' })).toBeVisible({ timeout: 30_000 });
  await clickRemote(remote, await centre(`${shop.url}/login`, '#submit'));
  await expect(picker.getByRole('button', { name: 'Use role=button[name="Sign in"]' })).toBeVisible();
  await picker.getByRole('button', { name: 'Use #submit' }).click();
  await expect(page.getByLabel('Step 2 selector')).toHaveValue('#submit');
  await expect(picker).toHaveCount(0);
  await expect.poll(async () => (await api('GET', '/api/v1/recordings')).data.length).toBe(0);
});
