/* eslint-disable no-console -- a command-line tool prints what it wrote */
// Captures what the crawler reads on pages of a panel app (its PageAnalysis, as
// the crawler stores it) into a snapshot the detectors' unit tests run on
// (services/discovery-crawler/src/crawler/flows/snapshots/<app>.json), with the
// app's origin written as http://<app>.test so the snapshot does not depend on
// the port it ran on. A capture, not a crawl: the pages are the ones named.
//
//   pnpm exec tsx tests/discovery-panel/capture.ts sphinx / /install.html /search.html
//   pnpm exec tsx tests/discovery-panel/capture.ts redoc --explore /
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { DEFAULT_CHROMIUM_PATH } from '@assay/browser';
import { PageLoader } from '../../services/discovery-crawler/src/crawler/page-loader.js';
import { normaliseUrl } from '../../services/discovery-crawler/src/crawler/urls.js';
import { PANEL_APPS } from './panel.js';
import { PANEL_DIR } from './support.js';

const args = process.argv.slice(2);
const app = args[0]!;
const explore = args.includes('--explore');
const paths = args.slice(1).filter((a) => !a.startsWith('--'));
const running = await PANEL_APPS[app]!();
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH, args: ['--no-sandbox'] });
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const loader = await PageLoader.open(context as never, { allowWrites: false });
  const origin = new URL(running.url).origin;
  const fake = `http://${app}.test`;
  const pages: unknown[] = [];
  const tried = new Set<string>();
  for (const p of paths) {
    const url = normaliseUrl(new URL(p, `${running.url}/`).href)!;
    const loaded = await loader.load(url, { timeoutMs: 15000, waitForApi: true });
    const ex = loaded.extract!;
    const probed = await loader.probeRoutes(tried, { max: 8, budgetMs: 4000 });
    const found = explore ? (await loader.explore(ex.forms, { maxActions: 8, budgetMs: 15000 }, tried)).found : undefined;
    const norm = (u: string) => normaliseUrl(u) ?? u;
    const analysis = {
      links: [...new Set(ex.links.map(norm))],
      forms: ex.forms,
      headings: ex.headings,
      lists: ex.lists,
      navs: ex.navs.map((n) => ({ ...n, hrefs: n.hrefs.map(norm) })),
      modals: ex.modals,
      pagination: ex.pagination,
      writes: [],
      reads: [],
      link_selectors: Object.fromEntries(Object.entries(ex.link_selectors).map(([h, s]) => [norm(h), s])),
      ...(probed.routes.length ? { routes: probed.routes.map((r) => ({ ...r, url: norm(r.url) })) } : {}),
      ...(probed.sections.length ? { sections: probed.sections } : {}),
      ...(found?.panels.length ? { panels: found.panels } : {}),
      ...(found?.typeahead.length ? { typeahead: found.typeahead.map((t) => ({ ...t, calls: [] })) } : {}),
    };
    pages.push({ url, title: ex.title, analysis });
  }
  const out = path.join(PANEL_DIR, '..', '..', 'services', 'discovery-crawler', 'src', 'crawler', 'flows', 'snapshots', `${app}.json`);
  writeFileSync(out, `${JSON.stringify(pages, null, 1).split(origin).join(fake)}\n`);
  console.log(`captured ${pages.length} page(s) of ${app} into ${out}`);
} finally {
  await browser.close();
  await running.close();
}
