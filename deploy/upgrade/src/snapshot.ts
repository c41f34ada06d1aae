import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { allMigrations, sha256 } from './migration-rules.js';
import { PREVIOUS_CHART_DIR, SNAPSHOT_FILE, lastReleaseCommit, type PreviousRelease } from './previous-release.js';
import { REPO_ROOT } from './versions.js';

/**
 * `make upgrade-snapshot [FROM=ref]`: the previous release's event schemas,
 * envelope and migrations (every service's and libs/bus's), read from its sources (`git archive` of FROM, no
 * install: the events catalogue imports no package), into
 * deploy/upgrade/previous-release.json, and its chart into deploy/upgrade/previous-chart. FROM defaults to the commit of the
 * newest release CHANGELOG.md names.
 */
async function main(): Promise<void> {
  const from = process.argv[2] || lastReleaseCommit().commit;
  const commit = execFileSync('git', ['rev-parse', `${from}^{commit}`], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  const dir = mkdtempSync(path.join(tmpdir(), 'assay-snapshot-'));
  try {
    const archive = execFileSync('git', ['archive', commit, 'libs/contracts/src', 'libs/bus/src', 'services', 'helm/assay/Chart.yaml'], { cwd: REPO_ROOT, maxBuffer: 256 * 1024 * 1024 });
    mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    const chart = parse(readFileSync(path.join(dir, 'helm/assay/Chart.yaml'), 'utf8')) as { appVersion: string };
    const { EVENTS } = (await import(pathToFileURL(path.join(dir, 'libs/contracts/src/events.ts')).href)) as { EVENTS: PreviousRelease['events'] };
    const types = readFileSync(path.join(dir, 'libs/bus/src/types.ts'), 'utf8');
    const body = /interface EventEnvelope[^{]*\{([^}]*)\}/.exec(types)?.[1] ?? '';
    const fields = [...body.matchAll(/^\s*(\w+)(\??):/gm)];
    const migrations: PreviousRelease['migrations'] = {};
    // Each service's migration files, and libs/bus's migration objects under 'libs/bus' (by export name).
    for (const [service, files] of Object.entries(allMigrations(dir))) migrations[service] = Object.fromEntries(files.map((f) => [f.id, sha256(f.source)]));
    const snapshot: PreviousRelease = {
      version: String(chart.appVersion),
      commit,
      envelope: { required: fields.filter((f) => !f[2]).map((f) => f[1]!), optional: fields.filter((f) => f[2]).map((f) => f[1]!) },
      events: Object.fromEntries(Object.entries(EVENTS).map(([k, v]) => [k, { topic: v.topic, visibility: v.visibility, data: v.data }])),
      migrations,
    };
    writeFileSync(path.join(REPO_ROOT, SNAPSHOT_FILE), `${JSON.stringify(snapshot, null, 1)}\n`);
    // The previous chart as it shipped, for the chart's upgrade test (deploy/chart/src/upgrade.test.ts).
    const chartDir = path.join(REPO_ROOT, PREVIOUS_CHART_DIR);
    rmSync(chartDir, { recursive: true, force: true });
    mkdirSync(chartDir, { recursive: true });
    execFileSync('tar', ['-x', '-C', chartDir, '--strip-components=2'], { input: execFileSync('git', ['archive', commit, 'helm/assay'], { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 }) });
    process.stdout.write(`upgrade-snapshot: ${snapshot.version} (${commit.slice(0, 7)}): ${Object.keys(snapshot.events).length} event types, ${Object.values(migrations).reduce((n, m) => n + Object.keys(m).length, 0)} migrations -> ${SNAPSHOT_FILE}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`upgrade-snapshot: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
