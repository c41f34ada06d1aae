/* eslint-disable no-console -- a tool for writing labels: it prints where cases break */
// `pnpm exec tsx tests/healing-panel/breaks.ts <pair> <kept.json>`: replays the cases a
// HEALING_OLD_ONLY=1 run kept (HEALING_DUMP=<dir> writes <pair>-kept.json) on the pair's
// NEW version with the step engine, the pair's labels applied as they would be by a right
// heal, and prints every step that fails and whether its selector finds anything: the steps
// that need a label, to be written by hand with look.ts. It never runs Assay's analysis, so
// nothing it prints says what a heal would suggest.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_CHROMIUM_PATH, launchChromium } from '@assay/browser';
import { runStep, type Step } from '@assay/steps';
import { startVersion } from './apps.js';
import { HEALING_DIR, PAIRS } from './pairs.js';
import { isAbsent, labelFor, type LabelFile } from './score.js';

const [name, file] = process.argv.slice(2);
const pair = PAIRS.find((p) => p.name === name);
if (!pair || !file) {
  console.error(`usage: breaks.ts <${PAIRS.map((p) => p.name).join('|')}> <kept.json>`);
  process.exit(2);
}
const cases = JSON.parse(readFileSync(file, 'utf8')) as Array<{ name: string; start: string; steps: Step[] }>;
const labels = (JSON.parse(readFileSync(path.join(HEALING_DIR, pair.name, 'labels.json'), 'utf8')) as LabelFile).labels;
const app = await startVersion(pair, pair.new);
const browser = await launchChromium({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH });
try {
  for (const c of cases) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    const ctx = { page, baseUrl: app.url, variables: {}, stepTimeoutMs: 3000, navigationTimeoutMs: 15000 };
    let line = `${c.name}: passes`;
    for (const [i, step] of c.steps.entries()) {
      const label = step.selector ? labelFor(labels, step.selector, c.start, c.name) : undefined;
      const s = label && !isAbsent(label) ? { ...step, selector: label.right } : step;
      try {
        await runStep(ctx, s);
      } catch (err) {
        const found = s.selector ? await page.locator(s.selector).count().catch(() => -1) : -1;
        line = `${c.name}: step ${i + 1} ${s.action} ${s.selector ?? ''}${label ? ` (labelled ${label.right})` : ''} fails, its selector finds ${found}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 160)}`;
        break;
      }
    }
    console.log(line);
    await context.close();
  }
} finally {
  await browser.close();
  await app.close();
}
process.exit(0);
