import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_CHROMIUM_PATH, launchChromium } from '@assay/browser';
import { compareScreenshots, runStep, type ScreenshotStore, type Step, type StepContext } from '@assay/steps';
import { startShop } from '../fixtures/shop/server.js';

const run = promisify(execFile);
const ROUNDS = Number(process.env.VISUAL_ROUNDS ?? 20);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))]!;
const fmt = (xs: number[]) => `median ${median(xs).toFixed(1)} ms, p90 ${p90(xs).toFixed(1)} ms`;

/**
 * `make bench BENCH=visual`: what an `assert_screenshot` step costs on the
 * shop fixture (the whole 1280x720 viewport of /products, and the /visual
 * section element): the still capture (two or more screenshots), the
 * comparison of an unchanged page (equal bytes: no decoding) and of a
 * changed one (pixelmatch, with the diff PNG). With `ODIFF_BIN` (odiff-bin's
 * binary, not a dependency) the same changed pair is compared by odiff too,
 * files and process included, as using it from the runner would cost.
 */
export async function benchVisual(): Promise<void> {
  const shop = await startShop();
  const browser = await launchChromium({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH });
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
  const dir = await mkdtemp(path.join(tmpdir(), 'assay-visual-bench-'));
  try {
    console.warn(`visual: ${ROUNDS} rounds, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    for (const [label, pathOf, shot] of [
      ['viewport of /products', (v: string) => `/products${v ? '?q=shoe' : ''}`, { step_id: 'v', action: 'assert_screenshot' }],
      ['#visual of /visual', (v: string) => `/visual${v ? '?color=1' : ''}`, { step_id: 'e', action: 'assert_screenshot', selector: '#visual', mask: ['#stamp'] }],
    ] as Array<[string, (variant: string) => string, Step]>) {
      let baseline: Buffer | undefined;
      let changed: Buffer | undefined;
      const store: ScreenshotStore = {
        baseline: async () => (baseline ? { id: 'b', png: baseline } : undefined),
        keepAsBaseline: async (_k, png) => void (baseline = png),
        saveMismatch: async ({ actual }) => ((changed = actual), {}),
      };
      const ctx: StepContext = { page: page as never, baseUrl: shop.url, variables: {}, stepTimeoutMs: 10_000, navigationTimeoutMs: 30_000, screenshots: store };
      const step: number[] = [];
      const capture: number[] = [];
      const compareSame: number[] = [];
      for (let i = 0; i <= ROUNDS; i++) {
        await runStep(ctx, { step_id: 'n', action: 'navigate', value: pathOf('') });
        const t0 = performance.now();
        const out = await runStep(ctx, shot);
        if (i === 0) continue; // the first stores the baseline
        step.push(performance.now() - t0);
        capture.push(out.visual!.capture_ms);
        compareSame.push(out.visual!.compare_ms ?? 0);
      }
      await runStep(ctx, { step_id: 'n', action: 'navigate', value: pathOf('changed') });
      await runStep(ctx, shot).catch(() => undefined);
      if (!baseline || !changed) throw new Error(`${label}: no mismatch to compare`);
      const pixelmatch: number[] = [];
      let diffRatio = 0;
      for (let i = 0; i < ROUNDS; i++) {
        const t0 = performance.now();
        diffRatio = compareScreenshots(baseline, changed, { threshold: 0.1, maxDiffRatio: 0 }).diffRatio;
        pixelmatch.push(performance.now() - t0);
      }
      console.warn(`\n${label} (${(diffRatio * 100).toFixed(2)}% changed):`);
      console.warn(`  assert_screenshot step, unchanged page: ${fmt(step)}`);
      console.warn(`    still capture: ${fmt(capture)}; comparison (equal bytes): ${fmt(compareSame)}`);
      console.warn(`  compare a changed capture with pixelmatch (decode, diff, diff PNG): ${fmt(pixelmatch)}`);
      const odiff = process.env.ODIFF_BIN;
      if (odiff) {
        const times: number[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          const t0 = performance.now();
          const [a, b, d] = ['a', 'b', 'd'].map((n) => path.join(dir, `${n}${i}.png`)) as [string, string, string];
          await Promise.all([writeFile(a, baseline), writeFile(b, changed)]);
          await run(odiff, [a, b, d, '--parsable-stdout', '--antialiasing', '-t', '0.1']).catch((err: { code?: number }) => {
            if (err.code !== 22) throw err; // 22: the images differ
          });
          times.push(performance.now() - t0);
        }
        console.warn(`  compare the same pair with odiff (files and process included): ${fmt(times)}`);
      }
    }
    console.warn(`\nload average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    await browser.close();
    await shop.close();
    await rm(dir, { recursive: true, force: true });
  }
}
