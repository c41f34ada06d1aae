// The `request` step on the shop fixture's real API (POST /api/items), through the one step engine,
// and the same case exported to Playwright Test and run by it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { launchChromium, DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { runStep, StepError, type Step, type StepContext } from '@assay/steps';
import { toPlaywrightSpec } from '@assay/steps/playwright-export';
import { startShop, type Shop } from '../fixtures/shop/server.js';
import { startVerdaccio, VERDACCIO_PACKAGES } from '../fixtures/verdaccio/server.js';
import { repoRoot } from './support/launcher.js';
import { runPlaywrightTest } from './support/playwright-test.js';

jest.setTimeout(120_000);

let shop: Shop;
let browser: Browser;
let page: Page;
let work: string;
beforeAll(async () => {
  shop = await startShop();
  browser = await launchChromium({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH });
  page = await (await browser.newContext()).newPage();
  await mkdir(path.join(repoRoot(), 'tests', '.tmp'), { recursive: true });
  work = await mkdtemp(path.join(repoRoot(), 'tests', '.tmp', 'request-'));
});
afterAll(async () => {
  await browser?.close();
  await shop?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const STEPS: Step[] = [
  {
    step_id: 's1',
    action: 'request',
    request: { method: 'POST', url: '/api/items', body: { name: '{{item}}' } },
    expect: ['status=201', '$.id exists', '$.name="{{item}}"'],
    save_as: { item_id: '$.id' },
  },
  { step_id: 's2', action: 'navigate', value: '/items' },
  { step_id: 's3', action: 'assert_text', selector: '[data-id="{{item_id}}"] .item-name', value: '{{item}}' },
];

describe('request step on the shop API', () => {
  it('creates an item through the API and a later browser step finds it by the saved id; a wrong status fails with both values', async () => {
    const variables: Record<string, string> = { item: 'Made by a request step' };
    const ctx: StepContext = { page, baseUrl: shop.url, variables, stepTimeoutMs: 10_000, navigationTimeoutMs: 30_000 };
    for (const step of STEPS) await runStep(ctx, step);
    expect(variables.item_id).toMatch(/^\d+$/);
    const wrong = await runStep(ctx, { step_id: 'w', action: 'request', request: { method: 'GET', url: '/api/items/999999' }, expect: ['status=200'] }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(StepError);
    expect((wrong as StepError).message).toBe(`GET ${shop.url}/api/items/999999: Expected status = 200 but it is 404`);
  });

  it('is exported as a Playwright Test file that Playwright Test runs green (and red on a wrong expectation)', async () => {
    await writeFile(
      path.join(work, 'playwright.config.ts'),
      `import { defineConfig } from '@playwright/test';
export default defineConfig({ testDir: '.', outputDir: './results', workers: 1, retries: 0,
  use: { launchOptions: { executablePath: '/usr/lib/chromium/chromium-headless-shell', args: ['--no-sandbox', '--disable-gpu'] } } });\n`,
    );
    const wrongSteps: Step[] = [{ ...STEPS[0]!, expect: ['status=200'] }];
    const spec = toPlaywrightSpec({
      title: 'API',
      baseUrl: shop.url,
      source: 'test plan "API"',
      projectName: 'Shop',
      describe: true,
      cases: [
        { name: 'Item made by the API', steps: STEPS },
        { name: 'Wrong status', steps: wrongSteps },
      ],
    });
    expect(spec).toContain('await apiRequest(page, {"method":"POST","url":"/api/items","body":{"name":"{{item}}"}}');
    await writeFile(path.join(work, 'api.spec.ts'), spec);
    const run = await runPlaywrightTest(work, { env: { ASSAY_VAR_item: 'Exported item' } });
    expect({ code: run.code, outcomes: run.outcomes }).toEqual({ code: 1, outcomes: { 'Item made by the API': 'passed', 'Wrong status': 'failed' } });
    expect(run.output).toContain('Error: status=200');
  });
});

describe('request step on a real third-party API', () => {
  it("reads a package's metadata from Verdaccio's registry API (npm), keeps its id for a later call, and fails naming both values on a wrong expectation", async () => {
    const registry = await startVerdaccio();
    try {
      const pkg = VERDACCIO_PACKAGES.find((p) => p.name === 'left-pad-lite')!;
      const variables: Record<string, string> = {};
      const ctx: StepContext = { page, baseUrl: registry.url, variables, stepTimeoutMs: 10_000, navigationTimeoutMs: 30_000 };
      await runStep(ctx, { step_id: 'r1', action: 'request', request: { method: 'GET', url: `/${pkg.name}` }, expect: ['status=200', `$.name="${pkg.name}"`, '$.versions exists'], save_as: { package_id: '$._id' } });
      expect(variables.package_id).toBe(pkg.name);
      // The kept value drives a later call.
      await runStep(ctx, { step_id: 'r1b', action: 'request', request: { method: 'GET', url: '/{{package_id}}' }, expect: ['status=200', `$._id="${pkg.name}"`] });
      const wrong = await runStep(ctx, { step_id: 'r2', action: 'request', request: { method: 'GET', url: `/${pkg.name}` }, expect: ['$.name="another-package"'] }).catch((e: unknown) => e);
      expect(wrong).toBeInstanceOf(StepError);
      // Both values after the URL (which names the package too).
      expect((wrong as StepError).message.split(': ').slice(1).join(': ')).toMatch(new RegExp(`another-package.*but it is.*${pkg.name}`));
    } finally {
      await registry.close();
    }
  });
});
