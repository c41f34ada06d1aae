/* eslint-disable no-console -- a tool for looking into a miss: it prints how relocation ranks a page */
// `pnpm exec tsx tests/healing-panel/rank.ts <pair> <path> <old selector> [old clicks...] -- [new clicks...]`
// (a click is a selector, or `fill:<selector>=<text>`):
// fingerprints the element the old selector finds on the old version (after
// the old clicks), as a passing run records it, then collects the candidates
// on the new version's page (after the new clicks), as a failing run does,
// and prints relocation's verdict and its five first-ranked candidates with
// their factors (RANK_FIND=<words>: also where the candidates holding them rank). For pairs that are not held out: looking at a held-out
// pair's ranking is tuning on it.
import { DEFAULT_CHROMIUM_PATH, launchChromium } from '@assay/browser';
import { assayRelocate, controlKey, FEATURES, pageContext, pageFeatures, RELOCATION_MODEL, topReadings, type Fingerprint } from '@assay/analysis';
import { captureFailureEvidence, FINGERPRINT } from '@assay/steps';
import { startVersion } from './apps.js';
import { drive, type Browser, type Page } from './drive.js';
import { PAIRS } from './pairs.js';

const [name, where = '/', selector, ...rest] = process.argv.slice(2);
const pair = PAIRS.find((p) => p.name === name);
if (!pair || !selector) {
  console.error('usage: rank.ts <pair> <path> <old selector> [old clicks...] -- [new clicks...]');
  process.exit(2);
}
if (pair.heldOut) {
  console.error(`${pair.name} is held out: its ranking is not looked at`);
  process.exit(2);
}
const cut = rest.indexOf('--');
const oldClicks = cut < 0 ? rest : rest.slice(0, cut);
const newClicks = cut < 0 ? [] : rest.slice(cut + 1);

async function onPage<T>(browser: Browser, version: string, clicks: string[], read: (page: Page) => Promise<T>): Promise<T> {
  const app = await startVersion(pair!, version);
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
    await page.goto(new URL(where, app.url).toString(), { waitUntil: 'load' });
    await page.waitForTimeout(1500);
    await drive(page, clicks);
    return await read(page);
  } finally {
    await app.close();
  }
}

const brief = (f: Fingerprint) => `<${f.tag}${f.id ? `#${f.id}` : ''}> role=${f.role ?? '-'} name="${(f.accessible_name ?? '').slice(0, 60)}" text="${(f.text ?? '').slice(0, 60)}" attrs=${JSON.stringify(f.attributes).slice(0, 160)} xpath=${f.xpath ?? ""}`;

const browser = await launchChromium({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH });
try {
  const known = (await onPage(browser, pair.old, oldClicks, (page) => page.locator(selector).first().evaluate(FINGERPRINT, undefined, { timeout: 5000 }))) as Fingerprint;
  console.log(`known: ${brief(known)}`);
  const { candidates } = await onPage(browser, pair.new, newClicks, (page) => captureFailureEvidence(page, undefined));
  const relocation = assayRelocate(known, candidates as Fingerprint[]);
  console.log(`${candidates.length} candidates; pick: ${relocation.best ? `#${relocation.best.index} (${relocation.outlier ? 'confident' : 'plausible'}, ${relocation.confidence})` : 'none'}${relocation.reason ? `: ${relocation.reason}` : ''}`);
  for (const r of relocation.ranked.slice(0, 5)) {
    console.log(`  ${r.score.toFixed(3)} ${brief(candidates[r.index] as Fingerprint)}`);
    console.log(`        ${JSON.stringify(r.factors).slice(0, 300)}`);
  }
  // RANK_FIND=<words>: where the candidates whose name, text or attributes hold them rank (is the right one collected at all?).
  if (process.env.RANK_FIND) {
    const words = process.env.RANK_FIND.toLowerCase();
    const at = new Map(relocation.ranked.map((r, i) => [r.index, i]));
    (candidates as Fingerprint[]).forEach((c, i) => {
      if (!`${c.accessible_name ?? ''} ${c.text ?? ''} ${JSON.stringify(c.attributes ?? {})}`.toLowerCase().includes(words)) return;
      const r = relocation.ranked[at.get(i)!]!;
      console.log(`  found at rank ${at.get(i)! + 1}: ${r.score.toFixed(3)} ${brief(c)}\n        ${JSON.stringify(r.factors).slice(0, 300)}`);
    });
  }
  if (process.env.RANK_EXPLAIN) {
    // The abstention's inputs times their weights, largest first: why the top is (not) likely the element.
    const rows = pageFeatures(known, candidates as Fingerprint[], pageContext(candidates as Fingerprint[]));
    const { x } = topReadings(RELOCATION_MODEL, rows, undefined, (candidates as Fingerprint[]).map(controlKey));
    const names = ['score', 'lead', 'similo', 'text', 'identity', 'neighbours', 'role', ...FEATURES, ...FEATURES.map((f) => `${f} over next`)];
    const terms = x.map((v, k) => ({ name: names[k], v, c: v * RELOCATION_MODEL.abstention[k + 1]! }));
    console.log(`abstention bias ${RELOCATION_MODEL.abstention[0]!.toFixed(2)}`);
    for (const t of terms.sort((a, b) => Math.abs(b.c) - Math.abs(a.c)).slice(0, 16)) console.log(`  ${t.name}: ${t.v.toFixed(3)} -> ${t.c.toFixed(2)}`);
  }
} finally {
  await browser.close();
}
process.exit(0);
