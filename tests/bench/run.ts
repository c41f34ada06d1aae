/* eslint-disable no-console -- a benchmark prints its figures */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchDiscovery, benchDiscoverySpa } from './discovery.bench.js';
import { benchDiscoveryPanel } from './discovery-panel.bench.js';
import { benchExecutions } from './executions.bench.js';
import { benchHealing } from './healing.bench.js';
import { benchRelocation } from './relocation.bench.js';
import { benchSuites } from './suites.bench.js';
import { load, quietWaits, regressions, TOLERANCE, type Figure, type Recorded } from './rounds.js';
import { benchVisual } from './visual.bench.js';
import { benchWebhooks } from './webhooks.bench.js';

/**
 * `make bench [BENCH=name]`: each benchmark runs Assay and a baseline tool on
 * the same machine in the same process and prints both times and the ratio.
 *
 * `make bench-check` (this file with `--check`): short versions of the
 * executions, discovery and webhooks benches, each figure compared with the
 * one recorded in tests/bench/recorded.json for the same short version; it
 * fails when a figure is more than 15 % worse. `--record` writes the figures
 * just measured into that file (on purpose, after a change that moves them).
 */
const SUITES: Record<string, () => Promise<Figure[] | void>> = { executions: benchExecutions, discovery: benchDiscovery, 'discovery-spa': benchDiscoverySpa, 'discovery-panel': benchDiscoveryPanel, webhooks: benchWebhooks, relocation: benchRelocation, visual: benchVisual, suites: benchSuites, healing: benchHealing };
/** What `make bench-check` runs. */
const CHECKED = ['executions', 'discovery', 'webhooks'];
const RECORDED = fileURLToPath(new URL('./recorded.json', import.meta.url));
async function main(): Promise<void> {
  const args = process.argv.slice(2).filter(Boolean);
  const check = args.includes('--check');
  const record = args.includes('--record');
  const wanted = args.filter((a) => !a.startsWith('--'));
  const names = wanted.length ? wanted : check ? CHECKED : Object.keys(SUITES);
  const figures: Figure[] = [];
  for (const name of names) {
    const suite = SUITES[name];
    if (!suite) {
      console.error(`Unknown benchmark "${name}"; known: ${Object.keys(SUITES).join(', ')}`);
      process.exit(2);
    }
    Object.assign(quietWaits, { count: 0, ms: 0, timedOut: 0 });
    figures.push(...((await suite()) ?? []));
    const { count, ms, timedOut } = quietWaits;
    if (count) {
      console.log(`  before each side: waited for a quiet machine (under a fifth of the CPUs busy) ${(ms / 1000).toFixed(1)} s in all over ${count} sides${timedOut ? `; ${timedOut} of them went after 15 s without it` : ''}`);
    }
  }
  if (!check) return;
  const recorded: Recorded = existsSync(RECORDED) ? (JSON.parse(readFileSync(RECORDED, 'utf8')) as Recorded) : {};
  console.log('\nbench-check:');
  for (const f of figures) {
    const r = recorded[f.name];
    console.log(`  ${f.name}: ${f.value.toFixed(2)}${r ? ` (recorded ${r.value.toFixed(2)} on ${r.recorded_at.slice(0, 10)}, load ${r.load})` : ' (nothing recorded)'}`);
  }
  if (record) {
    const at = new Date().toISOString();
    for (const f of figures) recorded[f.name] = { value: Number(f.value.toFixed(3)), better: f.better, recorded_at: at, load: load() };
    writeFileSync(RECORDED, `${JSON.stringify(recorded, null, 2)}\n`);
    console.log(`  recorded in ${RECORDED}`);
    return;
  }
  const bad = regressions(figures, recorded);
  for (const b of bad) console.log(`  REGRESSION ${b}`);
  if (bad.length) process.exit(1);
  console.log(`  no figure more than ${TOLERANCE * 100} % worse than recorded`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
  process.exit(0);
}
