import { createHash } from 'node:crypto';
import type { ArchiveFile } from './archive.js';
import { BOX_REPORTER } from './sandbox.js';

/** Config file names Playwright Test looks for, in its order. */
const CONFIG_NAMES = ['playwright.config.ts', 'playwright.config.js', 'playwright.config.mts', 'playwright.config.mjs', 'playwright.config.cts', 'playwright.config.cjs'];

/** The archive's Playwright config at its root, when it has one. */
export function findConfigFile(files: ArchiveFile[]): string | undefined {
  const names = new Set(files.map((f) => f.path));
  return CONFIG_NAMES.find((n) => names.has(n));
}

/** What a test's output folder set aside by the wrapper's worker is named after (given to the reporter as its option). */
const KEPT_MARK = '.assay-kept-';

/** The name of the config the runner writes beside the suite's own. */
export const WRAPPER_CONFIG = 'assay.playwright.config.ts';

/** What the runner forces on every project of a suite run, whatever its config says. */
export interface ForcedSettings {
  /** The run's base URL (the project's or its environment's): the one thing of the suite a run rewrites. */
  baseURL: string | null;
  chromiumPath: string;
  /** Project names to run; empty: every project that uses Chromium (and the projects they depend on). */
  projects: string[];
  retries: number | null;
  workers: number;
  /** Playwright trace mode: `on` so every test's trace opens in the console. */
  trace: 'on' | 'off' | 'retain-on-failure' | 'on-first-retry';
}

/**
 * The config the runner runs a suite with: the suite's own, with what a box
 * needs forced on every project (Chromium at CHROMIUM_PATH, headless,
 * the egress proxy on 127.0.0.1:1080, the base URL, the trace mode), the
 * runner's reporter instead of the suite's, its retries and workers when the
 * run names them, and no `webServer` (the app under test runs elsewhere).
 * The browser could still be launched by hand without the proxy: the box's
 * network namespace has no other way out, so that browser reaches nothing.
 */
export function wrapperConfig(configFile: string | undefined, forced: ForcedSettings): string {
  const importLine = configFile ? `import base from './${configFile.replace(/\.(ts|js)$/, '')}';` : 'const base = {};';
  return `// Written by the Assay runner for this run; the suite's own config is imported unchanged.
import fs from 'node:fs';
import path from 'node:path';
${importLine}
const forced = ${JSON.stringify(forced)};
const cfg = (base && base.default) || base || {};
const browserOf = (p) => (p.use && (p.use.browserName || p.use.defaultBrowserType)) || (cfg.use && (cfg.use.browserName || cfg.use.defaultBrowserType)) || 'chromium';
const all = Array.isArray(cfg.projects) && cfg.projects.length ? cfg.projects : [{ name: '' }];
const wanted = new Set(forced.projects.length ? forced.projects : all.filter((p) => browserOf(p) === 'chromium').map((p) => p.name || ''));
for (let grew = true; grew; ) {
  grew = false;
  for (const p of all) if (wanted.has(p.name || '')) for (const d of p.dependencies || []) if (!wanted.has(d)) { wanted.add(d); grew = true; }
}
const box = (use) => ({
  ...use,
  ...(forced.baseURL ? { baseURL: forced.baseURL } : {}),
  browserName: 'chromium',
  channel: undefined,
  headless: true,
  proxy: { server: 'socks5://127.0.0.1:1080' },
  trace: forced.trace,
  launchOptions: { ...((use && use.launchOptions) || {}), executablePath: forced.chromiumPath, args: [...(((use && use.launchOptions) || {}).args || []), '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] },
});
// In a worker: a test's output folder is set aside (renamed, ${KEPT_MARK}<n>) where Playwright would empty it (at
// the next test's start when two titles make the same folder; at a test's end under preserveOutput 'never'), so the
// runner's reporter, which reads the attachments later in the main process, still finds them there.
if (process.env.TEST_WORKER_INDEX !== undefined) {
  const outputDirs = new Set(all.map((p) => path.resolve(process.cwd(), p.outputDir || cfg.outputDir || 'test-results')));
  const rm = fs.promises.rm;
  let n = 0;
  fs.promises.rm = async function (target, options) {
    const dir = path.resolve(String(target));
    if (outputDirs.has(path.dirname(dir)) && !path.basename(dir).includes(${JSON.stringify(KEPT_MARK)})) {
      const aside = dir + ${JSON.stringify(KEPT_MARK)} + String(Date.now()).padStart(15, '0') + '-' + process.pid + '-' + String(++n).padStart(6, '0');
      await fs.promises.rename(dir, aside).catch(() => {});
    }
    return rm.call(this, target, options);
  };
}
export default {
  ...cfg,
  webServer: undefined,
  reporter: [[${JSON.stringify(BOX_REPORTER)}, { keptMark: ${JSON.stringify(KEPT_MARK)} }]],
  workers: forced.workers,
  ...(forced.retries === null ? {} : { retries: forced.retries }),
  use: box(cfg.use || {}),
  projects: all.filter((p) => wanted.has(p.name || '')).map((p) => ({ ...p, use: box({ ...(cfg.use || {}), ...(p.use || {}) }) })),
};
`;
}

/** A UUID made from a name (a test's suite, project, file and title path): the same test has the same id in every run. */
export function nameUuid(...parts: string[]): string {
  const h = createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The line Playwright Test's --test-list reads for one test. */
export function testListLine(t: { project: string; file: string; title_path: string[] }): string {
  return [`[${t.project}]`, t.file, ...t.title_path].join(' › ');
}
