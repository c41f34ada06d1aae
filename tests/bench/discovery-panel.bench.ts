/* eslint-disable no-console -- a benchmark prints its figures */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { loadFeatureLists, type FeatureList } from '../discovery-panel/features.js';
import { runApp, type AppRun } from '../discovery-panel/panel.js';
import { PANEL_DIR } from '../discovery-panel/support.js';
import { removeAssayHome, startAssay } from '../e2e/support/launcher.js';
import { load } from './rounds.js';

/** Figures kept per app, to compare a run with (tests/discovery-panel/recorded.json). */
interface Recorded {
  recorded_at: string;
  commit: string;
  apps: Record<string, { coverage: number; covered: number; features: number; pages: number; flows_matched: number; cases_passed: number; cases_total: number }>;
}

const RECORDED = path.join(PANEL_DIR, 'recorded.json');
const pct = (x: number) => `${Math.round(x * 100)}%`;

function line(list: FeatureList, run: AppRun): string[] {
  const s = run.score;
  const expectedByType: Record<string, number> = {};
  const matchedByType: Record<string, number> = {};
  for (const f of s.flows) {
    expectedByType[f.expected.type] = (expectedByType[f.expected.type] ?? 0) + 1;
    if (f.flow_id) matchedByType[f.expected.type] = (matchedByType[f.expected.type] ?? 0) + 1;
  }
  const types = Object.keys(expectedByType)
    .sort()
    .map((t) => `${t} ${matchedByType[t] ?? 0}/${expectedByType[t]}`)
    .join(', ');
  const extra = Object.entries(s.detectedByType)
    .map(([t, n]) => `${t} ${n}`)
    .join(', ');
  const warnings = (run.results.warnings ?? []).map((w) => w.code).join(', ') || 'none';
  const out = [
    `  ${list.app.padEnd(11)} coverage ${pct(s.coverage).padStart(4)} (${s.covered}/${s.features})  pages ${s.pagesFound}/${s.pagesExpected}  flows ${types}  cases ${run.cases.passed}/${run.cases.total}  crawl ${run.crawlSeconds.toFixed(1)} s  confidence ${run.results.summary?.discovery_confidence ?? '-'}`,
    `      detected: ${extra || 'no flow'}; warnings: ${warnings}${s.silentNoFlows ? '; PAGES WITH NO FLOW AND NO WARNING' : ''}`,
  ];
  if (s.missingPages.length) out.push(`      pages not found: ${s.missingPages.join(', ')}`);
  const missed = s.flows.filter((f) => !f.flow_id).map((f) => `${f.expected.id} (${f.expected.type})`);
  if (missed.length) out.push(`      flows not found: ${missed.join(', ')}`);
  for (const f of run.cases.failures.slice(0, 5)) out.push(`      case failed: ${f.slice(0, 300)}`);
  if (run.error) out.push(`      ERROR: ${run.error.slice(0, 500)}`);
  return out;
}

function recordOf(runs: AppRun[], commit: string): Recorded {
  const apps: Recorded['apps'] = {};
  for (const r of runs) {
    const s = r.score;
    apps[r.app] = { coverage: Number(s.coverage.toFixed(3)), covered: s.covered, features: s.features, pages: s.pagesFound, flows_matched: s.flows.filter((f) => f.flow_id).length, cases_passed: r.cases.passed, cases_total: r.cases.total };
  }
  return { recorded_at: new Date().toISOString(), commit, apps };
}

/** Per-app deltas against the recording; answers the apps whose coverage dropped. */
function compare(runs: AppRun[], recorded: Recorded | undefined): string[] {
  if (!recorded) {
    console.log('  nothing recorded yet (BENCH_RECORD=1 records this run)');
    return [];
  }
  console.log(`  against the recording of ${recorded.recorded_at.slice(0, 16)} (commit ${recorded.commit}):`);
  const drops: string[] = [];
  for (const r of runs) {
    const before = recorded.apps[r.app];
    if (!before) {
      console.log(`    ${r.app}: new, nothing to compare`);
      continue;
    }
    const delta = r.score.covered - before.covered;
    const casesBefore = `${before.cases_passed}/${before.cases_total}`;
    console.log(`    ${r.app.padEnd(11)} coverage ${pct(before.coverage)} -> ${pct(r.score.coverage)} (${delta >= 0 ? '+' : ''}${delta} features); cases ${casesBefore} -> ${r.cases.passed}/${r.cases.total}`);
    if (r.score.covered < before.covered) drops.push(`${r.app}: ${before.covered} -> ${r.score.covered} features covered`);
  }
  return drops;
}

/**
 * `discovery-panel`: discovery on the panel of real third-party apps
 * (tests/discovery-panel), each through the real product: crawled through
 * the gateway, its flows turned into test cases and run by the runner in
 * Chromium against the unchanged app, the results scored against the app's
 * feature list. Prints per app and in total; compares with the recording and
 * fails on any app whose coverage dropped. BENCH_APPS=a,b runs some apps;
 * BENCH_RECORD=1 records the run.
 */
export async function benchDiscoveryPanel(): Promise<void> {
  const wanted = (process.env.BENCH_APPS ?? '').split(',').filter(Boolean);
  const lists = loadFeatureLists().filter((l) => !wanted.length || wanted.includes(l.app));
  const loadBefore = load();
  console.log(`discovery-panel: ${lists.length} real apps (${lists.map((l) => l.app).join(', ')}), load ${loadBefore}`);
  const assay = await startAssay({ env: { LOG_LEVEL: 'warn', RATE_LIMITS_ENABLED: 'false' } });
  const runs: AppRun[] = [];
  try {
    for (const list of lists) {
      const run = await runApp(assay, list);
      runs.push(run);
      for (const l of line(list, run)) console.log(l);
    }
  } finally {
    await assay.stop();
    await removeAssayHome(assay.home);
  }
  const covered = runs.reduce((n, r) => n + r.score.covered, 0);
  const features = runs.reduce((n, r) => n + r.score.features, 0);
  const worst = runs.reduce((w, r) => (r.score.coverage < w.score.coverage ? r : w), runs[0]!);
  const cases = runs.reduce((n, r) => ({ passed: n.passed + r.cases.passed, total: n.total + r.cases.total }), { passed: 0, total: 0 });
  const silent = runs.filter((r) => r.score.silentNoFlows).map((r) => r.app);
  console.log(`  total: coverage ${pct(covered / features)} (${covered}/${features} features; target >= 85%), lowest ${worst.app} ${pct(worst.score.coverage)} (target >= 70% each); generated cases passing ${cases.passed}/${cases.total}; apps with pages, no flow and no warning: ${silent.join(', ') || 'none'}`);
  // Leave-one-app-out: the detectors are rules with fixed settings, none fitted on the panel (see the panel's README),
  // so the figure each app gets with settings chosen without it is the figure above.
  console.log(`  leave-one-app-out (settings chosen without the app scored; no setting is fitted, so the same): coverage ${pct(covered / features)}, lowest ${worst.app} ${pct(worst.score.coverage)}`);
  const recorded = existsSync(RECORDED) ? (JSON.parse(readFileSync(RECORDED, 'utf8')) as Recorded) : undefined;
  const drops = compare(runs, recorded);
  console.log(`  load before ${loadBefore}, after ${load()}`);
  if (process.env.BENCH_RECORD) {
    const commit = process.env.BENCH_COMMIT ?? 'working tree';
    const next = recordOf(runs, commit);
    // Apps not run this time keep their recording.
    writeFileSync(RECORDED, `${JSON.stringify({ ...next, apps: { ...(recorded?.apps ?? {}), ...next.apps } }, null, 2)}\n`);
    console.log(`  recorded in ${RECORDED}`);
  } else if (drops.length) {
    throw new Error(`discovery-panel: coverage dropped on ${drops.join('; ')} (a change made for one app lowered another's figure)`);
  }
}
