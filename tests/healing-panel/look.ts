/* eslint-disable no-console -- a tool for writing scripts and labels: it prints what a page shows */
// `pnpm exec tsx tests/healing-panel/look.ts <pair> old|new [path] [selector to test] [click selectors or fill:<selector>=<text>...]`:
// starts one version of a pair, opens the path in Chromium (1280x720), clicks
// the given selectors in order, and prints the visible elements a user can act
// on or read (tag, role, text, id, classes, attributes), or, with a selector
// to test, how many elements it finds and their text. How labels are written
// by looking at the new version's page.
import { DEFAULT_CHROMIUM_PATH, launchChromium } from '@assay/browser';
import { startVersion } from './apps.js';
import { drive } from './drive.js';
import { PAIRS } from './pairs.js';

/** What the page shows a user, as lines (a string: it runs in the page). */
const LIST = `(() => {
  const out = [];
  for (const e of document.querySelectorAll('a, button, input, select, textarea, label, summary, [role], h1, h2, h3, h4, [title], [aria-label]')) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const attrs = [...e.attributes].filter((a) => a.name !== 'style').map((a) => a.name + '="' + a.value.slice(0, 50) + '"').join(' ');
    out.push('<' + e.tagName.toLowerCase() + ' ' + attrs + '> ' + (e.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 70) + '  @' + Math.round(r.x) + ',' + Math.round(r.y));
  }
  return out;
})()`;

const [name, which, where = '/', test, ...clicks] = process.argv.slice(2);
const pair = PAIRS.find((p) => p.name === name);
if (!pair || (which !== 'old' && which !== 'new')) {
  console.error(`usage: look.ts <${PAIRS.map((p) => p.name).join('|')}> old|new [path] [selector|-] [click...]`);
  process.exit(2);
}
const app = await startVersion(pair, which === 'old' ? pair.old : pair.new);
const browser = await launchChromium({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH });
try {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
  await page.goto(new URL(where, app.url).toString(), { waitUntil: 'load' });
  await page.waitForTimeout(1500);
  await drive(page, clicks);
  if (test && test !== '-') {
    const l = page.locator(test);
    const n = await l.count();
    console.log(`${test}: ${n} element(s)`);
    for (let i = 0; i < Math.min(n, 10); i++) console.log(`  ${i}: ${(await l.nth(i).evaluate((e: unknown) => String((e as { outerHTML?: string }).outerHTML).replace(/\s+/g, ' ').slice(0, 400)))}`);
  } else {
    const rows = (await page.evaluate(LIST)) as string[];
    for (const r of rows.slice(0, 150)) console.log(r);
  }
} finally {
  await browser.close();
  await app.close();
}
process.exit(0);
