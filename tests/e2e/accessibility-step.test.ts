// assert_accessible (axe-core through @axe-core/playwright) on the shop fixture's newsletter page,
// its export run by Playwright Test, and both new steps on a real third-party app (Verdaccio).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { launchChromium, DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { runStep, StepError, type Step, type StepContext } from '@assay/steps';
import { toPlaywrightSpec } from '@assay/steps/playwright-export';
import { startShop, type Shop } from '../fixtures/shop/server.js';
import { startVerdaccio, type Verdaccio } from '../fixtures/verdaccio/server.js';
import { repoRoot } from './support/launcher.js';
import { runPlaywrightTest } from './support/playwright-test.js';

jest.setTimeout(180_000);

let shop: Shop;
let registry: Verdaccio;
let browser: Browser;
let page: Page;
let work: string;
beforeAll(async () => {
  [shop, registry] = await Promise.all([startShop(), startVerdaccio()]);
  browser = (await launchChromium({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH })) as unknown as Browser;
  page = await (await browser.newContext()).newPage();
  await mkdir(path.join(repoRoot(), 'tests', '.tmp'), { recursive: true });
  work = await mkdtemp(path.join(repoRoot(), 'tests', '.tmp', 'a11y-'));
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([shop?.close(), registry?.close()]);
  if (work) await rm(work, { recursive: true, force: true });
});

const ctx = (baseUrl: string, variables: Record<string, string> = {}): StepContext => ({ page: page as never, baseUrl, variables, stepTimeoutMs: 10_000, navigationTimeoutMs: 30_000 });
const run = (c: StepContext, steps: Step[]) => steps.reduce((p, s) => p.then(() => runStep(c, s).then(() => undefined)), Promise.resolve());

describe('assert_accessible', () => {
  it('fails on the page with a missing label and low contrast, naming both rules and nodes, and passes once fixed', async () => {
    const scan: Step = { step_id: 'a', action: 'assert_accessible', selector: 'main', value: 'wcag2aa' };
    const err = await run(ctx(shop.url), [{ step_id: 'n', action: 'navigate', value: '/newsletter' }, scan]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StepError);
    const message = (err as StepError).message;
    expect((err as StepError).type).toBe('assertion_failed');
    expect(message).toMatch(/^2 accessibility violations \(wcag2aa, minor or worse\)/);
    expect(message).toMatch(/label \(critical\): Form elements must have labels \[https:\/\/dequeuniversity\.com\/rules\/axe\/[\d.]+\/label\?application=playwright\] at #newsletter-email/);
    expect(message).toMatch(/color-contrast \(serious\): .*at #newsletter-note/);
    // Only the critical one at "critical"; none for wcag2a (contrast is AA).
    await expect(runStep(ctx(shop.url), { ...scan, value: 'wcag2aa critical' })).rejects.toThrow(/^1 accessibility violation \(wcag2aa, critical or worse\): label/);
    await expect(runStep(ctx(shop.url), { ...scan, value: 'wcag2a' })).rejects.toThrow(/^1 accessibility violation .*: label /);
    await run(ctx(shop.url), [{ step_id: 'n', action: 'navigate', value: '/newsletter?fixed=1' }, scan]);
  });

  it('is exported with AxeBuilder and Playwright Test fails and passes the same pages', async () => {
    await writeFile(
      path.join(work, 'playwright.config.ts'),
      `import { defineConfig } from '@playwright/test';
export default defineConfig({ testDir: '.', outputDir: './results', workers: 1, retries: 0,
  use: { launchOptions: { executablePath: '/usr/lib/chromium/chromium-headless-shell', args: ['--no-sandbox', '--disable-gpu'] } } });\n`,
    );
    const scan: Step = { step_id: 'a', action: 'assert_accessible', selector: 'main' };
    const spec = toPlaywrightSpec({
      title: 'A11y',
      baseUrl: shop.url,
      source: 'test plan "A11y"',
      projectName: 'Shop',
      describe: true,
      cases: [
        { name: 'Broken newsletter', steps: [{ step_id: 'n', action: 'navigate', value: '/newsletter' }, scan] },
        { name: 'Fixed newsletter', steps: [{ step_id: 'n', action: 'navigate', value: '/newsletter?fixed=1' }, scan] },
      ],
    });
    expect(spec).toContain("import AxeBuilder from '@axe-core/playwright';");
    await writeFile(path.join(work, 'a11y.spec.ts'), spec);
    const result = await runPlaywrightTest(work);
    expect({ code: result.code, outcomes: result.outcomes }).toEqual({ code: 1, outcomes: { 'Broken newsletter': 'failed', 'Fixed newsletter': 'passed' } });
    expect(result.output).toContain('color-contrast (serious)');
  });

  it('scans a real third-party app (Verdaccio) and checks its API with a request step', async () => {
    const c = ctx(registry.url);
    await run(c, [
      { step_id: 'q', action: 'request', request: { method: 'GET', url: '/-/v1/search?text=widgets' }, expect: ['status=200', '$.objects.length>=1', '$.objects[0].package.name exists'], save_as: { pkg: '$.objects[0].package.name' } },
      { step_id: 'n', action: 'navigate', value: '/' },
      { step_id: 'w', action: 'assert_text', selector: 'body', value: '{{pkg}}' },
    ]);
    expect(c.variables.pkg).toBe('@acme/widgets');
    // Verdaccio's UI as it ships: the scan runs and either passes or names rules, impacts, help URLs and nodes.
    const outcome = await runStep(c, { step_id: 'a', action: 'assert_accessible', value: 'wcag2aa serious' }).then(
      () => 'passed',
      (e: StepError) => e.message,
    );
    expect(outcome).toMatch(/^passed$|^\d+ accessibility violations? \(wcag2aa, serious or worse\): [a-z-]+ \((serious|critical)\): .+ \[https:\/\/dequeuniversity\.com\/.+\] at .+/);
  });
});
