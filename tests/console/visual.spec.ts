import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { startShop, type Shop } from '../fixtures/shop/server.js';

// The run view of a failed screenshot comparison (issue 27): expected, actual and diff side by side,
// no "live" badge once the run has ended, and Accept as new baseline, after which the same page passes.
// The stack is tests/e2e/console.test.ts's; the set-up goes through the API, the check through the console.
const email = process.env.ASSAY_ADMIN_EMAIL!;
const password = process.env.ASSAY_ADMIN_PASSWORD!;

let page: Page;
let shop: Shop;
let headers: Record<string, string>;

test.beforeAll(async ({ browser }) => {
  shop = await startShop();
  page = await (await browser.newContext()).newPage();
});
test.afterAll(async () => {
  await page?.context().close();
  await shop?.close();
});

async function post(request: APIRequestContext, url: string, data: unknown) {
  const res = await request.post(url, { headers, data });
  expect(res.status(), `${url}: ${await res.text()}`).toBeLessThan(300);
  return res.json();
}

test('shows a screenshot mismatch side by side and accepts the new look as the baseline', async () => {
  const login = await page.request.post('/api/auth/login', { data: { email, password } });
  headers = { authorization: `Bearer ${((await login.json()) as { token: string }).token}` };
  const project = await post(page.request, '/api/v1/projects', { name: `Visual ${Date.now()}`, base_url: shop.url });
  const testCase = await post(page.request, '/api/v1/test-cases', {
    project_id: project.id,
    name: 'Sale section',
    steps: [
      { action: 'navigate', value: '/visual?{{variant}}' },
      { action: 'assert_screenshot', selector: '#visual', value: 'sale section', mask: ['#stamp'] },
    ],
  });
  const plan = await post(page.request, '/api/v1/test-plans', { project_id: project.id, name: 'Visual', test_case_ids: [testCase.id] });
  const run = (variant: string) => post(page.request, '/api/v1/executions', { test_plan_id: plan.id, project_id: project.id, variables: { variant } });
  expect((await run('')).outcome).toBe('passed');
  const failed = await run('color=1');
  expect(failed.outcome).toBe('failed');

  // The API sign-in above left the session's refresh cookie in this context: the console may already be signed in.
  await page.goto(`/executions/${failed.id}`);
  const summary = page.getByTestId('execution-summary');
  const emailField = page.getByLabel('E-mail');
  await expect(summary.or(emailField)).toBeVisible();
  if (await emailField.isVisible()) {
    await emailField.fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.goto(`/executions/${failed.id}`);
  }
  await expect(summary.getByTestId('outcome')).toHaveText('failed');
  await expect(summary.locator('.live-dot')).toHaveCount(0);
  const comparison = page.getByRole('region', { name: 'Screenshot comparison at step 2 of Sale section' });
  await expect(comparison).toContainText(/\d+\.\d\d% of pixels differ/);
  for (const label of ['Expected', 'Actual', 'Diff']) await expect(comparison.getByRole('img', { name: `${label} screenshot at step 2 of Sale section` })).toBeVisible();
  await comparison.getByRole('button', { name: 'Accept as new baseline for step 2 of Sale section' }).click();
  await expect(comparison.getByRole('status')).toHaveText('Accepted: the next run compares against this capture.');
  expect((await run('color=1')).outcome).toBe('passed');
});
