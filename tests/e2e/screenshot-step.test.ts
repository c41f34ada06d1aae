// assert_screenshot on the one step engine: the unchanged shop /visual page matches its baseline on
// every fresh load (animations and a changing stamp included), a real third-party app (Verdaccio's
// React UI) matches its own baseline twice, and the Playwright export runs under Playwright Test.
// The runner's baselines, artifacts and API are covered by services/execution-runner/test/screenshots.test.ts.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { launchChromium, DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { runStep, StepError, type ScreenshotStore, type Step, type StepContext, type VisualOutcome } from '@assay/steps';
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
  page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
  await mkdir(path.join(repoRoot(), 'tests', '.tmp'), { recursive: true });
  work = await mkdtemp(path.join(repoRoot(), 'tests', '.tmp', 'visual-'));
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([shop?.close(), registry?.close()]);
  if (work) await rm(work, { recursive: true, force: true });
});

/** An in-memory baseline store, as the runner's (per case) keeps them in Postgres. */
function memoryStore() {
  const baselines = new Map<string, Buffer>();
  const mismatches: Array<{ actual: Buffer; expected: Buffer; diff: Buffer }> = [];
  const store: ScreenshotStore = {
    baseline: async (k) => {
      const png = baselines.get(`${k.stepId}/${k.browser}/${k.viewport}`);
      return png ? { id: k.stepId, png } : undefined;
    },
    keepAsBaseline: async (k, png) => void baselines.set(`${k.stepId}/${k.browser}/${k.viewport}`, png),
    saveMismatch: async (images) => {
      mismatches.push(images);
      return { actual_artifact_id: `a${mismatches.length}` };
    },
  };
  return { store, baselines, mismatches };
}

const ctx = (baseUrl: string, screenshots?: ScreenshotStore): StepContext => ({ page: page as never, baseUrl, variables: {}, stepTimeoutMs: 10_000, navigationTimeoutMs: 30_000, ...(screenshots ? { screenshots } : {}) });

describe('assert_screenshot', () => {
  it('matches the unchanged page on 20 fresh loads in a row after the baseline and fails on a 10 px shift', async () => {
    const { store, baselines, mismatches } = memoryStore();
    const c = ctx(shop.url, store);
    const shot: Step = { step_id: 'shot', action: 'assert_screenshot', selector: '#visual', mask: ['#stamp'] };
    const results: string[] = [];
    const captureMs: number[] = [];
    for (let i = 0; i < 21; i++) {
      await runStep(c, { step_id: 'nav', action: 'navigate', value: '/visual' });
      const out = await runStep(c, shot).catch((e: StepError) => ({ visual: { result: e.message } as VisualOutcome }));
      results.push(out.visual!.result);
      captureMs.push(out.visual!.capture_ms);
    }
    expect(results).toEqual(['baseline_created', ...Array(20).fill('matched')]);
    expect([...baselines.keys()]).toEqual(['shot/chromium/1280x720']);

    // The viewport without a selector is a baseline of its own key (another viewport would be another).
    await runStep(c, { step_id: 'nav', action: 'navigate', value: '/visual?shift=1' });
    const err = (await runStep(c, shot).catch((e: unknown) => e)) as StepError;
    expect(err).toBeInstanceOf(StepError);
    expect(err.type).toBe('visual_change');
    expect((err.details!.visual as VisualOutcome).regions!.length).toBeGreaterThan(0);
    expect(mismatches).toHaveLength(1);
    await page.setViewportSize({ width: 800, height: 600 });
    try {
      expect((await runStep(c, { ...shot, selector: undefined, mask: undefined }))?.visual?.viewport).toBe('800x600');
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
    }
    expect([...baselines.keys()].sort()).toEqual(['shot/chromium/1280x720', 'shot/chromium/800x600']);
  });

  it('fails as unsupported without the runner’s store, and names a bad mask selector', async () => {
    await runStep(ctx(shop.url), { step_id: 'nav', action: 'navigate', value: '/visual' });
    await expect(runStep(ctx(shop.url), { step_id: 's', action: 'assert_screenshot' })).rejects.toMatchObject({ type: 'unsupported' });
    await expect(runStep(ctx(shop.url, memoryStore().store), { step_id: 's', action: 'assert_screenshot', mask: ['##'] })).rejects.toThrow('Invalid mask selector: ##');
  });

  it('matches a real third-party app (Verdaccio’s React UI) against its baseline twice', async () => {
    const { store } = memoryStore();
    const c = ctx(registry.url, store);
    const results: string[] = [];
    for (let i = 0; i < 3; i++) {
      await runStep(c, { step_id: 'nav', action: 'navigate', value: '/' });
      await runStep(c, { step_id: 'w', action: 'assert_text', selector: 'body', value: '@acme/widgets' });
      const out = await runStep(c, { step_id: 'ui', action: 'assert_screenshot', value: 'registry home' }).catch((e: StepError) => ({ visual: { result: e.message } as VisualOutcome }));
      results.push(out.visual!.result);
    }
    expect(results).toEqual(['baseline_created', 'matched', 'matched']);
  });

  it('is exported as toHaveScreenshot, which Playwright Test passes on the unchanged page and fails on a recoloured badge', async () => {
    await writeFile(
      path.join(work, 'playwright.config.ts'),
      `import { defineConfig } from '@playwright/test';
export default defineConfig({ testDir: '.', outputDir: './results', workers: 1, retries: 0, snapshotPathTemplate: '{testDir}/snapshots/{arg}{ext}',
  use: { viewport: { width: 1280, height: 720 }, launchOptions: { executablePath: '/usr/lib/chromium/chromium-headless-shell', args: ['--no-sandbox', '--disable-gpu'] } } });\n`,
    );
    const spec = (variant: string) =>
      toPlaywrightSpec({
        title: 'Visual',
        baseUrl: shop.url,
        source: 'test plan "Visual"',
        projectName: 'Shop',
        describe: true,
        cases: [{ name: 'Sale section', steps: [{ step_id: 'n', action: 'navigate', value: `/visual${variant}` }, { step_id: 's1', action: 'assert_screenshot', selector: '#visual', value: 'sale section', mask: ['#stamp'] }] }],
      });
    expect(spec('')).toContain("await expect(page.locator('#visual').first()).toHaveScreenshot('sale-section.png', { animations: 'disabled', caret: 'hide', scale: 'css', threshold: 0.1, mask: [page.locator('#stamp')], maskColor: '#FF00FF' });");
    await writeFile(path.join(work, 'visual.spec.ts'), spec(''));
    expect(await runPlaywrightTest(work, { args: ['--update-snapshots'] })).toMatchObject({ code: 0 });
    expect(await runPlaywrightTest(work)).toMatchObject({ code: 0, outcomes: { 'Sale section': 'passed' } });
    await writeFile(path.join(work, 'visual.spec.ts'), spec('?color=1'));
    const changed = await runPlaywrightTest(work);
    expect({ code: changed.code, outcomes: changed.outcomes }).toEqual({ code: 1, outcomes: { 'Sale section': 'failed' } });
    expect(changed.output).toMatch(/pixels \(ratio [\d.]+ of all image pixels\) are different/);
  });
});
